import { firstMeta, jsonLdAuthor, type JsonLdAuthor, type MetaValues } from './metadata';
import { ANY_CASE, attributeContains, attributeHasWord, attributeIs, closestWhere, elementsOf, EXACT, namesComment, tagIn } from './select';
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
    '\\b(?:at\\s+)?\\d{1,2}:\\d{2}(?::\\d{2})?\\s*(?:[ap]\\.?m\\.?|uhr\\b|h\\b)?(?:\\s*(?:UTC|GMT|[ECMP][SD]T))?',
  ].join('|'),
  'gi',
);

const AUTHOR_PREFIX =
  /^(?:(?:(?:zeige\s+)?alle\s+(?:beiträge|artikel)\s+von|alles\s+von|show\s+all\s+(?:articles|posts)\s+of|view\s+all\s+posts\s+by|[\p{L}-]+-experte|posts\s+by|mehr\s+von|more\s+(?:from|by)|plus\s+(?:de|par)|publiée?\s+par|about\s+the\s+author|text\s*(?:&|und|and)\s*(?:fotos?|photos?|interview)|blog\s*beitrag\s+von|autoren|über\s+(?:den|die)\s+autor(?:in)?|à\s+propos\s+de\s+l['’]auteur|interview(?=\s*:)|(?:veröffentlicht|geschrieben|publiziert|erstellt|verfasst|posted|written|published|created|article|artikel|beitrag|text|fotos?|photos?)(?:\s+(?:am|on|in))?\s+(?:von|by|par|de|por|door|di|av|przez)|autor(?:in)?|author|verfasser(?:in)?|auteur|redaktion(?=\s*[:：])|von|by|par|por|door|di|av|przez)\b\s*[:：]?\s*)+/iu;
const AUTHOR_SUFFIX = /(?:\s*[→»›|,·•–—-]\s*|\s+)(?:am|on|at|um|le|el|il|designed|edit|\(?(?:mehr|more)\)?|alle\s+(?:artikel|beiträge)|all\s+(?:articles|posts))\s*$|\s*[→»›|,·•–—-]\s*$/iu;
/** Trailing credentials, a relative time, or an organisation after the name ("Jane Doe, PhD", "Jane Doe, CNN"). */
const AUTHOR_TAIL =
  /(?:,\s*(?:ph\.?\s?d|m\.?d|md|mba|msc|dr|prof)\.?|\s*vor\s+\d+\s+\p{L}+|\s*\d+\s+(?:hours?|minutes?|days?)\s+ago|\s*[|·•–-]?\s*(?:publicado\s+)?hace\s+\d+\s+\p{L}+|\s*[|·•–-]?\s*(?:publié\s+)?il\s+y\s+a\s+\d+\s+\p{L}+)\s*$/iu;
/** A person's name and, after a slash, the agency's code ("Peter Maahn/SP-X"): the person wrote it. */
const AGENCY_AFTER_NAME = /^(\p{Lu}\p{Ll}+(?:\s+\p{Lu}\p{Ll}+)+)\s*\/\s*[\p{Lu}\d-]{2,}$/u;
/** A domain name or a company's legal form: a publisher, an agency or a web shop, never the article's author. */
const COMPANY = /\b[\p{L}\d-]+\.(?:com|de|at|ch|org|net|info|eu|fr|uk|it|es|pl|io)\b|\b(?:gmbh|e\.\s?v\.|ag|inc|ltd|llc|verlag)(?![\p{L}\d])/iu;
/** An editorial team or an institution ("Redaktion", "Staff Writer", "Bundesverband …"): an author only when no person is named. */
const INSTITUTION =
  /\b(?:agencies|agentur|redaktion|newsroom|editorial|staff)\b|\p{L}*(?:verband|stiftung|anstalt|ministerium|institut|akademie|gesellschaft|genossenschaft|vereinigung|verein)\b|\b(?:association|foundation|institute|ministry|department|university|universität)\b/iu;
const ORGANISATION = new RegExp(`${COMPANY.source}|${INSTITUTION.source}`, 'iu');
/** A picture credit is not the article's author ("Photo by Jane Doe on Unsplash", "Foto: Jane Doe"). */
const PICTURE_CREDIT = /^(?:photos?|fotos?|bild(?:er)?|images?|illustrations?|credits?|grafik)\b(?!\s*(?:und|and|&|\/))/iu;
const NOT_A_NAME =
  /^(?:by|von|par|por|am|on|admin|administrator|wordpressadmin|editor|editorial|staff|team|autor|author|no\s+author|anonymous|unknown|guest|gast|follow|folgen|veröffentlicht(?:\s+am)?|publiziert(?:\s+am)?|posted(?:\s+on)?|published(?:\s+on)?|min|sek|std|(?:mon|tues|wednes|thurs|fri|satur|sun)day|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)\.?$/iu;
/** Words of a page's status line or profile link, not of a name ("Zuletzt geändert am:", "Afficher mon profil complet"). */
const STATUS_WORDS = /\b(?:veröffentlicht|aktualisiert|geändert|zuletzt|stand|uhr|updated|modified|published|posted|kommentare?|comments?|profile?|profil)\b/iu;
/** An author label inside a line of post data ("Datum: 19.11.2021 Autor: Jane Doe"): the name follows it. */
const INNER_AUTHOR_LABEL = /(?:^|\s|\p{Ll}|\d)(?:autor(?:in)?|author|verfasser(?:in)?|auteur)\s*:\s*/iu;
/** A label glued after the name in post data ("Jane DoeQuelle: Site"): the name ends before it. */
const GLUED_LABEL = /(?<=\p{Ll})(?:Quelle|Source|Fuente|Datum|Date|Foto|Bild|Photo)\s*:.*$/u;

/** Soft hyphens that a publisher's hyphenation put inside a name ("Mat\u00adthi\u00adas"). */
const SOFT_HYPHEN = /\u00ad/g;

const squashName = (text: string): string => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/**
 * How strict a pass over the candidates is. `initials`: a name of two letters or initials ("LD", "mh", "R. R.") is allowed;
 * `organisations`: an editorial team's or an institution's name (INSTITUTION) is allowed; `handles`: a one-word user name
 * that is also the site's name (a blogger who named the blog after their handle: "zahlenzauberin" on "Zahlenzauberin").
 * Each only stands when no candidate passes a stricter pass.
 */
interface Leniency {
  initials: boolean;
  organisations: boolean;
  handles: boolean;
}

const PASSES: Leniency[] = [
  { initials: false, organisations: false, handles: false },
  { initials: true, organisations: false, handles: false },
  { initials: true, organisations: true, handles: false },
];
/** The last pass, after the last resorts: the page names only its own name as the author, as a one-word handle (not as an organisation). */
const HANDLES: Leniency = { initials: true, organisations: false, handles: true };

function cleanAuthor(raw: string | null | undefined, siteNames: readonly string[] = [], leniency: Leniency = PASSES[0]): string | null {
  if (!raw) return null;
  // "Jane Doe @janedoe": the name and the author's social-media handle
  let text = normaliseSpace(raw.replace(SOFT_HYPHEN, '')).replace(/\s+@[\p{L}\d_.]+(?:\s*[-–|])?$/u, '');
  if (/^https?:\/\//i.test(text) || /@|\[at\]/i.test(text) || PICTURE_CREDIT.test(text)) return null;
  // bylines often carry the date ("By Jane Doe March 25, 2015 3:46 PM"); keep the name, drop a byline that is only a date
  const inner = text.match(INNER_AUTHOR_LABEL);
  if (inner && (inner.index ?? 0) > 0) text = text.slice((inner.index ?? 0) + inner[0].length);
  text = text.replace(GLUED_LABEL, '');
  text = normaliseSpace(text.replace(BYLINE_DATE, ' ')).replace(/^[\s,|·•-]+|[\s,|·•-]+$/g, '');
  // "AuthorJane Doe", "Veröffentlicht vonJane Doe": a label glued to the name
  text = text.replace(/^(Author|Autor|Veröffentlicht von|Posted by|Written by|Show all articles of|Alle Artikel von)(?=\p{Lu})/iu, '$1 ');
  text = text.replace(/^©\s*/, '').replace(AUTHOR_TAIL, '').replace(AGENCY_AFTER_NAME, '$1').replace(/^["'“”„‘’«»]+|["'“”„‘’«»]+$/g, '');
  // "Jane Doe Jane Doe" (a name and its link text)
  const halves = text.split(' ');
  if (halves.length % 2 === 0 && /\p{L}{2}/u.test(text) && halves.slice(0, halves.length / 2).join(' ') === halves.slice(halves.length / 2).join(' ')) text = halves.slice(0, halves.length / 2).join(' ');
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
  if (!text || text.length > 80 || !(leniency.initials ? /\p{L}{2}|\p{Lu}\.\s*\p{Lu}\./u : /\p{L}{3}/u).test(text) || NOT_A_NAME.test(text) || COMPANY.test(text) || (!leniency.organisations && INSTITUTION.test(text))) return null;
  if (/\d/.test(text) && /\s/.test(text)) return null;
  if (STATUS_WORDS.test(text) || text.includes('?')) return null;
  if (text.split(/\s+/).length > 8) return null;
  const squashed = squashName(text);
  if (leniency.handles) return /\s/.test(text) ? null : text;
  if (siteNames.some((name) => squashName(name) === squashed || (squashed.length >= 4 && squashName(name).includes(squashed)))) return null;
  return text;
}

/** Where bylines are, in the order they are trusted: each CSS selector (in its comment) as a test (`select.ts`). */
const BYLINE_TESTS: ((element: Element) => boolean)[] = [
  // [itemprop~="author"] [itemprop~="name"]
  (e) => attributeHasWord(e, 'itemprop', 'name', EXACT) && !!e.parentElement && !!closestWhere(e.parentElement, (a) => attributeHasWord(a, 'itemprop', 'author', EXACT)),
  // byline
  (e) => e.localName === 'byline',
  // [rel="author"] (`rel` is one of HTML's case-insensitive attributes)
  (e) => attributeIs(e, 'rel', 'author', ANY_CASE),
  // [itemprop~="author"]
  (e) => attributeHasWord(e, 'itemprop', 'author', EXACT),
  // .vcard .fn, .author .fn, [class~="fn"] (class selectors ignore case in quirks mode: the engine confirms the few candidates)
  (e) => attributeHasWord(e, 'class', 'fn', ANY_CASE) && e.matches('.vcard .fn, .author .fn, [class~="fn"]'),
  // [class*="author-name" i], [class*="authorname" i], [class*="author__name" i], [class*="byline__name" i], [class*="byline-name" i]
  (e) => attributeContains(e, 'class', ['author-name', 'authorname', 'author__name', 'byline__name', 'byline-name']),
  // a[href*="/author/" i], a[href*="/autor/" i], a[href*="/autoren/" i]
  (e) => e.localName === 'a' && attributeContains(e, 'href', ['/author/', '/autor/', '/autoren/']),
  // [class*="byline" i], [id*="byline" i]
  (e) => attributeContains(e, 'class', ['byline']) || attributeContains(e, 'id', ['byline']),
  // [class*="author" i]:not([class*="comment" i]), [id*="author" i]
  (e) => (attributeContains(e, 'class', ['author']) && !attributeContains(e, 'class', ['comment'])) || attributeContains(e, 'id', ['author']),
  // [class*="autor" i], [class*="auteur" i]
  (e) => attributeContains(e, 'class', ['autor', 'auteur']),
  // [class*="contributor" i], [class*="username" i]
  (e) => attributeContains(e, 'class', ['contributor', 'username']),
];

/** A label that stands alone in its element, the name following it: "Autor" / "Von:" / "By". */
const AUTHOR_LABEL = /^(?:[|·•–—-]\s*)?(?:autor(?:in|en)?|author|authors|verfasser(?:in)?|von|by|text|auteur|autore|autor\/in)\s*:?$/iu;

const LABEL_TAGS = new Set(['b', 'strong', 'span', 'dt', 'th', 'h4', 'h5', 'h6', 'label', 'em', 'div', 'p']);

/** The text after a stand-alone author label: the next element's text, else the text that follows the label. */
function labelledNames(elements: readonly Element[]): string[] {
  const found: string[] = [];
  for (const label of elements.filter((element) => tagIn(element, LABEL_TAGS)).slice(0, 5000)) {
    if (label.children.length > 0 || !AUTHOR_LABEL.test(normaliseSpace(label.textContent ?? ''))) continue;
    if (closestWhere(label, namesComment)) continue;
    const next = label.nextElementSibling;
    const nextText = next ? normaliseSpace(next.textContent ?? '') : '';
    const following = normaliseSpace(label.parentElement?.textContent ?? '').split(normaliseSpace(label.textContent ?? ''))[1] ?? '';
    const text = nextText || normaliseSpace(following);
    if (text && text.length < 80) found.push(text);
    if (found.length >= 3) break;
  }
  return found;
}

const QUOTATION_TAGS = new Set(['blockquote', 'q']);
/** A quotation (`blockquote, q, [class*="quote" i]`): its author is the person quoted, not the article's. */
const isQuotation = (element: Element): boolean => tagIn(element, QUOTATION_TAGS) || attributeContains(element, 'class', ['quote']);

/**
 * Byline candidates as Readability would find them, read before clean-up can move the document around; and the
 * names in author-named elements inside quotations ("quote-author-name"), which Readability's own byline may still name.
 */
function findBylines(elements: readonly Element[]): { bylines: string[]; quoted: string[] } {
  const found: string[] = [];
  const quoted: string[] = [];
  for (const test of BYLINE_TESTS) {
    for (const element of elements.filter(test).slice(0, 10)) {
      // a comment's or a quotation's author is not the article's
      if (closestWhere(element, namesComment)) continue;
      const text = normaliseSpace(element.textContent ?? '');
      const list = closestWhere(element, isQuotation) ? quoted : found;
      if (text && text.length < 100) list.push(text);
      if (found.length >= 12) return { bylines: [...found, ...labelledNames(elements)], quoted };
    }
  }
  return { bylines: [...found, ...labelledNames(elements)], quoted };
}

/** The author metas, in the order they are trusted. */
const AUTHOR_METAS = ['dc:creator', 'dc.creator', 'dcterm:creator', 'dcterms.creator', 'author', 'parsely-author', 'sailthru.author', 'article:author'];

/** The label a page gives to the author in its Twitter card data ("twitter:label1" = "Written by", "twitter:data1" = the name). */
const WRITTEN_BY = /^(?:written\s+by|verfasst\s+von|geschrieben\s+von|von|by|autor(?:in)?|author|auteur|écrit\s+par|escrito\s+por|scritto\s+da)$/iu;

/** What the author rules read, gathered before clean-up and Readability change the document. */
export interface AuthorInputs {
  jsonLd: JsonLdAuthor | null;
  /** Author metas by key (AUTHOR_METAS), and `twitter:data` when its label says "Written by". */
  meta: Record<string, string>;
  /** Byline elements (findBylines). */
  bylines: string[];
  /** Short lines naming the author after a label (labelledAuthorLines, AUTHOR_LINE_LABEL). */
  lines: string[];
  /** Last resorts (authorFallbacks): a "von/by Name" line, a JSON-LD Person. */
  fallbacks: string[];
  /** The name in the page's copyright line, if any. */
  copyright: string | null;
  /** A name that signs the article off below its last paragraph (signatureName). */
  signature: string | null;
  /** Names of quoted persons in author-named elements (findBylines). */
  quoted: string[];
}

/** A declared name that its publisher escaped twice ("Redacci&oacute;n"), as the page shows it. */
function unescaped(doc: Document, text: string): string {
  if (!/&(?:#\d+|#x[\da-f]+|[a-z]+\d*);/i.test(text)) return text;
  const area = doc.createElement('textarea');
  area.innerHTML = text;
  return area.textContent ?? text;
}

export function authorInputs(doc: Document, values: MetaValues, jsonLd: Record<string, unknown>[], allJsonLd: Record<string, unknown>[]): AuthorInputs {
  const meta: Record<string, string> = {};
  for (const key of AUTHOR_METAS) {
    const value = values.get(key);
    if (value) meta[key] = unescaped(doc, value);
  }
  const declared = jsonLdAuthor(jsonLd, allJsonLd);
  for (const n of [1, 2, 3, 4]) {
    const data = values.get(`twitter:data${n}`);
    if (data && WRITTEN_BY.test(values.get(`twitter:label${n}`) ?? '')) meta['twitter:data'] = data;
  }
  // one list of the page's elements for the passes below (each filters it instead of querying the page)
  const elements = elementsOf(doc);
  const { bylines, quoted } = findBylines(elements);
  return { jsonLd: declared && { ...declared, name: unescaped(doc, declared.name) }, meta, bylines, lines: labelledAuthorLines(elements), fallbacks: authorFallbacks(elements, allJsonLd), copyright: copyrightName(doc), signature: signatureName(doc), quoted };
}

/**
 * The article's author: a person the page declares (JSON-LD, meta tags), Readability's byline, bylines on the
 * page, then an organisation the JSON-LD names as author, then last resorts for personal sites.
 */
export function chooseAuthor(inputs: AuthorInputs, byline: string | null | undefined, siteNames: string[]): string {
  const { meta, jsonLd } = inputs;
  const articleAuthor = meta['article:author'];
  const named = [
    jsonLd && !jsonLd.organisation ? jsonLd.name : null,
    firstMeta(new Map(Object.entries(meta)), [...AUTHOR_METAS.filter((key) => key !== 'article:author'), 'twitter:data']),
    articleAuthor && !/^https?:\/\//i.test(articleAuthor) ? articleAuthor : null,
    byline && !(inputs.quoted ?? []).includes(normaliseSpace(byline)) ? byline : null,
    ...inputs.bylines,
    ...inputs.lines,
    inputs.signature,
  ];
  const candidates = [...named, jsonLd?.organisation ? jsonLd.name : null];
  const chosen = (leniency: Leniency, from = candidates): string | null => {
    const cleaned = from.map((candidate) => cleanAuthor(candidate, siteNames, leniency));
    const first = cleaned.findIndex((author) => !!author);
    return first >= 0 ? withCoAuthors(fullerForm(cleaned[first]!, cleaned.slice(first + 1)), cleaned.slice(first + 1)) : null;
  };
  for (const leniency of PASSES) {
    const author = chosen(leniency);
    if (author) return author;
  }
  // last resorts: a "by Name" line or a JSON-LD Person; a personal site's name ("Jane Doe's blog"); a copyright line's name
  const personal = siteNames.map((name) => name.replace(/['’]s\s+(?:blog|weblog|website|homepage|site)$|^(?:blog|weblog)\s+(?:von|of|by)\s+/iu, ''));
  // a copyright line runs into the footer's links ("© Jane Doe DatenschutzImpressum"): the name ends before a glued word
  const copyright = inputs.copyright?.replace(/\s+\S*\p{Ll}{2}\p{Lu}\p{Ll}.*$/u, '') ?? null;
  for (const candidate of [...inputs.fallbacks, ...personal, copyright]) {
    const author = cleanAuthor(candidate, [], PASSES[PASSES.length - 1]);
    if (author && PERSON_NAME.test(author)) return author;
  }
  // an organisation the JSON-LD declares is never taken for a handle
  return chosen(HANDLES, named) ?? '';
}

/** Letters only, without case or accents: "gabor_munier" and "Gàbor Muniér" spell the same name. */
const spelling = (text: string): string => squashName(text.normalize('NFD').replace(/\p{M}/gu, ''));

/**
 * A one-word author as another candidate writes it more fully: a user name spelt out as a name
 * ("arianschlichenmayer" → "Arian Schlichenmayer"), a first name with its surname ("Todd" → "Todd Bates").
 */
function fullerForm(author: string, others: readonly (string | null)[]): string {
  if (/\s/.test(author)) return author;
  const key = spelling(author);
  for (const other of others) {
    if (!other || other === author || !/\s/.test(other)) continue;
    if (spelling(other) === key || (other.startsWith(author) && SURNAME.test(other.slice(author.length)))) return other;
  }
  return author;
}

/** What stands between the names of several authors: "Jane Doe, John Roe & Max Muster", "Ana Ruiz y José Gil". */
const NAME_LIST_SEPARATOR = /\s*[,&]\s*|\s+(?:und|and|et|y)\s+/u;

/**
 * The author with the co-authors that another candidate lists after them ("Jane Doe" → "Jane Doe, John Roe"): a list
 * of two to six full names (two words or more each, so "Jane Doe, Berlin" is no list) that opens with the author's
 * name. A list where the author comes later is left alone (the page may name the author among the agency's team).
 */
function withCoAuthors(author: string, others: readonly (string | null)[]): string {
  const key = spelling(author);
  for (const other of others) {
    const names = other?.split(NAME_LIST_SEPARATOR) ?? [];
    if (names.length < 2 || names.length > 6 || !names.every((name) => FULL_NAME.test(name))) continue;
    if (spelling(names[0]!) === key) return other!.replace(/\s*,\s*/g, ', ');
  }
  return author;
}

/** Two to four capitalised words of letters: what a person's name looks like in most scripts that have case. */
const PERSON_NAME = /^\p{Lu}[\p{L}'’-]+(?:\s+(?:(?:von|van|de|der|den|zu|di|da|le|la)\s+)?\p{Lu}[\p{L}'’.-]*){1,3}$/u;

/** A word of a name: capitalised ("Jane", "O'Brien", "Lange-Fricke") or an initial ("R."). */
const NAME_WORD = "\\p{Lu}(?:[\\p{L}'’-]+|\\.)";
const PARTICLES = '(?:(?:von|van|de|der|den|zu|di|da|del|le|la|du|des|dos|das|ter)\\s+){0,2}';
const NAME = `${NAME_WORD}(?:\\s+${PARTICLES}${NAME_WORD}){0,3}`;
/** One name, alone: "Benni", "Jane Doe", "Jose de la Cruz". */
const ONE_NAME = new RegExp(`^${NAME}$`, 'u');
/** A full name: two to four name words ("Jane Doe", not "Jane" nor "Berlin"). */
const FULL_NAME = new RegExp(`^${NAME_WORD}(?:\\s+${PARTICLES}${NAME_WORD}){1,3}$`, 'u');
const NAMES = `${NAME}(?:\\s*(?:,|und|and|&|et|y)\\s+${NAME})*`;
const SHORT_DATE = '\\d{1,2}\\.\\d{1,2}\\.(?:\\d{4}|\\d{2})';
/** What may follow a first name to make it a full name: one or two name words ("Todd" + " Bates"). */
const SURNAME = new RegExp(`^\\s+${NAME_WORD}(?:\\s+${NAME_WORD})?$`, 'u');
/** What opens a line naming the author: "Von", "Text von", "Gespeichert von", "Autoren", "Redaktion:", after a date or not. */
const AUTHOR_LINE_LABEL = new RegExp(
  `^(?:${SHORT_DATE}(?:,?\\s+\\d{1,2}:\\d{2}(?:\\s*uhr)?)?\\s*[-–|,]?\\s*)?(?:(?:(?:(?:ein|eine|an?|un|une)\\s+)?(?:text|blog\\s*beitrag|(?:gast)?beitrag|artikel|article|gespeichert|geschrieben|verfasst|posted|written|published|redaktion|kolumne|column|interview|kommentar|essay|reportage|glosse|rezension|review|story|analyse|analysis)\\s+)?(?:von|by|par|por|door|przez)\\s*:?|(?:autor(?:in|en)?|auteur|autore|verfasser(?:in)?|redaktion|text|authors?)\\s*:|autor(?:in|en)?|authors?)\\s+`,
  'iu',
);
/** Who else a line credits after the author: "Text von Jane Doe Illustration von John Roe". */
const CO_CREDIT = '(?:[Ii]llustrations?|[Ii]llustrationen|[Ff]otos?|[Pp]hotos?|[Bb]ilder?|[Gg]rafik)\\s+(?:von|by|de|par)\\s';
/** The names after the label, then perhaps " am <date>", "| <date>" or a role in brackets ("Jane Doe (Pressesprecherin)"). */
const LABELLED_NAMES = new RegExp(`^(${NAMES})(?:\\s+(?:am|on|le|el|il|um|at)\\b.*|\\s*[|·•]\\s*${SHORT_DATE}.*|\\s*\\([^)]*\\)|,\\s+\\p{L}.*|\\s+${CO_CREDIT}.*|\\s+(?:mit|with|avec|con)\\s+\\p{Lu}.*)?$`, 'u');
/** A Chinese author or editor label and the name, in a script without case: "责任编辑：焦鹏", "作者：王小明". */
const HAN_AUTHOR_LINE = /^(?:责任编辑|作者|编辑|记者|撰文)\s*[：:]\s*(\p{Script=Han}{2,4})$/u;
/** A date and a name: "11.12.2019 - Jane Doe". */
const DATED_NAME = new RegExp(`^${SHORT_DATE}(?:\\s*[-–|,]?\\s*\\d{1,2}:\\d{2}(?:\\s*[Uu]hr)?)?\\s*[-–|]\\s*(${NAME})$`, 'u');

/**
 * A short line that names the author: "Von R. R. am 3. Mai", "Text von Jane Doe", "Autoren Jane Doe und John Roe",
 * "Redaktion: Jane Doe (Pressesprecherin)", or a date and a name ("11.12.2019 - Jane Doe").
 */
function authorInLine(text: string): string | null {
  const han = text.match(HAN_AUTHOR_LINE);
  if (han) return han[1];
  const labelled = text.match(AUTHOR_LINE_LABEL);
  if (labelled) return text.slice(labelled[0].length).match(LABELLED_NAMES)?.[1] ?? null;
  return text.match(DATED_NAME)?.[1] ?? null;
}

const LINE_TAGS = new Set(['span', 'p', 'div', 'a', 'em', 'strong', 'small', 'b', 'i', 'li', 'td']);

/** Short lines on the page (`elements`: elementsOf the document) that name the author (authorInLine), outside comments; the first three. */
export function labelledAuthorLines(elements: readonly Element[]): string[] {
  const found: string[] = [];
  for (const element of elements.filter((candidate) => tagIn(candidate, LINE_TAGS)).slice(0, 5000)) {
    const raw = element.children.length > 3 ? '' : element.textContent ?? '';
    // a container's whole text is not normalised only to be found too long
    if (!raw || raw.length > 1000) continue;
    const text = normaliseSpace(raw.replace(SOFT_HYPHEN, ''));
    if (text.length > 90) continue;
    const name = authorInLine(text);
    if (!name || closestWhere(element, namesComment)) continue;
    if (!found.includes(name)) found.push(name);
    if (found.length >= 3) break;
  }
  return found;
}

const FALLBACK_TAGS = new Set(['span', 'p', 'div', 'a', 'em', 'strong', 'small']);

/** Last-resort author sources: a "von/by Name" line (`elements`: elementsOf the document), a JSON-LD Person. */
export function authorFallbacks(elements: readonly Element[], jsonLd: readonly Record<string, unknown>[]): string[] {
  const found: string[] = [];
  for (const element of elements.filter((candidate) => tagIn(candidate, FALLBACK_TAGS)).slice(0, 3000)) {
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
  return found;
}

const COPYRIGHT = /(?:©|\(c\)|copyright)\s*(?:\(c\)\s*|copyright\s*)?(?:(?:19|20)\d{2}\s*[-–]?\s*(?:(?:19|20)\d{2})?\s*)?(\p{Lu}[\p{L}'’-]+(?:\s+\p{Lu}[\p{L}'’-]+){1,2})/iu;

/**
 * The name in a copyright line ("© 2015 Jane Doe"), read within the element that holds the sign (or the nearest
 * ancestor that completes the line), so the next block's words ("Adresse", "Impressum") do not join the name.
 */
function copyrightName(doc: Document): string | null {
  if (!doc.body) return null;
  const walker = doc.createTreeWalker(doc.body, 4 /* NodeFilter.SHOW_TEXT */);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!/©|\(c\)|copyright/i.test(node.nodeValue ?? '')) continue;
    for (let holder = node.parentElement; holder && holder !== doc.body; holder = holder.parentElement) {
      const raw = holder.textContent ?? '';
      if (raw.length > 300) break;
      const match = normaliseSpace(raw).match(COPYRIGHT);
      if (match) return match[1];
    }
  }
  return null;
}

/** A footnote's mark at the start of a paragraph. */
const FOOTNOTE = /^(?:\(\d{1,2}\)|\[\d{1,2}\]|\d{1,2}\)|\*)/;

/** A greeting before a signature ("Euer Benni", "Liebe Grüße, Jane", "Cheers, Jane"). */
const SIGN_OFF = /^(?:(?:euer|eure|euere|dein|deine|ihr|ihre|yours|cheers|best|regards|love|xoxo|bisous|saludos|cordialement|(?:liebe|viele|herzliche|beste|sonnige)\s+grüße|grüße|lg)\s*,?\s+)?/iu;
/** A date after a signature ("Benni 10. September 2017", "Jane Doe, 17.10.2019"). */
const SIGNATURE_DATE = /[\s,–—-]*(?:\d{1,2}\.\s*\p{L}+\.?\s+\d{4}|\d{1,2}\.\d{1,2}\.\d{2,4}|\p{L}+\s+\d{1,2},?\s+\d{4}|\d{4}-\d{2}-\d{2})$/u;

/**
 * A name that signs the article off: the last paragraph of a run of prose (at least 400 characters of paragraphs
 * before it in the same container, none after it) that holds only a name, perhaps after a greeting or before a date.
 */
function signatureName(doc: Document): string | null {
  const isParagraph = (element: Element): boolean => element.tagName === 'P' && !!(element.textContent ?? '').trim();
  // footnotes may follow the signature: "(1) Ces chiffres …", "[2] …", "* …"
  const isProse = (element: Element): boolean => isParagraph(element) && !FOOTNOTE.test((element.textContent ?? '').trim());
  for (const paragraph of Array.from(doc.querySelectorAll('p')).slice(0, 3000)) {
    const raw = paragraph.textContent ?? '';
    if (raw.length > 200) continue;
    const text = normaliseSpace(raw);
    if (!text || text.length > 60) continue;
    let after = paragraph.nextElementSibling;
    while (after && !isProse(after)) after = after.nextElementSibling;
    if (after) continue;
    let before = 0;
    for (let sibling = paragraph.previousElementSibling; sibling && before < 400; sibling = sibling.previousElementSibling) {
      if (isParagraph(sibling)) before += normaliseSpace(sibling.textContent ?? '').length;
    }
    if (before < 400 || closestWhere(paragraph, namesComment)) continue;
    const undated = text.replace(SIGNATURE_DATE, '');
    const name = undated.replace(SIGN_OFF, '').trim();
    if (!ONE_NAME.test(name) || NOT_A_NAME.test(name)) continue;
    // set apart as a signature: a greeting, a date, emphasis over the whole line or right alignment
    // ("Viel Spaß", "Guten Appetit" are capitalised words too, but plain text)
    const emphasised = Array.from(paragraph.querySelectorAll('em, i, b, strong')).some((element) => normaliseSpace(element.textContent ?? '') === text);
    const rightAligned = paragraph.getAttribute('align') === 'right' || /text-align:\s*right/i.test(paragraph.getAttribute('style') ?? '');
    if (undated !== text || name !== undated.trim() || emphasised || rightAligned) return name;
  }
  return null;
}
