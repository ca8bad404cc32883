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
    if (isSiteName(head, siteNames, host)) {
      current = current.slice((first.index ?? 0) + first[0].length).trim();
      continue;
    }
    break;
  }
  return current || normaliseSpace(title);
}

export function siteNamesOf(values: MetaValues, publisher: string | null): string[] {
  return [values.get('og:site_name'), values.get('application-name'), values.get('twitter:site')?.replace(/^@/, ''), publisher].filter(
    (name): name is string => !!name,
  );
}

export function chooseTitle(doc: Document, values: MetaValues, jsonLdHeadline: string | null, siteNames: string[], host: string): string {
  const documentTitle = normaliseSpace(doc.title ?? '');
  const raw =
    firstMeta(values, ['og:title', 'twitter:title']) ??
    jsonLdHeadline ??
    (documentTitle || null) ??
    normaliseSpace(doc.querySelector('h1')?.textContent ?? '');
  return trimSiteName(normaliseSpace(raw), siteNames, host);
}

export { jsonLdString };
