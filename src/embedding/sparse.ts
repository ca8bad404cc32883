import { analyze, countTerms } from '../text';
import type { TermLookup } from './vocabulary';

/** A sparse, L2-normalised TF-IDF vector: term ids ascending, with their weights. */
export interface SparseVector {
  readonly ids: Uint32Array;
  readonly weights: Float32Array;
}

/** Vocabulary + idf: the corpus statistics every corpus-fitted model shares. */
export interface TermStatistics {
  readonly vocabulary: TermLookup;
  /** by term id */
  readonly idf: Float32Array;
}

/** The largest term id a corpus model gives (fit.ts caps its vocabulary): keys' term arrays hold 16-bit ids. */
export const MAX_TERM_ID = 0xffff;

export const EMPTY_SPARSE: SparseVector = { ids: new Uint32Array(0), weights: new Float32Array(0) };

/** A term's count sits below its id in one sort key (counts stay far below 2^21; ids below 2^32). */
const COUNT_RANGE = 2 ** 21;

/**
 * Sublinear tf (1 + ln tf) × idf, L2-normalised; unknown terms are dropped. Measured: raw tf 0.495 vs sublinear 0.611.
 * Terms are ordered by id as numbers (id above count) sorted without a comparator, not as pairs sorted with one.
 */
export function tfidfVector(stats: TermStatistics, tokens: readonly string[]): SparseVector {
  const counts = countTerms(tokens);
  const keys = new Float64Array(counts.size);
  let n = 0;
  for (const [term, count] of counts) {
    const id = stats.vocabulary.get(term);
    if (id !== undefined) keys[n++] = id * COUNT_RANGE + Math.min(count, COUNT_RANGE - 1);
  }
  if (n === 0) return EMPTY_SPARSE;
  const sorted = keys.subarray(0, n).sort();
  const ids = new Uint32Array(n);
  const raw = new Float64Array(n);
  let norm = 0;
  for (let i = 0; i < n; i++) {
    const id = Math.floor(sorted[i]! / COUNT_RANGE);
    ids[i] = id;
    raw[i] = (1 + Math.log(sorted[i]! - id * COUNT_RANGE)) * stats.idf[id]!;
    norm += raw[i]! * raw[i]!;
  }
  norm = Math.sqrt(norm);
  const weights = new Float32Array(n);
  for (let i = 0; i < n; i++) weights[i] = raw[i]! / norm;
  return { ids, weights };
}

/** The TF-IDF vector of a text; `language` is the key's main language, assumed where the text does not tell. */
export function textToTfidf(stats: TermStatistics, text: string, language?: string): SparseVector {
  return tfidfVector(stats, analyze(text, { hint: language }).terms);
}

/** Dot product of two sparse vectors with ascending ids (cosine, since both are normalised). */
export function sparseDot(a: SparseVector, b: SparseVector): number {
  let i = 0;
  let j = 0;
  let s = 0;
  while (i < a.ids.length && j < b.ids.length) {
    const x = a.ids[i]!;
    const y = b.ids[j]!;
    if (x === y) s += a.weights[i++]! * b.weights[j++]!;
    else if (x < y) i++;
    else j++;
  }
  return s;
}

/** Packs many sparse vectors into three transferable arrays (row r = [offsets[r], offsets[r+1])). */
export interface PackedSparse {
  readonly offsets: Uint32Array;
  readonly ids: Uint32Array;
  readonly weights: Float32Array;
}

export function packSparse(rows: readonly SparseVector[]): PackedSparse {
  const offsets = new Uint32Array(rows.length + 1);
  rows.forEach((r, i) => (offsets[i + 1] = offsets[i]! + r.ids.length));
  const ids = new Uint32Array(offsets[rows.length]!);
  const weights = new Float32Array(offsets[rows.length]!);
  rows.forEach((r, i) => {
    ids.set(r.ids, offsets[i]!);
    weights.set(r.weights, offsets[i]!);
  });
  return { offsets, ids, weights };
}

export function unpackSparse(packed: PackedSparse): SparseVector[] {
  const out: SparseVector[] = [];
  for (let r = 0; r + 1 < packed.offsets.length; r++) {
    const a = packed.offsets[r]!;
    const b = packed.offsets[r + 1]!;
    out.push({ ids: packed.ids.subarray(a, b), weights: packed.weights.subarray(a, b) });
  }
  return out;
}
