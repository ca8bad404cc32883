import type { Csr } from '../als/csr';

/**
 * EASE (Steck 2019): closed-form item-item weights B = I - P diagMat(1 / diag(P)), P = (X^T X + lambda I)^-1, with
 * diag(B) = 0. Dense n x n: O(n^2) memory and O(n^3) time, so it is only built up to MAX_EASE_ITEMS items.
 */
export const MAX_EASE_ITEMS = 3000;

/** Item co-occurrence Gram X^T X + lambda I (n x n, float64) from a user x item CSR of binary interactions. */
export function itemGram(userItems: Csr, lambda: number): Float64Array {
  const n = userItems.cols;
  const g = new Float64Array(n * n);
  for (let u = 0; u < userItems.rows; u++) {
    const e0 = userItems.indptr[u];
    const e1 = userItems.indptr[u + 1];
    for (let a = e0; a < e1; a++) {
      const row = userItems.indices[a] * n;
      for (let b = e0; b < e1; b++) g[row + userItems.indices[b]] += 1;
    }
  }
  for (let i = 0; i < n; i++) g[i * n + i] += lambda;
  return g;
}

/** B from the inverted Gram P (in place on a float64 copy); returned as float32, row j = weights from item j. */
export function easeFromInverse(p: Float64Array, n: number): Float32Array {
  const b = new Float32Array(n * n);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      // B[j][i] = -P[j][i] / P[i][i]
      b[j * n + i] = i === j ? 0 : -p[j * n + i] / p[i * n + i];
    }
  }
  return b;
}
