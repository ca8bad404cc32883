import { firstMeta, type MetaValues } from './metadata';
import { normaliseSpace } from './text';

/**
 * The article's author: declared names (JSON-LD, meta tags), bylines found on the page before clean-up,
 * and for personal sites the person the site is named after; each cleaned of labels, dates and site names.
 */

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

const AUTHOR_PREFIX =
  /^(?:(?:(?:zeige\s+)?alle\s+(?:beiträge|artikel)\s+von|alles\s+von|show\s+all\s+(?:articles|posts)\s+of|view\s+all\s+posts\s+by|[\p{L}-]+-experte|posts\s+by|mehr\s+von|more\s+(?:from|by)|plus\s+(?:de|par)|about\s+the\s+author|über\s+(?:den|die)\s+autor(?:in)?|à\s+propos\s+de\s+l['’]auteur|interview(?=\s*:)|(?:veröffentlicht|geschrieben|publiziert|erstellt|verfasst|posted|written|published|created|article|artikel|beitrag|text|fotos?|photos?)(?:\s+(?:am|on|in))?\s+(?:von|by|par|de|por|door|di|av|przez)|autor(?:in)?|author|verfasser(?:in)?|auteur|redaktion|von|by|par|por|door|di|av|przez)\b\s*[:：]?\s*)+/iu;
const AUTHOR_SUFFIX = /(?:\s*[→»›|,·•–—-]\s*|\s+)(?:am|on|at|um|le|el|il|designed|edit|\(?(?:mehr|more)\)?|alle\s+(?:artikel|beiträge)|all\s+(?:articles|posts))\s*$|\s*[→»›|,·•–—-]\s*$/iu;
/** Trailing credentials, a relative time, or an organisation after the name ("Jane Doe, PhD", "Jane Doe, CNN"). */
const AUTHOR_TAIL = /(?:,\s*(?:ph\.?\s?d|m\.?d|md|mba|msc|dr|prof)\.?|\s*vor\s+\d+\s+\p{L}+|\s*\d+\s+(?:hours?|minutes?|days?)\s+ago)\s*$/iu;
const ORGANISATION = /(?:\b[\p{L}\d-]+\.(?:com|de|at|ch|org|net|info|eu|fr|uk|it|es|pl|io)\b|\b(?:gmbh|e\.\s?v\.|ag|inc|ltd|llc|verlag|agencies|agentur|redaktion|newsroom|editorial|staff)\b)/iu;
const NOT_A_NAME = /^(?:by|von|par|por|am|on|admin|administrator|wordpressadmin|redaktion|editor|editorial|staff|team|autor|author|anonymous|unknown|guest|gast|veröffentlicht(?:\s+am)?|publiziert(?:\s+am)?|posted(?:\s+on)?|published(?:\s+on)?)$/iu;

const squashName = (text: string): string => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

function cleanAuthor(raw: string | null | undefined, siteNames: readonly string[] = []): string | null {
  if (!raw) return null;
  let text = normaliseSpace(raw);
  if (/^https?:\/\//i.test(text) || /@|\[at\]/i.test(text)) return null;
  // bylines often carry the date ("By Jane Doe March 25, 2015 3:46 PM"); keep the name, drop a byline that is only a date
  text = normaliseSpace(text.replace(BYLINE_DATE, ' ')).replace(/^[\s,|·•-]+|[\s,|·•-]+$/g, '');
  // "AuthorJane Doe", "Veröffentlicht vonJane Doe": a label glued to the name
  text = text.replace(/^(Author|Autor|Veröffentlicht von|Posted by|Written by|Show all articles of|Alle Artikel von)(?=\p{Lu})/iu, '$1 ');
  text = text.replace(/^©\s*/, '').replace(AUTHOR_TAIL, '').replace(/^["'“”„‘’«»]+|["'“”„‘’«»]+$/g, '');
  // "Jane Doe Jane Doe" (a name and its link text)
  const halves = text.split(' ');
  if (halves.length % 2 === 0 && halves.slice(0, halves.length / 2).join(' ') === halves.slice(halves.length / 2).join(' ')) text = halves.slice(0, halves.length / 2).join(' ');
  for (let round = 0; round < 3; round++) {
    const before = text;
    text = text.replace(AUTHOR_PREFIX, '').replace(/^[\s,|·•–—-]+/u, '').replace(AUTHOR_SUFFIX, '').trim();
    if (text === before) break;
  }
  text = text.replace(/\s+(?:on|at|am|um)$/i, '').trim();
  // "Site - Jane Doe", "Jane Doe, CNN": drop a part that names the site or an organisation
  const parts = text.split(/\s+[-–|]\s+|,\s+/);
  if (parts.length === 2) {
    const isSite = (part: string): boolean => ORGANISATION.test(part) || siteNames.some((name) => squashName(name) === squashName(part)) || squashName(part).length <= 3;
    if (isSite(parts[0]) && !isSite(parts[1])) text = parts[1];
    else if (isSite(parts[1]) && !isSite(parts[0])) text = parts[0];
  }
  if (!text || text.length > 80 || !/\p{L}{3}/u.test(text) || NOT_A_NAME.test(text) || ORGANISATION.test(text)) return null;
  if (/\d/.test(text) && /\s/.test(text)) return null;
  if (/\b(?:veröffentlicht|aktualisiert|stand|uhr|updated|published|posted|kommentare?|comments?)\b/iu.test(text)) return null;
  if (text.split(/\s+/).length > 8) return null;
  const squashed = squashName(text);
  if (siteNames.some((name) => squashName(name) === squashed || (squashed.length >= 4 && squashName(name).includes(squashed)))) return null;
  return text;
}

const BYLINE_SELECTORS = [
  '[itemprop~="author"] [itemprop~="name"]',
  'byline',
  '[rel="author"]',
  '[itemprop~="author"]',
  '.vcard .fn, .author .fn, [class~="fn"]',
  '[class*="author-name" i], [class*="authorname" i], [class*="author__name" i], [class*="byline__name" i], [class*="byline-name" i]',
  'a[href*="/author/" i], a[href*="/autor/" i], a[href*="/autoren/" i]',
  '[class*="byline" i], [id*="byline" i]',
  '[class*="author" i]:not([class*="comment" i]), [id*="author" i]',
  '[class*="autor" i]',
];

/** A label that stands alone in its element, the name following it: "Autor" / "Von:" / "By". */
const AUTHOR_LABEL = /^(?:autor(?:in|en)?|author|authors|verfasser(?:in)?|von|by|text|auteur|autore|autor\/in)\s*:?$/iu;

/** The text after a stand-alone author label: the next element's text, else the text that follows the label. */
function labelledNames(doc: Document): string[] {
  const found: string[] = [];
  for (const label of Array.from(doc.querySelectorAll('b, strong, span, dt, th, h4, h5, h6, label, em, div, p')).slice(0, 5000)) {
    if (label.children.length > 0 || !AUTHOR_LABEL.test(normaliseSpace(label.textContent ?? ''))) continue;
    if (label.closest('[class*="comment" i], [id*="comment" i]')) continue;
    const next = label.nextElementSibling;
    const nextText = next ? normaliseSpace(next.textContent ?? '') : '';
    const following = normaliseSpace(label.parentElement?.textContent ?? '').split(normaliseSpace(label.textContent ?? ''))[1] ?? '';
    const text = nextText || normaliseSpace(following);
    if (text && text.length < 80) found.push(text);
    if (found.length >= 3) break;
  }
  return found;
}

/** Byline candidates as Readability would find them, read before clean-up can move the document around. */
export function findBylines(doc: Document): string[] {
  const found: string[] = [];
  for (const selector of BYLINE_SELECTORS) {
    for (const element of Array.from(doc.querySelectorAll(selector)).slice(0, 10)) {
      if (element.closest('[class*="comment" i], [id*="comment" i]')) continue;
      const text = normaliseSpace(element.textContent ?? '');
      if (text && text.length < 100) found.push(text);
      if (found.length >= 12) return [...found, ...labelledNames(doc)];
    }
  }
  return [...found, ...labelledNames(doc)];
}

export function chooseAuthor(values: MetaValues, jsonLdName: string | null, byline: string | null | undefined, foundBylines: string[], siteNames: string[], fallbacks: string[]): string {
  const articleAuthor = values.get('article:author');
  const candidates = [
    jsonLdName,
    firstMeta(values, ['dc:creator', 'dc.creator', 'dcterm:creator', 'dcterms.creator', 'author', 'parsely-author', 'sailthru.author']),
    articleAuthor && !/^https?:\/\//i.test(articleAuthor) ? articleAuthor : null,
    byline,
    ...foundBylines,
  ];
  for (const candidate of candidates) {
    const author = cleanAuthor(candidate, siteNames);
    if (author) return author;
  }
  // a personal site: its name ("Jane Doe's blog"), or the person its JSON-LD or copyright line names, is the author
  const personal = siteNames.map((name) => name.replace(/['’]s\s+(?:blog|weblog|website|homepage|site)$|^(?:blog|weblog)\s+(?:von|of|by)\s+/iu, ''));
  for (const candidate of [...personal, ...fallbacks]) {
    const author = cleanAuthor(candidate);
    if (author && PERSON_NAME.test(author)) return author;
  }
  return '';
}

/** Two to four capitalised words of letters: what a person's name looks like in most scripts that have case. */
const PERSON_NAME = /^\p{Lu}[\p{L}'’-]+(?:\s+(?:(?:von|van|de|der|den|zu|di|da|le|la)\s+)?\p{Lu}[\p{L}'’.-]*){1,3}$/u;

/** Last-resort author sources: a "von/by Name" line, a JSON-LD Person, the name in a copyright line. */
export function authorFallbacks(doc: Document, jsonLd: readonly Record<string, unknown>[]): string[] {
  const found: string[] = [];
  for (const element of Array.from(doc.querySelectorAll('span, p, div, a, em, strong, small')).slice(0, 3000)) {
    if (element.children.length > 2) continue;
    const text = normaliseSpace(element.textContent ?? '');
    if (text.length > 60) continue;
    const match = text.match(/^(?:von|by|par|por|door|przez)\s+(\p{Lu}[\p{L}'’-]+(?:\s+\p{Lu}[\p{L}'’-]+){1,3})$/u);
    if (match) {
      found.push(match[1]);
      break;
    }
  }
  for (const node of jsonLd) {
    const types = node['@type'];
    if ((types === 'Person' || (Array.isArray(types) && types.includes('Person'))) && typeof node.name === 'string') found.push(node.name);
  }
  const copyright = normaliseSpace(doc.body?.textContent ?? '').match(/(?:©|\(c\)|copyright)\s*(?:\(c\)\s*)?(?:(?:19|20)\d{2}\s*[-–]?\s*(?:(?:19|20)\d{2})?\s*)?(\p{Lu}[\p{L}'’-]+(?:\s+\p{Lu}[\p{L}'’-]+){1,2})/iu);
  if (copyright) found.push(copyright[1]);
  return found;
}
