import { ANY_CASE, attributeContains, attributeHasWord, attributeIs, closestWhere, containsBranch, elementsOf, EXACT, matchingInBranchOrder, namesComment, tagIn } from './select';
import { normaliseSpace, paragraphsOf } from './text';

/**
 * Reads what a page says about itself: <meta> tags, JSON-LD, canonical links, <time>,
 * image and video declarations. Pure functions over a parsed Document.
 */

export type MetaValues = Map<string, string>;

/** First value of every <meta> by lower-cased `property`, `name` or `itemprop` (a property may list several names). */
export function readMetaValues(doc: Document): MetaValues {
  const values: MetaValues = new Map();
  for (const meta of Array.from(doc.querySelectorAll('meta'))) {
    const content = meta.getAttribute('content');
    if (content === null || content.trim() === '') continue;
    const keys = [meta.getAttribute('property'), meta.getAttribute('name'), meta.getAttribute('itemprop')]
      .flatMap((attr) => (attr ? attr.toLowerCase().split(/\s+/) : []))
      .filter((key) => key !== '');
    for (const key of keys) if (!values.has(key)) values.set(key, content.trim());
  }
  return values;
}

export function firstMeta(values: MetaValues, keys: readonly string[]): string | null {
  for (const key of keys) {
    const value = values.get(key);
    if (value) return value;
  }
  return null;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const ARTICLE_TYPES = /^(?:Article|AdvertiserContentArticle|NewsArticle|AnalysisNewsArticle|AskPublicNewsArticle|BackgroundNewsArticle|OpinionNewsArticle|ReportageNewsArticle|ReviewNewsArticle|Report|SatiricalArticle|ScholarlyArticle|MedicalScholarlyArticle|SocialMediaPosting|BlogPosting|LiveBlogPosting|DiscussionForumPosting|TechArticle|APIReference|WebPage|Blog|VideoObject|Recipe|Review)$/;

function typesOf(node: JsonObject): string[] {
  const type = node['@type'];
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  return [];
}

/** Every JSON-LD object on the page (arrays and @graph flattened), article-like types first. */
export function readJsonLd(doc: Document, everyType = false): JsonObject[] {
  const found: JsonObject[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (isObject(value)) {
      found.push(value);
      if (Array.isArray(value['@graph'])) value['@graph'].forEach(visit);
    }
  };
  // script[type="application/ld+json" i]
  for (const script of Array.from(doc.querySelectorAll('script')).filter((element) => attributeIs(element, 'type', 'application/ld+json', ANY_CASE))) {
    const text = (script.textContent ?? '').replace(/^\s*<!\[CDATA\[|\]\]>\s*$/g, '').trim();
    if (!text) continue;
    try {
      visit(JSON.parse(text));
    } catch {
      // malformed JSON-LD is common; ignore it
    }
  }
  const rank = (node: JsonObject): number => {
    const types = typesOf(node);
    if (types.some((t) => /Article|Posting|Report/.test(t))) return 0;
    if (types.some((t) => ARTICLE_TYPES.test(t))) return 1;
    return 2;
  };
  if (everyType) return found;
  return found.filter((node) => rank(node) < 2).sort((a, b) => rank(a) - rank(b));
}

function stringField(node: JsonObject, key: string): string | null {
  const value = node[key];
  return typeof value === 'string' && value.trim() ? normaliseSpace(value) : null;
}

export function jsonLdString(nodes: JsonObject[], key: string): string | null {
  for (const node of nodes) {
    const value = stringField(node, key);
    if (value) return value;
  }
  return null;
}

/** The publisher's name of the first article-like JSON-LD node that names one. */
export function jsonLdPublisher(nodes: JsonObject[]): string | null {
  for (const node of nodes) {
    const publisher = node.publisher;
    if (isObject(publisher)) {
      const name = stringField(publisher, 'name');
      if (name) return name;
    }
  }
  return null;
}

/** The article's JSON-LD author names, joined with ", ", and whether they are all organisations rather than persons. */
export interface JsonLdAuthor {
  name: string;
  organisation: boolean;
}

/**
 * The first article-like node's author(s). A reference (`{"@id": "…#author"}`, as Yoast's graph writes it) is
 * resolved to the node of that @id among `all` (every JSON-LD object on the page).
 */
export function jsonLdAuthor(nodes: JsonObject[], all: JsonObject[] = nodes): JsonLdAuthor | null {
  const byId = new Map<string, JsonObject>();
  for (const node of all) if (typeof node['@id'] === 'string' && !byId.has(node['@id'])) byId.set(node['@id'], node);
  const resolve = (author: unknown): unknown => (isObject(author) && !author.name && typeof author['@id'] === 'string' ? byId.get(author['@id']) ?? author : author);
  const entryOf = (raw: unknown): JsonLdAuthor | null => {
    const author = resolve(raw);
    if (typeof author === 'string') return author.trim() && !/^https?:\/\//.test(author) ? { name: normaliseSpace(author), organisation: false } : null;
    if (!isObject(author)) return null;
    const name = stringField(author, 'name');
    return name ? { name, organisation: typesOf(author).some((type) => /Organization|Corporation/.test(type)) } : null;
  };
  for (const node of nodes) {
    const author = node.author ?? node.creator;
    const entries = (Array.isArray(author) ? author : [author]).map(entryOf).filter((entry): entry is JsonLdAuthor => !!entry);
    if (entries.length) return { name: entries.map((entry) => entry.name).join(', '), organisation: entries.every((entry) => entry.organisation) };
  }
  return null;
}

export function jsonLdImage(nodes: JsonObject[]): string | null {
  const urlOf = (image: unknown): string | null => {
    if (typeof image === 'string') return image.trim() || null;
    if (Array.isArray(image)) return image.map(urlOf).find((u) => !!u) ?? null;
    if (isObject(image)) return stringField(image, 'url') ?? stringField(image, 'contentUrl');
    return null;
  };
  for (const node of nodes) {
    const url = urlOf(node.image ?? node.thumbnailUrl);
    if (url) return url;
  }
  return null;
}

export function jsonLdVideos(nodes: JsonObject[], all: JsonObject[]): string[] {
  const urls: string[] = [];
  const add = (video: unknown): void => {
    if (Array.isArray(video)) video.forEach(add);
    else if (isObject(video)) {
      const url = stringField(video, 'contentUrl') ?? stringField(video, 'embedUrl');
      if (url) urls.push(url);
    }
  };
  for (const node of nodes) add(node.video);
  for (const node of all) if (typesOf(node).includes('VideoObject')) add(node);
  return urls;
}

/** Makes a URL absolute against the document's base; null when it is not an http(s) URL. */
export function absoluteUrl(raw: string | null | undefined, base: string): string | null {
  if (!raw) return null;
  const trimmed = raw.trim();
  if (!trimmed || trimmed.startsWith('data:') || trimmed.startsWith('javascript:')) return null;
  try {
    const url = new URL(trimmed, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** Converts a date as pages write it into ISO 8601 (at the page's own offset when it gives one), or null when it is not a plausible date. */
export function toIsoDate(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const text = raw.trim();
  if (!text) return null;
  let ms = Date.parse(text);
  if (Number.isNaN(ms)) {
    // "2015-03-10 12:00:00 +0100", "2015/03/10", "20150310"
    const cleaned = text
      .replace(/^(\d{4})\/(\d{1,2})\/(\d{1,2})/, (_m, y: string, mo: string, d: string) => `${y}-${mo.padStart(2, '0')}-${d.padStart(2, '0')}`)
      .replace(/^(\d{4})(\d{2})(\d{2})$/, '$1-$2-$3')
      .replace(/^(\d{4}-\d{2}-\d{2}) (\d{1,2}:\d{2})/, '$1T$2')
      .replace(/ ?([+-]\d{2}):?(\d{2})$/, '$1:$2');
    ms = Date.parse(cleaned);
  }
  // a malformed time ("2022-01-10T22:06:08:684Z") still gives the day
  if (Number.isNaN(ms)) ms = Date.parse(text.match(/^((?:19|20)\d{2}-\d{2}-\d{2})(?=[T ])/)?.[1] ?? '');
  if (Number.isNaN(ms)) return null;
  const year = new Date(ms).getUTCFullYear();
  if (year < 1990 || year > new Date().getUTCFullYear() + 1) return null;
  return isoInOffset(ms, ZONE_OFFSET.exec(text));
}

/** A UTC offset at the end of a date-time: "+02:00", "-0300" (after a time of day, so "2015-03-10" is none). */
const ZONE_OFFSET = /\d:\d{2}(?::\d{2}(?:\.\d+)?)?\s*([+-])(\d{2}):?(\d{2})$/;

/**
 * The instant in ISO 8601 at the offset the page wrote it in, so the date part is the article's own day: a story
 * published at 22:46 in UTC−3 is dated that day, not the next one in UTC (27 of extraction-eval's date misses).
 * Without an offset (or at +00:00), UTC as `toISOString` writes it.
 */
function isoInOffset(ms: number, offset: RegExpExecArray | null): string {
  if (!offset) return new Date(ms).toISOString();
  const minutes = (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3]));
  if (minutes === 0 || Math.abs(minutes) > 14 * 60) return new Date(ms).toISOString();
  return `${new Date(ms + minutes * 60_000).toISOString().slice(0, -1)}${offset[1]}${offset[2]}:${offset[3]}`;
}

/** A date written in the URL path: /2015/03/10/, /2015-03-10-, /20150310/. */
export function dateFromUrl(url: string): string | null {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return null;
  }
  const match =
    path.match(/(?:^|\/)((?:19|20)\d{2})[/-](0?[1-9]|1[0-2])[/-](0?[1-9]|[12]\d|3[01])(?:[/-]|$|\.)/) ??
    path.match(/(?:^|\/)((?:19|20)\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?:\/|$)/);
  if (match) return toIsoDate(`${match[1]}-${match[2].padStart(2, '0')}-${match[3].padStart(2, '0')}`);
  // a path segment that is only a day-first date: /29-10-2021
  const dayFirst = path.match(/(?:^|\/)([12]\d|3[01]|0?[1-9])-(0?[1-9]|1[0-2])-((?:19|20)\d{2})(?:\/|$)/);
  return dayFirst ? toIsoDate(`${dayFirst[3]}-${dayFirst[2].padStart(2, '0')}-${dayFirst[1].padStart(2, '0')}`) : null;
}

/**
 * `time[pubdate][datetime], [itemprop="datePublished"][datetime], [itemprop="datePublished"][content], time.published[datetime],
 * time.entry-date[datetime], [property~="schema:datePublished" i][content], [property~="schema:dateCreated" i][content]`
 * (a list with `i` flags: every value in any case; the class selectors are confirmed by `matches`, their case rule depends
 * on the document's mode).
 */
function declaresPublication(element: Element): boolean {
  const isTime = element.localName === 'time';
  if (element.hasAttribute('datetime') && ((isTime && element.hasAttribute('pubdate')) || attributeIs(element, 'itemprop', 'datepublished', ANY_CASE))) return true;
  if (
    element.hasAttribute('content') &&
    (attributeIs(element, 'itemprop', 'datepublished', ANY_CASE) ||
      attributeHasWord(element, 'property', 'schema:datepublished', ANY_CASE) ||
      attributeHasWord(element, 'property', 'schema:datecreated', ANY_CASE))
  )
    return true;
  return isTime && element.hasAttribute('datetime') && attributeContains(element, 'class', ['published', 'entry-date']) && element.matches('time.published, time.entry-date');
}

/** The datetime of the page's <time> element that most likely marks publication. */
export function timeElementDate(doc: Document): string | null {
  const elements = elementsOf(doc);
  const preferred = elements.find(declaresPublication);
  const candidates = preferred ? [preferred] : elements.filter((element) => element.localName === 'time' && element.hasAttribute('datetime')).slice(0, 3);
  for (const element of candidates) {
    const iso = toIsoDate(element.getAttribute('datetime') ?? element.getAttribute('content'));
    if (iso) return iso;
  }
  return null;
}

const PLAYER_HOSTS =
  /(?:^|\.)(?:youtube\.com|youtube-nocookie\.com|youtu\.be|vimeo\.com|dailymotion\.com|dai\.ly|twitch\.tv|facebook\.com|brightcove\.net|brightcove\.com|jwplayer\.com|jwplatform\.com|jwpcdn\.com|wistia\.com|wistia\.net|ted\.com|streamable\.com|vid\.me|kaltura\.com|ooyala\.com|vine\.co|bilibili\.com|youku\.com|rutube\.ru|vk\.com|ok\.ru|loom\.com|rumble\.com|video\.google\.com|archive\.org|cnn\.com|bbc\.co\.uk|washingtonpost\.com|nytimes\.com|theguardian\.com)$/i;

function isPlayerUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (!PLAYER_HOSTS.test(parsed.hostname)) return false;
  // generic news hosts only count when the path is clearly a video player
  if (/(?:cnn|bbc|washingtonpost|nytimes|theguardian|facebook)\./i.test(parsed.hostname)) return /video|player|embed/i.test(parsed.pathname);
  if (/archive\.org$/i.test(parsed.hostname)) return /^\/embed\//.test(parsed.pathname);
  return true;
}

const PLAYER_TAGS = new Set(['video', 'iframe', 'embed', 'object']);

/** og:video, <video>/<source>, JSON-LD VideoObject and embedded players (iframe/embed/object), absolute and deduplicated. */
export function findVideos(doc: Document, values: MetaValues, jsonLd: JsonObject[], allJsonLd: JsonObject[], base: string): string[] {
  const found: string[] = [];
  const add = (raw: string | null | undefined, requirePlayer = false): void => {
    const url = absoluteUrl(raw, base);
    if (!url || (requirePlayer && !isPlayerUrl(url))) return;
    if (!found.includes(url)) found.push(url);
  };
  for (const key of ['og:video:secure_url', 'og:video:url', 'og:video']) add(values.get(key));
  for (const url of jsonLdVideos(jsonLd, allJsonLd)) add(url);
  // video, video source, iframe, embed, object, param[name="movie" i]
  const players = elementsOf(doc).filter(
    (element) =>
      tagIn(element, PLAYER_TAGS) ||
      (element.localName === 'source' && !!element.parentElement && !!closestWhere(element.parentElement, (a) => a.localName === 'video')) ||
      (element.localName === 'param' && attributeIs(element, 'name', 'movie', ANY_CASE)),
  );
  for (const element of players) {
    const tag = element.tagName.toLowerCase();
    if (tag === 'video' || tag === 'source') {
      add(element.getAttribute('src') ?? element.getAttribute('data-src'));
    } else if (tag === 'object') {
      add(element.getAttribute('data'), true);
    } else if (tag === 'param') {
      add(element.getAttribute('value'), true);
    } else {
      add(element.getAttribute('src') || element.getAttribute('data-src') || element.getAttribute('data-lazy-src'), true);
    }
  }
  return found;
}

/** Month names (and common abbreviations) of the languages most pages are written in → month number. */
const MONTHS: Record<string, number> = {};
const MONTH_LISTS = [
  'january february march april may june july august september october november december',
  'januar februar märz april mai juni juli august september oktober november dezember',
  'jänner feber maerz',
  'janvier février mars avril mai juin juillet août septembre octobre novembre décembre',
  'enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre',
  'gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre',
  'januari februari maart april mei juni juli augustus september oktober november december',
  'janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro',
  'stycznia lutego marca kwietnia maja czerwca lipca sierpnia września października listopada grudnia',
  'styczeń luty marzec kwiecień maj czerwiec lipiec sierpień wrzesień październik listopad grudzień',
];
MONTH_LISTS.forEach((list) => {
  const names = list.split(' ');
  // each list starts at January (the third holds Austrian forms of January to March)
  names.forEach((name, i) => {
    if (!(name in MONTHS)) MONTHS[name] = i + 1;
  });
});
for (const [abbr, month] of Object.entries({
  jan: 1, feb: 2, mar: 3, mär: 3, apr: 4, jun: 6, jul: 7, aug: 8, sep: 9, sept: 9, okt: 10, oct: 10, nov: 11, dez: 12, dec: 12,
})) if (!(abbr in MONTHS)) MONTHS[abbr] = month;

const MONTH_NAME = '(\\p{L}{3,12})\\.?';
const TEXT_DATE = new RegExp(
  [
    `(?<d1>\\d{1,2})\\.?\\s*(?:de\\s+)?${MONTH_NAME.replace('(', '(?<m1>')},?\\s+(?:de\\s+)?(?<y1>(?:19|20)\\d{2})`,
    `${MONTH_NAME.replace('(', '(?<m2>')}\\s+(?<d2>\\d{1,2})(?:st|nd|rd|th)?,?\\s+(?<y2>(?:19|20)\\d{2})`,
    '(?<d3>\\d{1,2})[./](?<m3>\\d{1,2})[./](?<y3>(?:19|20)\\d{2})',
    '(?<y4>(?:19|20)\\d{2})-(?<m4>\\d{2})-(?<d4>\\d{2})',
  ].join('|'),
  'gu',
);

function validDate(year: number, month: number, day: number): string | null {
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= 31)) return null;
  const ms = Date.UTC(year, month - 1, day);
  const date = new Date(ms);
  if (date.getUTCDate() !== day) return null;
  if (year < 1990 || ms > Date.now() + 86_400_000) return null;
  return date.toISOString();
}

