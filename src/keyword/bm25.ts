import { LENGTH_TABLE } from './norms';

export const K1 = 1.2;
export const B = 0.75;

/** Lucene's BM25 idf: ln(1 + (N − n + 0.5) / (n + 0.5)), N = documents having the field. */
export function idf(docFreq: number, docCount: number): number {
  return Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5));
}

/**
 * K for each encoded norm byte: k1 · (1 − b + b · dl / avgdl), dl being the length Lucene decodes
 * from its one-byte norm.
 */
export function normCache(avgFieldLength: number): Float64Array {
  const cache = new Float64Array(256);
  for (let i = 0; i < 256; i++) cache[i] = K1 * (1 - B + (B * LENGTH_TABLE[i]) / avgFieldLength);
  return cache;
}

/**
 * Elasticsearch (7 and 8) scores with LegacyBM25Similarity: Lucene's BM25 times (k1 + 1), so a
 * term's score is boost · idf · (k1 + 1) · tf / (tf + K).
 */
export function termWeight(boost: number, docFreq: number, docCount: number): number {
  return boost * idf(docFreq, docCount) * (K1 + 1);
}
