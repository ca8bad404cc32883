/** Small dense linear algebra on row-major Float64Arrays (k x k systems, ridge maps, EASE). */

/** In-place Cholesky factorisation of a symmetric positive-definite n x n matrix; lower triangle holds L. */
export function cholesky(a: Float64Array, n: number): void {
  for (let j = 0; j < n; j++) {
    let d = a[j * n + j];
    for (let p = 0; p < j; p++) d -= a[j * n + p] * a[j * n + p];
    if (!(d > 0)) throw new Error(`matrix not positive definite at column ${j}`);
    const ljj = Math.sqrt(d);
    a[j * n + j] = ljj;
    for (let i = j + 1; i < n; i++) {
      let s = a[i * n + j];
      for (let p = 0; p < j; p++) s -= a[i * n + p] * a[j * n + p];
      a[i * n + j] = s / ljj;
    }
  }
}

/** Solves (L L^T) x = b given the factor from `cholesky`; b is overwritten with x. */
export function choleskySolveInPlace(l: Float64Array, n: number, b: Float64Array): void {
  for (let i = 0; i < n; i++) {
    let s = b[i];
    for (let p = 0; p < i; p++) s -= l[i * n + p] * b[p];
    b[i] = s / l[i * n + i];
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = b[i];
    for (let p = i + 1; p < n; p++) s -= l[p * n + i] * b[p];
    b[i] = s / l[i * n + i];
  }
}

/** Direct solve of the SPD system a x = b (a is copied, not modified). */
export function solveSpd(a: Float64Array, n: number, b: Float64Array): Float64Array {
  const l = Float64Array.from(a);
  cholesky(l, n);
  const x = Float64Array.from(b);
  choleskySolveInPlace(l, n, x);
  return x;
}

/**
 * In-place inverse of a symmetric positive-definite n x n matrix by Gauss-Jordan elimination without pivoting
 * (safe for SPD). Row-major with contiguous inner loops: n^3 multiply-adds.
 */
export function invertSpdInPlace(a: Float64Array, n: number): void {
  const pivotRow = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const kk = k * n;
    const pivot = a[kk + k];
    if (!(pivot > 0)) throw new Error(`matrix not positive definite at row ${k}`);
    const inv = 1 / pivot;
    for (let j = 0; j < n; j++) pivotRow[j] = a[kk + j] * inv;
    pivotRow[k] = inv;
    for (let i = 0; i < n; i++) {
      if (i === k) continue;
      const ii = i * n;
      const f = a[ii + k];
      if (f === 0) continue;
      for (let j = 0; j < n; j++) a[ii + j] -= f * pivotRow[j];
      a[ii + k] = -f * inv;
    }
    for (let j = 0; j < n; j++) a[kk + j] = pivotRow[j];
  }
}
