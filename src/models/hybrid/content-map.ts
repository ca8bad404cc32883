/**
 * Cold start: a ridge-regression map from content embeddings (dim) to item factors (k), learned on the items the
 * factor model saw: W = (C^T C + mu I)^-1 C^T Y. A document the model never saw gets factors c W.
 */
import { cholesky, choleskySolveInPlace } from '../als/linalg';

export interface ContentMap {
  dim: number;
  k: number;
  /** dim x k, row-major. */
  weights: Float32Array;
}

/**
 * @param content rows x dim content vectors of the trained items that have content
 * @param itemIndex for each content row, the item's row in `factors`
 */
export function fitContentMap(content: Float32Array, dim: number, itemIndex: Int32Array, factors: Float32Array, k: number, mu: number): ContentMap {
  const n = itemIndex.length;
  const ctc = new Float64Array(dim * dim);
  const cty = new Float64Array(dim * k);
  for (let r = 0; r < n; r++) {
    const cb = r * dim;
    const yb = itemIndex[r] * k;
    for (let a = 0; a < dim; a++) {
      const ca = content[cb + a];
      if (ca === 0) continue;
      for (let b = a; b < dim; b++) ctc[a * dim + b] += ca * content[cb + b];
      for (let j = 0; j < k; j++) cty[a * k + j] += ca * factors[yb + j];
    }
  }
  for (let a = 0; a < dim; a++) {
    for (let b = 0; b < a; b++) ctc[a * dim + b] = ctc[b * dim + a];
    ctc[a * dim + a] += mu;
  }
  cholesky(ctc, dim);
  const weights = new Float32Array(dim * k);
  const col = new Float64Array(dim);
  for (let j = 0; j < k; j++) {
    for (let a = 0; a < dim; a++) col[a] = cty[a * k + j];
    choleskySolveInPlace(ctc, dim, col);
    for (let a = 0; a < dim; a++) weights[a * k + j] = col[a];
  }
  return { dim, k, weights };
}

/** Factors for one content vector. */
export function mapContent(map: ContentMap, vector: ArrayLike<number>, out: Float32Array = new Float32Array(map.k), outOffset = 0): Float32Array {
  const { dim, k, weights } = map;
  for (let j = 0; j < k; j++) out[outOffset + j] = 0;
  for (let a = 0; a < dim; a++) {
    const v = vector[a];
    if (v === 0) continue;
    for (let j = 0; j < k; j++) out[outOffset + j] += v * weights[a * k + j];
  }
  return out;
}
