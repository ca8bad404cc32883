/** What the extraction service answers for one article URL. */
export interface ArticleResult {
  title: string;
  /** May be "" when no author could be found. */
  author: string;
  /** ISO 8601 or null: at the offset the page gave (so the date is the article's own day), else UTC. */
  published: string | null;
  /** Canonical URL of the article, absolute; the fetched URL when the page names none. */
  url: string;
  /** Absolute URL of the main image, "" when there is none. */
  image: string;
  /** Absolute video / player URLs, deduplicated, in page order. */
  videos: string[];
  keywords: string[];
  summary: string;
  /** Main text, paragraphs separated by "\n". */
  body: string;
}

/** Payload of the `extract` worker task. */
export interface ExtractPayload {
  html: string;
  /** Final URL of the fetch (after redirects): base for relative links. */
  url: string;
}
