import { JSDOM, VirtualConsole } from 'jsdom';
import { Readability } from '@mozilla/readability';
import { dropBoilerplateBlocks, removePageFurniture, unwrapLazyImages } from './cleanup';
import { extractKeywords } from './keywords';
import {
  absoluteUrl,
  dateFromUrl,
  findVideos,
  firstMeta,
  jsonLdAuthor,
  jsonLdImage,
  jsonLdString,
  readJsonLd,
  readMetaValues,
  timeElementDate,
  toIsoDate,
  type MetaValues,
} from './metadata';
import { summarise } from './summary';
import { normaliseSpace, paragraphsOf } from './text';
import { chooseJsonLdTitle, chooseTitle, siteNamesOf } from './title';
import type { ArticleResult } from './types';

export interface ExtractOptions {
  /** Pre/post-processing around Readability (default true); the benchmark turns it off to compare. */
  cleanup?: boolean;
  keywordLimit?: number;
  summarySentences?: number;
}

const STYLE_BLOCK = /<style\b[^>]*>[\s\S]*?<\/style\s*>/gi;

/**
 * Parses HTML without running scripts or loading sub-resources (jsdom's defaults, stated explicitly).
 * <style> blocks are dropped first: extraction never needs them, and jsdom's CSS parser throws on
 * some real-world stylesheets (e.g. `border: inherit` shorthands), which would abort the whole parse.
 */
export function parseHtml(html: string, url: string): JSDOM {
  return new JSDOM(html.replace(STYLE_BLOCK, ''), {
    url,
    runScripts: undefined,
    resources: undefined,
    virtualConsole: new VirtualConsole(),
  });
}

const MONTH = '(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\\.?';
const BYLINE_DATE = new RegExp(
  [
    '(?:last\\s+)?(?:updated|published|posted)(?:\\s+on)?:?',
    '\\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues|tue|wed|thurs|thu|fri|sat|sun)\\.?,?(?=\\s)',
    `\\b${MONTH}\\s+\\d{1,2}(?:st|nd|rd|th)?(?:,?\\s*\\d{4})?`,
    `\\b\\d{1,2}(?:st|nd|rd|th)?\\s+${MONTH}(?:,?\\s*\\d{4})?`,
    '\\b\\d{1,4}[/.-]\\d{1,2}[/.-]\\d{1,4}\\b',
    '\\b(?:at\\s+)?\\d{1,2}:\\d{2}(?::\\d{2})?\\s*(?:[ap]\\.?m\\.?)?(?:\\s*(?:UTC|GMT|[ECMP][SD]T))?',
  ].join('|'),
  'gi',
);