/** "28.01.22": a day-first date with a two-digit year, read only where an element says it holds a date. */
const SHORT_YEAR_DATE = /(?<![\d.])(\d{1,2})\.(\d{1,2})\.(\d{2})(?![\d.])/u;

function shortYearDate(text: string): string | null {
  const match = text.match(SHORT_YEAR_DATE);
  if (!match) return null;
  const year = Number(match[3]);
  const century = 2000 + year > new Date().getUTCFullYear() + 1 ? 1900 : 2000;
  return validDate(century + year, Number(match[2]), Number(match[1]));
}

/** Dates as people write them: "18. Mai 2014", "May 18, 2014", "18.05.2014", "2014-05-18"; each match, in order. */
export function datesInText(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(TEXT_DATE)) {
    const g = match.groups ?? {};
    let iso: string | null = null;
    if (g.y1) {
      const month = MONTHS[g.m1.toLowerCase()];
      if (month) iso = validDate(Number(g.y1), month, Number(g.d1));
    } else if (g.y2) {
      const month = MONTHS[g.m2.toLowerCase()];
      if (month) iso = validDate(Number(g.y2), month, Number(g.d2));
    } else if (g.y3) {
      const first = Number(g.d3);
      const second = Number(g.m3);
      iso = second <= 12 ? validDate(Number(g.y3), second, first) : validDate(Number(g.y3), first, second);
    } else if (g.y4) {
      iso = validDate(Number(g.y4), Number(g.m4), Number(g.d4));
    }
    if (iso) found.push(iso);
    if (found.length >= 5) break;
  }
  return found;
}

