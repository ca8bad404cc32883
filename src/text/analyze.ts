import { LanguageEvidence, stopWordsOf, UNDETERMINED } from './language';
import { scan, TokenKind } from './scan';
import { scriptOf, type Script } from './scripts';
import { stem } from './stem';

/**
 * The one analysis chain for recommendation features (embedding, second stage, tag model, cluster words,
 * the parser's keywords, v1's word count). The keyword index keeps Elasticsearch's `standard` analyzer
 * (src/keyword/analyzer.ts) over the same scanner, as its contract requires.
 */

const MIN_WORD = 2;
const MAX_WORD = 40;
const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.\p{L}{2,}/gu;

/** A scanned token with what analysis needs to know of it. */
interface Piece {
  text: string;
  script: Script;
  kind: TokenKind;
  start: number;
  end: number;
}

function piecesOf(text: string): Piece[] {
  const out: Piece[] = [];
  scan(text, (start, end, kind) => {
    const piece = text.slice(start, end).toLowerCase();
    out.push({ text: piece, script: scriptOf(piece.codePointAt(0)!), kind, start, end });
  });
  return out;
}

function evidenceOf(pieces: readonly Piece[]): LanguageEvidence {
  const evidence = new LanguageEvidence();
  for (const p of pieces) if (p.kind !== TokenKind.Digits) evidence.add(p.text, p.script);
  return evidence;
}

const segmenters = new Map<string, Intl.Segmenter>();

/** ICU's dictionary word segmentation (for scripts written without spaces; ~0.3 ms a short document). */
export function segmentWords(text: string, language: string): string[] {
  let segmenter = segmenters.get(language);
  if (!segmenter) segmenters.set(language, (segmenter = new Intl.Segmenter(language === UNDETERMINED ? undefined : language.slice(0, 2), { granularity: 'word' })));
  const out: string[] = [];
  for (const s of segmenter.segment(text)) if (s.isWordLike) out.push(s.segment.toLowerCase());
  return out;
}

const ISO1: Readonly<Record<string, string>> = { jpn: 'ja', zho: 'zh', tha: 'th', kor: 'ko' };

/**
 * Calls `run(first, last)` for each run of adjacent Han/Hiragana pieces (the scanner emits them one
 * character each), and `word(piece)` for every other piece.
 */
function eachRun(pieces: readonly Piece[], run: (first: number, last: number) => void, word: (p: Piece, at: number) => void): void {
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i]!;
    if (p.kind !== TokenKind.Single) { word(p, i); continue; }
    let j = i;
    while (j + 1 < pieces.length && pieces[j + 1]!.kind === TokenKind.Single && pieces[j + 1]!.start === pieces[j]!.end) j++;
    run(i, j);
    i = j;
  }
}

/**
 * Overlapping bigrams of each Han run within pieces[first..last] (a lone character stands for itself).
 * Hiragana is Japanese grammar (particles, endings): it splits Han runs and is not a term itself. On
 * debian-ja against its English twin, bigrams across kana scored 0.92 of the twin, Han-only 0.997.
 */
function pushHanBigrams(pieces: readonly Piece[], first: number, last: number, terms: string[]): void {
  for (let i = first; i <= last; i++) {
    if (pieces[i]!.script !== 'han') continue;
    let j = i;
    while (j + 1 <= last && pieces[j + 1]!.script === 'han') j++;
    if (i === j) terms.push(pieces[i]!.text);
    else for (let k = i; k < j; k++) terms.push(pieces[k]!.text + pieces[k + 1]!.text);
    i = j;
  }
}

export interface Analysis {
  /** ISO 639-3 code of the text's language, or `und`. */
  language: string;
  /** What corpus statistics count: stems of content words, CJK character bigrams, e-mail addresses. */
  terms: string[];
}

export interface AnalyzeOptions {
  /** Language to assume when the text does not tell (short texts): the key's main language. */
  hint?: string;
}

/**
 * Terms of a text: words of its detected language without its stop words, Snowball-stemmed; Chinese and
 * Japanese Han runs as overlapping character bigrams, katakana words whole (as Lucene's CJK analyzer: 0.011 ms a document against
 * Intl.Segmenter's 0.32 ms on debian-ja, docs/decisions/embedding.md); Thai, Lao, Khmer and Myanmar by
 * ICU's segmentation; whole e-mail addresses (they identify posters and lists: +0.004 on 20NG).
 */
