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

/** The matching sparse query for `rerankCandidates`: L2-normalised sum of the documents' TF-IDF vectors. */
export function sparseCentroid(vectors: readonly SparseVector[]): SparseVector {
  const acc = new Map<number, number>();
  for (const v of vectors) for (let k = 0; k < v.ids.length; k++) acc.set(v.ids[k]!, (acc.get(v.ids[k]!) ?? 0) + v.weights[k]!);
  if (acc.size === 0) return EMPTY_SPARSE;
  const ids = Uint32Array.from(acc.keys()).sort();
  let norm = 0;
  for (const w of acc.values()) norm += w * w;
  norm = Math.sqrt(norm);
  return { ids, weights: Float32Array.from(ids, (id) => acc.get(id)! / norm) };
}