/**
 * `[itemprop*="date" i], [class*="date" i], [id*="date" i], [class*="datum" i], [class*="time" i], [class*="posted" i], [class*="created" i],
 * [class*="publish" i], [class*="byline" i], [class*="entry-meta" i], [class*="post-meta" i], [class*="meta" i], [class*="info" i]`, in this order
 * (`matchingInBranchOrder`).
 */
const DATE_HOLDERS = [
  ['itemprop', 'date'], ['class', 'date'], ['id', 'date'], ['class', 'datum'], ['class', 'time'], ['class', 'posted'], ['class', 'created'],
  ['class', 'publish'], ['class', 'byline'], ['class', 'entry-meta'], ['class', 'post-meta'], ['class', 'meta'], ['class', 'info'],
].map(([name, part]) => containsBranch(name!, part!));

/**
 * Elements whose name says they hold a date, where "28.01.22" is read as one:
 * `[itemprop*="date" i], [class*="date" i], [class*="datum" i], [class*="created" i], [class*="posted" i], [class*="publish" i]`.
 */
const isShortDateHolder = (element: Element): boolean =>
  attributeContains(element, 'itemprop', ['date']) || attributeContains(element, 'class', ['date', 'datum', 'created', 'posted', 'publish']);

const COMMENT_TAGS = new Set(['footer', 'nav']);
const NEAR_HEADLINE_TAGS = new Set(['h1', 'article', 'main']);

