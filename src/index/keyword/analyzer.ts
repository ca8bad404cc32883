/**
 * The analyzer: Unicode word split (an approximation of UAX#29, as Elasticsearch's `standard`
 * tokenizer) followed by lowercasing. A token is a run of letters, marks, digits and connector
 * punctuation (`_`); `.`, `'` and `’` join two such runs (`u.s.a`, `e.g`, `don't`, `3.14`), `,` joins
 * two digits (`1,000`). Han and Hiragana characters are one token each, as the standard tokenizer does.
 * Tokens longer than 255 characters are dropped.
 * A hand-written scanner: Intl.Segmenter implements UAX#29 exactly but measured >1000x slower here,
 * and a Unicode regular expression 3x slower than this.
 */

const MAX_TOKEN_LENGTH = 255;

const NONE = 0;
const WORD = 1;
const DIGIT = 2;
/** A character that is a token by itself (Han, Hiragana). */
const SINGLE = 3;

const ASCII = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f) ASCII[c] = WORD;
  else if (c >= 0x30 && c <= 0x39) ASCII[c] = DIGIT;
}

const LETTERISH = /^[\p{L}\p{M}\p{Pc}]$/u;
const NUMERIC = /^\p{N}$/u;
const SINGLES = /^[\p{sc=Han}\p{sc=Hiragana}]$/u;
const nonAscii = new Map<number, number>();

function classOf(cp: number): number {
  if (cp < 128) return ASCII[cp];
  let k = nonAscii.get(cp);
  if (k === undefined) {
    const ch = String.fromCodePoint(cp);
    k = SINGLES.test(ch) ? SINGLE : NUMERIC.test(ch) ? DIGIT : LETTERISH.test(ch) ? WORD : NONE;
    if (nonAscii.size < 65_536) nonAscii.set(cp, k);
  }
  return k;
}

export interface Token {
  term: string;
  position: number;
  /** UTF-16 offsets into the analyzed string. */
  start: number;
  end: number;
}

/** Calls emit(start, end) for each token's UTF-16 range. */
function scan(text: string, emit: (start: number, end: number) => void): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    let cp = text.charCodeAt(i);
    let width = 1;
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < n) { cp = text.codePointAt(i)!; width = cp > 0xffff ? 2 : 1; }
    const k = classOf(cp);
    if (k === NONE) { i += width; continue; }
    if (k === SINGLE) { emit(i, i + width); i += width; continue; }
    const start = i;
    let prev = k;
    i += width;
    while (i < n) {
      let c = text.charCodeAt(i);
      let w = 1;
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) { c = text.codePointAt(i)!; w = c > 0xffff ? 2 : 1; }
      const kc = classOf(c);
      if (kc === WORD || kc === DIGIT) { prev = kc; i += w; continue; }
      // joiners: . ' ’ between two word characters, , between two digits
      if ((c === 0x2e || c === 0x27 || c === 0x2019 || c === 0x2c) && i + 1 < n) {
        let nx = text.charCodeAt(i + 1);
        if (nx >= 0xd800 && nx <= 0xdbff) nx = text.codePointAt(i + 1)!;
        const kn = classOf(nx);
        if (c === 0x2c ? prev === DIGIT && kn === DIGIT : kn === WORD || kn === DIGIT) { i += 1; continue; }
      }
      break;
    }
    if (i - start <= MAX_TOKEN_LENGTH) emit(start, i);
  }
}

/** Terms of `text` in order (position = index in the returned array). */
export function analyze(text: string): string[] {
  const out: string[] = [];
  scan(text, (s, e) => { out.push(text.slice(s, e).toLowerCase()); });
  return out;
}

/** Tokens with character offsets, for highlighting. */
export function analyzeWithOffsets(text: string): Token[] {
  const out: Token[] = [];
  scan(text, (start, end) => { out.push({ term: text.slice(start, end).toLowerCase(), position: out.length, start, end }); });
  return out;
}

/**
 * Elasticsearch's default gap between the values of a multi-valued text field, so that a phrase
 * never matches across two values.
 */
export const POSITION_INCREMENT_GAP = 100;
