import { EMPTY_SPARSE, type SparseVector } from './sparse';

/**
 * Query for "similar to several documents" / a user's preferred documents: the L2-normalised mean of their dense
 * rows (zero vector if they cancel out or none is given).
 */
export function denseCentroid(rows: readonly Float32Array[], dim: number): Float32Array {
  const out = new Float32Array(dim);
  for (const r of rows) for (let j = 0; j < dim; j++) out[j]! += r[j]!;
  let s = 0;
  for (let j = 0; j < dim; j++) s += out[j]! * out[j]!;
  if (s > 0) {
    const inv = 1 / Math.sqrt(s);
    for (let j = 0; j < dim; j++) out[j]! *= inv;
  }
  return out;
}

/**
 * The matching sparse query for `rerankCandidates`: L2-normalised sum of the documents' TF-IDF vectors. The sums
 * are made in a dense scratch by term id, in the documents' order, and the norm over the terms in the order they
 * first appear (what a Map of sums gave, to the bit): a Map was an eighth of a pool thread's time on a user's
 * recommendations of 10–20 documents (docs/decisions/throughput.md).
 */
export function sparseCentroid(vectors: readonly SparseVector[]): SparseVector {
  let maxId = -1;
  let terms = 0;
  for (const v of vectors) {
    for (let k = 0; k < v.ids.length; k++) if (v.ids[k]! > maxId) maxId = v.ids[k]!;
    terms += v.ids.length;
  }
  if (terms === 0) return EMPTY_SPARSE;
  if (sums.length <= maxId) {
    sums = new Float64Array(Math.max(maxId + 1, sums.length * 2));
    seen = new Uint8Array(sums.length);
  }
  const order = new Uint32Array(terms);
  let n = 0;
  for (const v of vectors) {
    for (let k = 0; k < v.ids.length; k++) {
      const id = v.ids[k]!;
      if (seen[id] === 0) {
        seen[id] = 1;
        order[n++] = id;
      }
      sums[id]! += v.weights[k]!;
    }
  }
  let norm = 0;
  for (let i = 0; i < n; i++) norm += sums[order[i]!]! * sums[order[i]!]!;
  norm = Math.sqrt(norm);
  const ids = order.slice(0, n).sort();
  const weights = new Float32Array(n);
  for (let i = 0; i < n; i++) weights[i] = sums[ids[i]!]! / norm;
  for (let i = 0; i < n; i++) {
    sums[order[i]!] = 0;
    seen[order[i]!] = 0;
  }
  return { ids, weights };
}

/** sparseCentroid's scratch by term id (zero between calls) and which ids it touched. */
let sums = new Float64Array(0);
let seen = new Uint8Array(0);