/** A publication date written on the page: first in elements named for dates or post metadata, then in the text. */
export function visibleDate(doc: Document): string | null {
  const root = doc.body;
  if (!root) return null;
  // [class*="comment" i], [id*="comment" i], footer, nav
  const isComment = (element: Element): boolean => !!closestWhere(element, (a) => namesComment(a) || tagIn(a, COMMENT_TAGS));
  const elements = elementsOf(root);
  const holders = matchingInBranchOrder(elements, DATE_HOLDERS)
    .slice(0, 300)
    .filter((element) => !isComment(element))
    .map((element) => ({ element, text: normaliseSpace(element.textContent ?? '') }))
    .filter(({ text }) => text && text.length <= 200);
  for (const { text } of holders) {
    const [first] = datesInText(text);
    if (first) return first;
  }
  // a full date anywhere in them is stronger evidence than a two-digit year (an event's "19.1.23" in a teaser)
  for (const { element, text } of holders) {
    const short = isShortDateHolder(element) ? shortYearDate(text) : null;
    if (short) return short;
  }
  // h1, article, main, [role="main"]
  for (const heading of elements.filter((element) => tagIn(element, NEAR_HEADLINE_TAGS) || attributeIs(element, 'role', 'main', EXACT)).slice(0, 3)) {
    // near the headline: the text that follows it, as far as the first few paragraphs
    const container = heading.tagName === 'H1' ? heading.parentElement : heading;
    if (!container || isComment(container)) continue;
    const [first] = datesInText(normaliseSpace(container.textContent ?? '').slice(0, 3000));
    if (first) return first;
  }
  const [first] = datesInText(paragraphsOf(root).join(' ').slice(0, 20000));
  return first ?? null;
}
