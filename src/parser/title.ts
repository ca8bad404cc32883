import { firstMeta, jsonLdPublisher, jsonLdString, type MetaValues } from './metadata';
import { normaliseSpace } from './text';

/** Title from social-media tags, falling back to JSON-LD and <title>, with a trailing/leading site name trimmed. */

const SEPARATOR = /\s+[|\-–—:·•»/\\~]+\s+/g;

function squash(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

function hostLabels(host: string): string[] {
  const parts = host.toLowerCase().replace(/^www\d*\./, '').split('.');
  const labels = parts.length > 1 ? parts.slice(0, -1) : parts;
  return [labels.join(''), ...labels].filter((label) => label.length >= 3 && !['com', 'co', 'org', 'net', 'www'].includes(label));
}

/** Whether a title part names the site (og:site_name, publisher, or the host name). */
function isSiteName(part: string, siteNames: string[], host: string): boolean {
  const squashed = squash(part);
  if (!squashed) return false;
  if (siteNames.some((name) => squash(name) === squashed)) return true;
  return hostLabels(host).some((label) => squashed === label || (squashed.length >= 4 && (label.includes(squashed) || squashed.includes(label))));
}

/** A leading part is only dropped on an exact site-name match: "Firefox — Customize it" is a title, not a prefix. */
function isExactSiteName(part: string, siteNames: string[], host: string): boolean {
  const squashed = squash(part);
  return squashed !== '' && (siteNames.some((name) => squash(name) === squashed) || hostLabels(host).includes(squashed));
}

export function trimSiteName(title: string, siteNames: string[], host: string): string {
  let current = normaliseSpace(title);
  for (let round = 0; round < 2; round++) {
    const separators = Array.from(current.matchAll(SEPARATOR));
    if (separators.length === 0) break;
    const last = separators[separators.length - 1];
    const tail = current.slice((last.index ?? 0) + last[0].length);
    if (isSiteName(tail, siteNames, host)) {
      current = current.slice(0, last.index).trim();
      continue;
    }
    const first = separators[0];
    const head = current.slice(0, first.index);
    if (isExactSiteName(head, siteNames, host)) {
      current = current.slice((first.index ?? 0) + first[0].length).trim();
      continue;
    }
    break;
  }
  return current || normaliseSpace(title);
}

/**
 * The site's names: og:site_name, the JSON-LD publisher, and application-name unless it only repeats the page's
 * own title (some publishers fill application-name with every article's headline).
 */
export function siteNamesOf(values: MetaValues, publisher: string | null, documentTitle = ''): string[] {
  const applicationName = values.get('application-name');
  const pageTitles = [values.get('og:title'), values.get('twitter:title'), documentTitle].map((title) => squash(title ?? ''));
  const ownName = applicationName && !pageTitles.includes(squash(applicationName)) ? applicationName : null;
  return [values.get('og:site_name'), ownName, publisher].filter((name): name is string => !!name);
}

/** Share of the words of `a` found in `b` (Readability's measure for JSON-LD name vs headline). */
function wordOverlap(a: string, b: string): number {
  const words = (text: string): string[] => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const bWords = new Set(words(b));
  const aWords = words(a);
  if (aWords.length === 0) return 0;
  return aWords.filter((w) => bWords.has(w)).length / aWords.length;
}

/** JSON-LD may carry both `name` and `headline`; some sites put their own name in one of them. */
export function chooseJsonLdTitle(name: string | null, headline: string | null, documentTitle: string): string | null {
  if (name && headline && name !== headline) {
    const nameMatches = wordOverlap(name, documentTitle) > 0.75;
    const headlineMatches = wordOverlap(headline, documentTitle) > 0.75;
    return headlineMatches && !nameMatches ? headline : name;
  }
  return name ?? headline;
}

/** When the <title> is "A – B", a part repeated as the page's heading is the article title. */
function partMatchingHeading(allHeadings: string[], title: string): string | null {
  const parts = title.split(SEPARATOR).map((part) => part.trim()).filter(Boolean);
  if (parts.length < 2) return null;
  const headings = new Set(allHeadings.map(squash));
  return parts.find((part) => part.split(/\s+/).length >= 2 && headings.has(squash(part))) ?? null;
}

/** The page's visible headings that may name the article: h1s, else h2s (first few, short enough to be a title). */
export function headingTexts(doc: Document): string[] {
  const texts = (selector: string): string[] =>
    Array.from(doc.querySelectorAll(selector))
      .slice(0, 8)
      // a site's logo or name: a heading in the page's own header or navigation, or one that links to the home page
      .filter((h) => !(h.closest('header, nav, [role="banner"]') && !h.closest('article, main, [role="main"]')))
      .filter((h) => {
        const link = h.querySelector('a[href]');
        return !(link && /^(?:\/|https?:\/\/[^/]+\/?)$/.test(link.getAttribute('href') ?? ''));
      })
      .map((h) => normaliseSpace(h.textContent ?? ''))
      .filter((t) => t.length >= 3 && t.length <= 250);
  return [...texts('h1'), ...texts('h2')];
}

/**
 * A heading that the declared titles confirm: equal to one of them, to one of their separator-delimited parts,
 * or their start up to a separator ("Headline: more" / "Headline | Site"). The page's own heading is then the
 * article's title as a reader sees it (no site name, no kicker).
 */
function confirmedHeading(headings: string[], declared: string[]): string | null {
  for (const heading of headings) {
    const key = squash(heading);
    if (key.length < 3) continue;
    for (const title of declared) {
      const full = squash(title);
      if (full === key) return heading;
      const parts = title.split(/\s+[|\-–—:·•»/\\~›«]+\s+|:\s+/).map(squash);
      if (parts.includes(key)) return heading;
      const normalised = normaliseSpace(title);
      if (normalised.toLowerCase().startsWith(heading.toLowerCase())) {
        const rest = normalised.slice(heading.length);
        if (/^\s*[|\-–—:·•»/\\~›«]/.test(rest)) return heading;
      }
    }
  }
  return null;
}

/** What the title rules read, gathered before clean-up and Readability change the document. */
export interface TitleInputs {
  documentTitle: string;
  /** og:title, else twitter:title. */
  social: string | null;
  /** JSON-LD name or headline (chooseJsonLdTitle). */
  jsonLd: string | null;
  /** headingTexts(doc): h1s, then h2s. */
  headings: string[];
  /** Every h1 and h2 text, for the <title> part that repeats one. */
  allHeadings: string[];
  firstH1: string;
  siteNames: string[];
  host: string;
}

export function titleInputs(doc: Document, values: MetaValues, jsonLd: Record<string, unknown>[], host: string): TitleInputs {
  const documentTitle = normaliseSpace(doc.title ?? '');
  return {
    documentTitle,
    social: firstMeta(values, ['og:title', 'twitter:title']),
    jsonLd: chooseJsonLdTitle(jsonLdString(jsonLd, 'name'), jsonLdString(jsonLd, 'headline'), documentTitle),
    headings: headingTexts(doc),
    allHeadings: Array.from(doc.querySelectorAll('h1, h2')).map((h) => normaliseSpace(h.textContent ?? '')),
    firstH1: normaliseSpace(doc.querySelector('h1')?.textContent ?? ''),
    siteNames: siteNamesOf(values, jsonLdPublisher(jsonLd), documentTitle),
    host,
  };
}

/**
 * The article's title. `readability` is what Readability reads (JSON-LD, dc:title, og:title, twitter:title,
 * then its <title> heuristics).
 */
export function chooseTitle(inputs: TitleInputs, readability: string | null): string {
  const { documentTitle, social, siteNames, host } = inputs;
  const declared = [social, inputs.jsonLd, readability, documentTitle].filter((t): t is string => !!t && t.trim() !== '');
  const names = [...siteNames, ...hostLabels(host)];
  const namesSite = (text: string): boolean => {
    const key = squash(text);
    return key !== '' && names.some((name) => squash(name) === key);
  };
  // headings that only repeat the site's name (a blog's logo in an h1) do not name the article
  const headings = inputs.headings.filter((heading) => !namesSite(heading));
  const heading = confirmedHeading(headings, declared);
  if (heading) return heading;
  const best = readability || social || inputs.jsonLd;
  if (best) {
    const trimmed = trimSiteName(best, siteNames, host);
    // the declared title is only the site's name (a blog's front matter): the first heading names the post
    if (namesSite(trimmed) && headings.length > 0) return headings[0];
    // a one-word declared title ("Home", "Aktuelles", "detail") names a section; a headline of several words names the page
    const headline = headings.find((text) => text.split(/\s+/).length >= 3);
    if (!/\s/.test(trimmed) && headline) return headline;
    return trimmed;
  }
  if (documentTitle) return partMatchingHeading(inputs.allHeadings, documentTitle) ?? trimSiteName(documentTitle, siteNames, host);
  return inputs.firstH1;
}
