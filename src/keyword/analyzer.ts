/**
 * The keyword index's analyzer, as Elasticsearch's `standard` analyzer: the shared Unicode word
 * scanner (src/text/scan.ts), then lowercasing; no stop words, no stemming (the Elasticsearch contract).
 */
import { scan } from '../text/scan';

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