export function analyze(text: string, options: AnalyzeOptions = {}): Analysis {
  const pieces = piecesOf(text);
  const language = evidenceOf(pieces).language(options.hint);
  const stops = stopWordsOf(language);
  const terms: string[] = [];
  eachRun(pieces, (first, last) => pushHanBigrams(pieces, first, last, terms), (p) => {
    if (p.kind === TokenKind.Digits) return;
    if (p.script === 'southeast-asian') {
      for (const w of segmentWords(p.text, 'tha')) terms.push(w);
      return;
    }
    const w = p.text;
    if (w.length < MIN_WORD || w.length > MAX_WORD || stops.has(w)) return;
    terms.push(p.script === 'latin' || p.script === 'cyrillic' || p.script === 'arabic' ? stem(w, language) : w);
  });
  if (text.includes('@')) {
    const emails = text.toLowerCase().match(EMAIL);
    if (emails) for (const e of emails) terms.push(e);
  }
  return { language, terms };
}

/** The language of a text (see `analyze`). */
export function languageOf(text: string, hint?: string): string {
  return evidenceOf(piecesOf(text)).language(hint);
}

/** Lower-cased words as written (letters first, 2..40 characters): what word vectors are looked up by. */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const p of piecesOf(text)) if (p.kind === TokenKind.Word && p.text.length >= MIN_WORD && p.text.length <= MAX_WORD) out.push(p.text);
  return out;
}

/**
 * Words a reader would name a text by: as written (not stemmed), without the stop words of the text's
 * language, Chinese, Japanese and Thai segmented into dictionary words by ICU. For labels (cluster words,
 * word clouds, the parser's keywords), where a stem or a bigram would not read as a word.
 */
export function readableWords(text: string, options: AnalyzeOptions = {}): { language: string; words: string[] } {
  const pieces = piecesOf(text);
  const language = evidenceOf(pieces).language(options.hint);
  const stops = stopWordsOf(language);
  const out: string[] = [];
  const keep = (w: string) => {
    if (w.length > MAX_WORD || stops.has(w) || /^\p{N}+$/u.test(w)) return;
    if (w.length < MIN_WORD && !/[\p{sc=Han}]/u.test(w)) return;
    out.push(w);
  };
  eachRun(pieces, (first, last) => {
    for (const w of segmentWords(text.slice(pieces[first]!.start, pieces[last]!.end), ISO1[language] ? language : 'zho')) keep(w);
  }, (p) => {
    if (p.kind === TokenKind.Digits) return;
    if (p.script === 'southeast-asian') { for (const w of segmentWords(p.text, 'tha')) keep(w); return; }
    keep(p.text);
  });
  return { language, words: out };
}

/**
 * How many words `text` has, counting at most `atMost` (v1's "N words recognized" rule): words of every
 * script, Chinese and Japanese counted by ICU's word segmentation. Stops once `atMost` is reached, so a
 * long text costs no more than its first words.
 */
export function countWords(text: string, atMost = Number.POSITIVE_INFINITY): number {
  let n = 0;
  const pieces = piecesOf(text.length > 64 * 1024 ? text.slice(0, 64 * 1024) : text);
  const language = (first: number, last: number) => {
    for (let k = first; k <= last; k++) if (pieces[k]!.script === 'kana') return 'jpn';
    return 'zho';
  };
  const runs: Array<[number, number]> = [];
  eachRun(pieces, (first, last) => runs.push([first, last]), (p, at) => {
    if (p.kind === TokenKind.Digits) return;
    if (p.script === 'southeast-asian') runs.push([at, at]);
    else n++;
  });
  for (const [first, last] of runs) {
    if (n >= atMost) break;
    const span = text.slice(pieces[first]!.start, pieces[last]!.end);
    const script = pieces[first]!.script;
    n += segmentWords(span, script === 'southeast-asian' ? 'tha' : language(first, last)).length;
  }
  return Math.min(n, atMost);
}

/** Term → count, in first-seen order. */
export function countTerms(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}
