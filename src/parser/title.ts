import { absoluteUrl, firstMeta, jsonLdPublisher, jsonLdString, type MetaValues } from './metadata';
import { attributeIs, canonicalLink, closestWhere, EXACT, tagIn } from './select';
import { normaliseSpace } from './text';

/** Title from social-media tags, falling back to JSON-LD and <title>, with a trailing/leading site name trimmed. */

/** The marks that separate a title's parts ("Headline | Site", "Site - Section - Headline"). */
const SEPARATOR_MARKS = '|\\-–—:·•»/\\\\~';
/** Separators around which a site name is trimmed. */
const SEPARATOR = new RegExp(`\\s+[${SEPARATOR_MARKS}]+\\s+`, 'g');

function squash(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

function hostLabels(hosts: readonly string[]): string[] {
  return hosts.flatMap((host) => {
    const parts = host.toLowerCase().replace(/^www\d*\./, '').split('.');
    const labels = parts.length > 1 ? parts.slice(0, -1) : parts;
    return [labels.join(''), ...labels].filter((label) => label.length >= 3 && !/^\d+$/.test(label) && !['com', 'co', 'org', 'net', 'www'].includes(label));
  });
}

/** Whether a title part names the site (og:site_name, publisher, or the host name). */
function isSiteName(part: string, siteNames: string[], hosts: readonly string[]): boolean {
  const squashed = squash(part);
  if (!squashed) return false;
  // "homify.de" as og:site_name names the same site as "homify"
  if (siteNames.some((name) => squash(name) === squashed || squash(name.replace(/\.[a-z]{2,4}$/i, '')) === squashed)) return true;
  return hostLabels(hosts).some((label) => squashed === label || (squashed.length >= 4 && (label.includes(squashed) || squashed.includes(label))));
}

/** A leading part is only dropped on an exact site-name match: "Firefox — Customize it" is a title, not a prefix. */
function isExactSiteName(part: string, siteNames: string[], hosts: readonly string[]): boolean {
  const squashed = squash(part);
  return squashed !== '' && (siteNames.some((name) => squash(name) === squashed) || hostLabels(hosts).includes(squashed));
}

/** `hosts`: the page's host and the host its canonical URL declares (a page served from a mirror or cache). */
export function trimSiteName(title: string, siteNames: string[], hosts: readonly string[]): string {
  let current = normaliseSpace(title);
  // "Headline (Site)"
  const bracketed = current.match(/\s+\(([^()]+)\)$/);
  if (bracketed && isSiteName(bracketed[1], siteNames, hosts)) current = current.slice(0, bracketed.index).trim();
  for (let round = 0; round < 2; round++) {
    const separators = Array.from(current.matchAll(SEPARATOR));
    if (separators.length === 0) break;
    const last = separators[separators.length - 1];
    const tail = current.slice((last.index ?? 0) + last[0].length);
    if (isSiteName(tail, siteNames, hosts)) {
      current = current.slice(0, last.index).trim();
      continue;
    }
    const first = separators[0];
    const head = current.slice(0, first.index);
    if (isExactSiteName(head, siteNames, hosts)) {
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

/** A class name part that marks the line above a headline: "article-heading__kicker", "topic-label", "subtitle". */
const KICKER_PART = /^(?:kicker|topline|dachzeile|overline|eyebrow|label|topic|rubric|supertitle|roofline|spitzmarke|subtitle)$/i;

function isKicker(element: Element): boolean {
  return (element.getAttribute('class') ?? '').split(/\s+/).some((token) => token.split(/[-_]+/).some((part) => KICKER_PART.test(part)));
}

/**
 * A heading's text without the kicker that opens it ("<span class=kicker>Klimaschutz</span> Bohren, bis es heiß
 * wird"): the kicker is an element named so whose text starts the heading and is shorter than what follows.
 */
function headlineText(heading: Element): string {
  const full = normaliseSpace(heading.textContent ?? '');
  const kicker = Array.from(heading.querySelectorAll('[class]')).find(isKicker);
  if (!kicker) return full;
  const kickerText = normaliseSpace(kicker.textContent ?? '');
  if (!kickerText || !full.startsWith(kickerText)) return full;
  const rest = full.slice(kickerText.length).replace(/^[\s:|–—-]+/u, '');
  return rest.length > kickerText.length ? rest : full;
}

const HEADER_TAGS = new Set(['header', 'nav']);
const ARTICLE_TAGS = new Set(['article', 'main']);
/** `header, nav, [role="banner"]` */
const isPageHeader = (element: Element): boolean => tagIn(element, HEADER_TAGS) || attributeIs(element, 'role', 'banner', EXACT);
/** `article, main, [role="main"]` */
const isArticleFrame = (element: Element): boolean => tagIn(element, ARTICLE_TAGS) || attributeIs(element, 'role', 'main', EXACT);

/** The page's visible headings that may name the article: its h1s, then its h2s (first few, short enough to be a title). */
export function headingTexts(doc: Document): { h1s: string[]; h2s: string[] } {
  const texts = (selector: string): string[] =>
    Array.from(doc.querySelectorAll(selector))
      .slice(0, 8)
      // a site's logo or name: a heading in the page's own header or navigation, or one that links to the home page
      .filter((h) => !(closestWhere(h, isPageHeader) && !closestWhere(h, isArticleFrame)))
      .filter((h) => {
        const link = h.querySelector('a[href]');
        return !(link && /^(?:\/|https?:\/\/[^/]+\/?)$/.test(link.getAttribute('href') ?? ''));
      })
      .map(headlineText)
      .filter((t) => t.length >= 3 && t.length <= 250);
  return { h1s: texts('h1'), h2s: texts('h2') };
}

/** Separators between the parts a heading may repeat: those, guillemets and a colon ("Headline: more"). */
const TITLE_PARTS = new RegExp(`\\s+[${SEPARATOR_MARKS}›«]+\\s+|:\\s+`);

/** A title cut into its separator-delimited parts: the text and the offsets where each part starts and ends. */
function titleParts(title: string): { text: string; cuts: number[] } {
  const text = normaliseSpace(title);
  const separators = Array.from(text.matchAll(new RegExp(TITLE_PARTS.source, 'g')));
  const cuts = [0, ...separators.flatMap((m) => [m.index ?? 0, (m.index ?? 0) + m[0].length]), text.length];
  return { text, cuts };
}

/** Case, kinds of dash and quote, and spacing aside; unlike squash, the words and separators must be the same. */
function looseKey(text: string): string {
  return normaliseSpace(text.toLowerCase().replace(/[‐-―−]/g, '-').replace(/["„“”«»‚‘’']/g, '"'));
}

/**
 * The runs of several parts a heading may repeat: each run from the start ("Headline: more | Site"), and a run
 * that closes a breadcrumb of two parts or more ("Site - Section - Headline").
 */
function confirmingRuns(title: string): string[] {
  const { text, cuts } = titleParts(title);
  const runs: string[] = [];
  for (let end = 3; end < cuts.length; end += 2) runs.push(text.slice(0, cuts[end]));
  for (let start = 4; start < cuts.length; start += 2) runs.push(text.slice(cuts[start]));
  return runs;
}

/**
 * A heading that the declared titles confirm: equal to one of them or to one of their parts (letters and digits
 * compared), or to a run of parts (confirmingRuns, compared by looseKey). The page's own heading is then the
 * article's title as a reader sees it (no site name, no kicker).
 */
function confirmedHeading(headings: string[], declared: string[]): string | null {
  const confirmed = headings.filter((heading) => {
    const key = squash(heading);
    if (key.length < 3) return false;
    const loose = looseKey(heading);
    return declared.some(
      (title) => squash(title) === key || title.split(TITLE_PARTS).some((part) => squash(part) === key) || confirmingRuns(title).some((run) => looseKey(run) === loose),
    );
  });
  // "Site - Section - Headline" confirms both the section's heading and the headline's: when the first confirmed
  // heading is as short as a section's name, the one of most words
  const words = (text: string): number => text.split(/\s+/).length;
  const first = confirmed[0];
  if (first && words(first) > 3) return first;
  const best = confirmed.reduce<string | null>((found, heading) => (!found || words(heading) > words(found) ? heading : found), null);
  return best ?? gluedHeadline(headings, declared);
}

/** Every run of consecutive parts of a title ("A: B | C" → "A: B | C", "A: B", "B | C", "A", "B", "C"), longest first. */
function titleRuns(title: string): string[] {
  const { text, cuts } = titleParts(title);
  const runs: string[] = [];
  for (let start = 0; start < cuts.length; start += 2) for (let end = cuts.length - 1; end > start; end -= 2) runs.push(text.slice(cuts[start], cuts[end]));
  return runs.sort((a, b) => b.length - a.length);
}

/** A date ("1. Februar 2022", "3 février 2022", "27.01.2022", "2022-01-27", "May 3, 2022"): what may be glued before a headline. */
const GLUED_DATE = /\b\d{1,2}\.?\s+\p{L}+\.?\s+\d{4}\b|\b\d{1,2}\.\d{1,2}\.(?:\d{4}|\d{2})|\b\d{4}-\d{2}-\d{2}\b|\b\p{L}+\.?\s+\d{1,2},?\s+\d{4}\b/u;

/**
 * A heading whose text ends with a run of a declared title's parts, after a kicker or a date glued in front of it
 * ("1. Februar 2022 Headline"; "Kicker Headline" where <title> is "Kicker: Headline | Site"): that run, as the
 * heading writes it, is the headline. What is glued in front must be a date or repeat another part of the title;
 * only the longest run the heading ends with is considered.
 */
function gluedHeadline(headings: string[], declared: string[]): string | null {
  for (const heading of headings) {
    const key = squash(heading);
    for (const title of declared) {
      const run = titleRuns(title).find((candidate) => candidate.split(' ').length >= 3 && key.endsWith(squash(candidate)));
      if (!run) continue;
      const runKey = squash(run);
      const gluedKey = key.slice(0, key.length - runKey.length);
      const start = Array.from({ length: heading.length }, (_c, i) => i).find((i) => squash(heading.slice(i)) === runKey) ?? 0;
      const glued = heading.slice(0, start);
      const parts = title.split(TITLE_PARTS).map(squash).filter((part) => part.length >= 3 && part !== runKey);
      if (gluedKey && (GLUED_DATE.test(glued) || parts.some((part) => gluedKey.includes(part) || part.includes(gluedKey)))) return heading.slice(start).trim();
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
  /** How many of `headings` (from the start) are h1s. */
  h1Count: number;
  /** Every h1 and h2 text, for the <title> part that repeats one. */
  allHeadings: string[];
  firstH1: string;
  siteNames: string[];
  /** The page's host, and the host of its canonical URL (or og:url) when that differs. */
  hosts: string[];
}

/** The host the page declares as its own (link rel=canonical, else og:url), or null. */
function declaredHost(doc: Document, values: MetaValues): string | null {
  const declared = absoluteUrl(canonicalLink(doc)?.getAttribute('href'), doc.URL) ?? absoluteUrl(values.get('og:url'), doc.URL);
  return declared ? new URL(declared).hostname : null;
}

/**
 * JSON-LD is script text, so HTML entities in it stay as written ("Meghan&#39;s", "&mdash;"); publishers' templates
 * escape them anyway. Decoded the way the page's own text would be (a textarea's content is text, never markup).
 */
function decodeEntities(doc: Document, text: string | null): string | null {
  if (!text || !/&(?:#\d+|#x[\da-f]+|[a-z]+\d*);/i.test(text)) return text;
  const holder = doc.createElement('textarea');
  holder.innerHTML = text;
  return holder.value;
}

export function titleInputs(doc: Document, values: MetaValues, jsonLd: Record<string, unknown>[], host: string): TitleInputs {
  const documentTitle = normaliseSpace(doc.title ?? '');
  const { h1s, h2s } = headingTexts(doc);
  const jsonLdText = (key: string): string | null => decodeEntities(doc, jsonLdString(jsonLd, key));
  return {
    documentTitle,
    social: firstMeta(values, ['og:title', 'twitter:title']),
    jsonLd: chooseJsonLdTitle(jsonLdText('name'), jsonLdText('headline'), documentTitle),
    headings: [...h1s, ...h2s],
    h1Count: h1s.length,
    allHeadings: Array.from(doc.querySelectorAll('h1, h2')).map((h) => normaliseSpace(h.textContent ?? '')),
    firstH1: normaliseSpace(doc.querySelector('h1')?.textContent ?? ''),
    siteNames: siteNamesOf(values, jsonLdPublisher(jsonLd), documentTitle),
    hosts: Array.from(new Set([host, declaredHost(doc, values) ?? host])),
  };
}

/** A separator that a site's template puts between a page's name and the site's ("Ausbildung - Feuerwehr Oldenburg"). */
const TEMPLATE_SEPARATOR = /\s[|\-–—·•»/~](?:\s|$)/;

const wordCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/**
 * A visible headline that no declared title confirms, taken over the declared title (`fallback`) in two cases that
 * the page's structure tells apart:
 * - og:title and JSON-LD are both there and say the same as <title> and Readability's title, site name aside: one
 *   SEO title that the CMS copied everywhere. An h1 of three words or more that says something else is the
 *   editorial headline a reader sees.
 * - the page has no h1, no og:title and no JSON-LD, and its <title> is a template's "Page - Site": the first h2 names
 *   the article.
 * Not when the heading holds the declared title (a kicker or a subtitle glued to it) or only spaces it otherwise.
 */
function unconfirmedHeadline(inputs: TitleInputs, readability: string | null, headings: string[], h1s: string[], fallback: string): string | null {
  const { documentTitle, social, jsonLd, siteNames, hosts } = inputs;
  const key = squash(fallback);
  const unspaced = (text: string): string => text.replace(/\s+/g, '');
  const differs = (heading: string): boolean => key !== '' && !squash(heading).includes(key) && unspaced(heading) !== unspaced(fallback);
  const h1 = h1s[0];
  if (h1 && social && jsonLd && wordCount(h1) >= 3 && differs(h1)) {
    const declared = [social, jsonLd, readability, documentTitle].filter((t): t is string => !!t).map((t) => squash(trimSiteName(t, siteNames, hosts)));
    if (declared.every((title) => title === declared[0])) return h1;
  }
  const first = headings[0];
  if (first && !inputs.firstH1 && !social && !jsonLd && wordCount(first) >= 2 && TEMPLATE_SEPARATOR.test(documentTitle) && differs(first)) return first;
  return null;
}

/**
 * The article's title. `readability` is what Readability reads (JSON-LD, dc:title, og:title, twitter:title,
 * then its <title> heuristics).
 */
export function chooseTitle(inputs: TitleInputs, readability: string | null): string {
  const { documentTitle, social, siteNames, hosts } = inputs;
  const declared = [social, inputs.jsonLd, readability, documentTitle].filter((t): t is string => !!t && t.trim() !== '');
  const names = [...siteNames, ...hostLabels(hosts)];
  const namesSite = (text: string): boolean => {
    const key = squash(text);
    return key !== '' && names.some((name) => squash(name) === key);
  };
  // headings that only repeat the site's name (a blog's logo in an h1) do not name the article
  const headings = inputs.headings.filter((heading) => !namesSite(heading));
  const h1s = inputs.headings.slice(0, inputs.h1Count).filter((heading) => !namesSite(heading));
  const heading = confirmedHeading(headings, declared);
  // a heading built of spans gets spaces around its punctuation ("Kicker : Headline"); the declared title has none
  const unspaced = (text: string): string => text.replace(/\s+/g, '');
  if (heading) return declared.find((title) => unspaced(title) === unspaced(heading) && title.length < heading.length) ?? heading;
  const fallback = declaredTitle(inputs, readability, headings, namesSite);
  if (headings.includes(fallback)) return fallback;
  return unconfirmedHeadline(inputs, readability, headings, h1s, fallback) ?? fallback;
}

/** The title the page declares when no heading is confirmed: Readability's (else og:title, JSON-LD, <title>), site name trimmed. */
function declaredTitle(inputs: TitleInputs, readability: string | null, headings: string[], namesSite: (text: string) => boolean): string {
  const { documentTitle, social, siteNames, hosts } = inputs;
  const best = readability || social || inputs.jsonLd;
  if (best) {
    const trimmed = trimSiteName(best, siteNames, hosts);
    // the declared title is only the site's name (a blog's front matter): the first heading names the post
    if (namesSite(trimmed) && headings.length > 0) return headings[0];
    // a one-word declared title ("Home", "Aktuelles", "detail") names a section; a headline of several words names the page
    const headline = headings.find((text) => text.split(/\s+/).length >= 3);
    if (!/\s/.test(trimmed) && headline) return headline;
    // ... and so does a declared title of several words that Readability passed over
    const declaredHeadline = [social, inputs.jsonLd].find((text) => text && text.split(/\s+/).length >= 3);
    if (!/\s/.test(trimmed) && declaredHeadline) return trimSiteName(declaredHeadline, siteNames, hosts);
    return trimmed;
  }
  if (documentTitle) return partMatchingHeading(inputs.allHeadings, documentTitle) ?? trimSiteName(documentTitle, siteNames, hosts);
  return inputs.firstH1;
}