function cleanAuthor(raw: string | null | undefined): string | null {
  if (!raw) return null;
  let text = normaliseSpace(raw);
  if (/^https?:\/\//i.test(text)) return null;
  // bylines often carry the date ("By Jane Doe March 25, 2015 3:46 PM"); keep the name, drop a byline that is only a date
  text = normaliseSpace(text.replace(BYLINE_DATE, ' ')).replace(/^[\s,|·•-]+|[\s,|·•-]+$/g, '');
  text = text.replace(/^(?:by|von|par|por|door|di|av)\s+/i, '').replace(/\s+(?:on|at)$/i, '').trim();
  if (!text || text.length > 200 || !/\p{L}{2}/u.test(text)) return null;
  return text;
}

/** A byline element as Readability would find it, read before clean-up can move the document around. */
function findByline(doc: Document): string | null {
  for (const element of Array.from(doc.querySelectorAll('[rel="author"], [itemprop~="author"], [class*="byline" i], [id*="byline" i]')).slice(0, 20)) {
    const named = element.querySelector('[itemprop~="name"]') ?? element;
    const text = normaliseSpace(named.textContent ?? '');
    if (text && text.length < 100) return text;
  }
  return null;
}

function chooseAuthor(values: MetaValues, jsonLdName: string | null, byline: string | null | undefined, foundByline: string | null): string {
  const articleAuthor = values.get('article:author');
  const candidates = [
    jsonLdName,
    firstMeta(values, ['dc:creator', 'dc.creator', 'dcterm:creator', 'dcterms.creator', 'author', 'parsely-author', 'sailthru.author']),
    articleAuthor && !/^https?:\/\//i.test(articleAuthor) ? articleAuthor : null,
    byline,
    foundByline,
  ];
  for (const candidate of candidates) {
    const author = cleanAuthor(candidate);
    if (author) return author;
  }
  return '';
}

function choosePublished(doc: Document, values: MetaValues, jsonLdDate: string | null, url: string): string | null {
  const metaDate = firstMeta(values, [
    'article:published_time',
    'og:published_time',
    'article:published',
    'datepublished',
    'parsely-pub-date',
    'sailthru.date',
    'dc.date.issued',
    'dc.date',
    'dcterms.date',
    'dcterms.created',
    'pubdate',
    'publishdate',
    'publish-date',
    'date',
  ]);
  return (
    toIsoDate(values.get('article:published_time')) ??
    toIsoDate(jsonLdDate) ??
    toIsoDate(metaDate) ??
    timeElementDate(doc) ??
    dateFromUrl(url)
  );
}

function chooseCanonical(doc: Document, values: MetaValues, pageUrl: string): string {
  const link = doc.querySelector('link[rel~="canonical" i][href]');
  return absoluteUrl(link?.getAttribute('href'), pageUrl) ?? absoluteUrl(values.get('og:url'), pageUrl) ?? pageUrl;
}

function leadImage(content: Element | null, base: string): string | null {
  if (!content) return null;
  for (const img of Array.from(content.querySelectorAll('img'))) {
    const width = Number(img.getAttribute('width'));
    const height = Number(img.getAttribute('height'));
    if ((width > 0 && width < 100) || (height > 0 && height < 80)) continue;
    const src = img.getAttribute('src') ?? img.getAttribute('srcset')?.split(/\s+/)[0];
    const url = absoluteUrl(src, base);
    if (url && !/\.svg(?:$|\?)|spacer|pixel|blank\.gif/i.test(url)) return url;
  }
  return null;
}

function declaredKeywords(values: MetaValues, doc: Document): string[] {
  const declared = [values.get('keywords'), values.get('news_keywords')]
    .filter((v): v is string => !!v)
    .flatMap((v) => v.split(/[,;]/));
  for (const tag of Array.from(doc.querySelectorAll('meta[property="article:tag" i]'))) declared.push(tag.getAttribute('content') ?? '');
  return declared.map((k) => normaliseSpace(k)).filter((k) => k.length > 1);
}

/** html + final URL → article fields. Never throws for odd pages: missing parts come back empty. */
export function extractArticle(html: string, pageUrl: string, options: ExtractOptions = {}): ArticleResult {
  const cleanup = options.cleanup ?? true;
  const dom = parseHtml(html, pageUrl);
  try {
    const doc = dom.window.document;
    const base = doc.baseURI || pageUrl;
    const host = new URL(pageUrl).hostname;

    const values = readMetaValues(doc);
    const allJsonLd = readJsonLd(doc);
    const jsonLd = allJsonLd;
    const publisher = ((): string | null => {
      for (const node of jsonLd) {
        const p = node.publisher;
        if (typeof p === 'object' && p !== null && !Array.isArray(p)) {
          const name = (p as Record<string, unknown>).name;
          if (typeof name === 'string') return name;
        }
      }
      return null;
    })();
    const siteNames = siteNamesOf(values, publisher);
    const jsonLdTitle = chooseJsonLdTitle(jsonLdString(jsonLd, 'name'), jsonLdString(jsonLd, 'headline'), doc.title ?? '');
    const title = chooseTitle(doc, values, jsonLdTitle, siteNames, host);
    const published = choosePublished(doc, values, jsonLdString(jsonLd, 'datePublished'), pageUrl);
    const url = chooseCanonical(doc, values, pageUrl);
    const videos = findVideos(doc, values, jsonLd, allJsonLd, base);
    const declared = declaredKeywords(values, doc);
    const metaImage =
      absoluteUrl(firstMeta(values, ['og:image:secure_url', 'og:image:url', 'og:image', 'twitter:image', 'twitter:image:src']), base) ??
      absoluteUrl(jsonLdImage(jsonLd), base) ??
      absoluteUrl(doc.querySelector('link[rel~="image_src" i]')?.getAttribute('href'), base);

    const foundByline = findByline(doc);
    unwrapLazyImages(doc);
    if (cleanup) removePageFurniture(doc);

    let article: ReturnType<Readability<Element>['parse']> = null;
    try {
      article = new Readability<Element>(doc, {
        serializer: (node) => node as Element,
        classesToPreserve: ['caption'],
      }).parse();
    } catch {
      article = null;
    }
    const content = article?.content ?? null;
    if (content && cleanup) dropBoilerplateBlocks(content);
    const body = content ? paragraphsOf(content).join('\n') : '';
    const image = metaImage ?? leadImage(content, base) ?? '';
    const author = chooseAuthor(values, jsonLdAuthor(jsonLd), article?.byline, foundByline);

    const scored = extractKeywords(body, { title, declared, limit: options.keywordLimit ?? 10 });
    let summary = summarise(body, scored.wordWeights, options.summarySentences ?? 3);
    if (!summary) summary = normaliseSpace(firstMeta(values, ['og:description', 'description', 'twitter:description']) ?? '');

    return { title, author, published, url, image, videos, keywords: scored.keywords, summary, body };
  } finally {
    dom.window.close();
  }
}
