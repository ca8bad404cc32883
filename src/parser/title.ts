import { firstMeta, jsonLdString, type MetaValues } from './metadata';
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

export function siteNamesOf(values: MetaValues, publisher: string | null): string[] {
  return [values.get('og:site_name'), values.get('application-name'), publisher].filter(
    (name): name is string => !!name,
  );
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
function partMatchingHeading(doc: Document, title: string): string | null {
  const parts = title.split(SEPARATOR).map((part) => part.trim()).filter(Boolean);
  if (parts.length < 2) return null;
  const headings = new Set(Array.from(doc.querySelectorAll('h1, h2')).map((h) => squash(h.textContent ?? '')));
  return parts.find((part) => part.split(/\s+/).length >= 2 && headings.has(squash(part))) ?? null;
}

export function chooseTitle(doc: Document, values: MetaValues, jsonLdTitle: string | null, siteNames: string[], host: string): string {
  const social = firstMeta(values, ['og:title', 'twitter:title']);
  if (social) return trimSiteName(social, siteNames, host);
  if (jsonLdTitle) return trimSiteName(jsonLdTitle, siteNames, host);
  const documentTitle = normaliseSpace(doc.title ?? '');
  if (documentTitle) return partMatchingHeading(doc, documentTitle) ?? trimSiteName(documentTitle, siteNames, host);
  return normaliseSpace(doc.querySelector('h1')?.textContent ?? '');
}

export { jsonLdString };
