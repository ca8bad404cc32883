/**
 * The analyzer: Unicode word split (an approximation of UAX#29, as Elasticsearch's `standard`
 * tokenizer) followed by lowercasing. A token is a run of letters, marks, digits and connector
 * punctuation (`_`); `.`, `'` and `’` join two such runs (`u.s.a`, `e.g`, `don't`, `3.14`), `,` joins
 * two digit runs (`1,000`). Han and Hiragana characters are one token each, as the standard tokenizer does.
 * Intl.Segmenter implements UAX#29 exactly but measured >1000x slower here, so a regular expression it is.
 */
// Built at run time: the `v` flag (set subtraction) is newer than the compile target.
const WORD = new RegExp(String.raw`[\p{sc=Han}\p{sc=Hiragana}]|[[\p{L}\p{M}\p{N}\p{Pc}]--[\p{sc=Han}\p{sc=Hiragana}]]+(?:(?:[.'\u2019]|(?<=\p{N}),(?=\p{N}))[[\p{L}\p{M}\p{N}\p{Pc}]--[\p{sc=Han}\p{sc=Hiragana}]]+)*`, 'gv');

/** Tokens longer than this are dropped, as Lucene's standard tokenizer splits at 255 chars. */
const MAX_TOKEN_LENGTH = 255;

export interface Token {
  term: string;
  position: number;
  /** UTF-16 offsets into the analyzed string. */
  start: number;
  end: number;
}

/** Terms of `text` in order (position = index in the returned array). */
export function analyze(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(WORD)) {
    const t = m[0];
    if (t.length <= MAX_TOKEN_LENGTH) out.push(t.toLowerCase());
  }
  return out;
}

/** Tokens with character offsets, for highlighting. */
export function analyzeWithOffsets(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(WORD)) {
    const t = m[0];
    if (t.length > MAX_TOKEN_LENGTH) continue;
    const start = m.index ?? 0;
    out.push({ term: t.toLowerCase(), position: out.length, start, end: start + t.length });
  }
  return out;
}

/**
 * Elasticsearch's default gap between the values of a multi-valued text field, so that a phrase
 * never matches across two values.
 */
export const POSITION_INCREMENT_GAP = 100;
