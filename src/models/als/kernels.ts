/**
 * The inner loops of implicit-feedback ALS (Hu, Koren & Volinsky 2008) over typed arrays.
 * Factors are row-major Float32Arrays (rows x k); sums run in float64. `conf` holds alpha*count, i.e. c - 1,
 * so the confidence of an observed pair is 1 + conf and every unobserved pair has confidence 1, preference 0.
 */

/** Partial Gram matrix F^T F over rows [start, end): k x k, row-major, full (both triangles). */
export function gramRange(factors: Float32Array, k: number, start: number, end: number): Float64Array {
  const g = new Float64Array(k * k);
  for (let r = start; r < end; r++) {
    const base = r * k;
    for (let a = 0; a < k; a++) {
      const fa = factors[base + a];
      if (fa === 0) continue;
      const row = a * k;
      for (let b = a; b < k; b++) g[row + b] += fa * factors[base + b];
    }
  }
  for (let a = 0; a < k; a++) for (let b = 0; b < a; b++) g[a * k + b] = g[b * k + a];
  return g;
}

export interface SolveRangeArgs {
  /** Factors being updated in place (rows x k). */
  target: Float32Array;
  /** Fixed factors of the other side (cols x k). */
  fixed: Float32Array;
  indptr: Int32Array;
  indices: Int32Array;
  /** alpha * count for each stored entry. */
  conf: Float32Array;
  k: number;
  /** fixed^T fixed (k x k), without regularisation. */
  gram: Float64Array;
  /** lambda; a row with n stored entries is penalised by lambda * n^regExponent (0: plain, as in HKV 2008). */
  regularization: number;
  regExponent: number;
  start: number;
  end: number;
  cgSteps: number;
}

/** The L2 penalty of a row with `n` stored entries. */
export function rowRegularization(lambda: number, exponent: number, n: number): number {
  return exponent === 0 ? lambda : lambda * Math.pow(Math.max(1, n), exponent);
}

/**
 * Conjugate-gradient update of rows [start, end) (as in the `implicit` library's least_squares_cg): starting from
 * the current row x, a few CG steps on (F^T C_u F + lambda I) x = F^T C_u p_u, using F^T C_u F = gram + F^T (C_u - I) F.
 */
export function solveRange(args: SolveRangeArgs): void {
  const { target, fixed, indptr, indices, conf, k, gram, regularization, regExponent, start, end, cgSteps } = args;
  const x = new Float64Array(k);
  const r = new Float64Array(k);
  const p = new Float64Array(k);
  const ap = new Float64Array(k);
  for (let u = start; u < end; u++) {
    const base = u * k;
    for (let a = 0; a < k; a++) x[a] = target[base + a];
    const e0 = indptr[u];
    const e1 = indptr[u + 1];
    const lambda = rowRegularization(regularization, regExponent, e1 - e0);
    // r = b - A x  where b = sum (1 + d) y_i and A x = (gram + lambda I) x + sum d (y_i . x) y_i
    for (let a = 0; a < k; a++) {
      let s = -lambda * x[a];
      const row = a * k;
      for (let b = 0; b < k; b++) s -= gram[row + b] * x[b];
      r[a] = s;
    }
    for (let e = e0; e < e1; e++) {
      const d = conf[e];
      const yb = indices[e] * k;
      let dot = 0;
      for (let a = 0; a < k; a++) dot += fixed[yb + a] * x[a];
      const w = 1 + d - d * dot;
      for (let a = 0; a < k; a++) r[a] += w * fixed[yb + a];
    }
    let rsOld = 0;
    for (let a = 0; a < k; a++) {
      p[a] = r[a];
      rsOld += r[a] * r[a];
    }
    if (rsOld < 1e-20) continue;
    for (let step = 0; step < cgSteps; step++) {
      for (let a = 0; a < k; a++) {
        let s = lambda * p[a];
        const row = a * k;
        for (let b = 0; b < k; b++) s += gram[row + b] * p[b];
        ap[a] = s;
      }
      for (let e = e0; e < e1; e++) {
        const d = conf[e];
        const yb = indices[e] * k;
        let dot = 0;
        for (let a = 0; a < k; a++) dot += fixed[yb + a] * p[a];
        const w = d * dot;
        for (let a = 0; a < k; a++) ap[a] += w * fixed[yb + a];
      }
      let pap = 0;
      for (let a = 0; a < k; a++) pap += p[a] * ap[a];
      if (!(pap > 0)) break;
      const alpha = rsOld / pap;
      let rsNew = 0;
      for (let a = 0; a < k; a++) {
        x[a] += alpha * p[a];
        r[a] -= alpha * ap[a];
        rsNew += r[a] * r[a];
      }
      if (rsNew < 1e-20) break;
      const beta = rsNew / rsOld;
      for (let a = 0; a < k; a++) p[a] = r[a] + beta * p[a];
      rsOld = rsNew;
    }
    for (let a = 0; a < k; a++) target[base + a] = x[a];
  }
}

/**
 * The exact least-squares row for one entity against fixed factors (direct Cholesky solve); the fold-in for a user
 * the model did not see, and the reference the CG solver is tested against. `gram` must include the row's
 * regularisation (fixed^T fixed + lambda_row I).
 */
export function solveRowDirect(
  fixed: Float32Array,
  k: number,
  gram: Float64Array,
  cols: ArrayLike<number>,
  conf: ArrayLike<number>,
): Float64Array {
  const a = Float64Array.from(gram);
  const b = new Float64Array(k);
  for (let e = 0; e < cols.length; e++) {
    const d = conf[e];
    const yb = cols[e] * k;
    for (let i = 0; i < k; i++) {
      const yi = fixed[yb + i];
      b[i] += (1 + d) * yi;
      const wi = d * yi;
      if (wi === 0) continue;
      for (let j = 0; j < k; j++) a[i * k + j] += wi * fixed[yb + j];
    }
  }
  // Local Cholesky to keep this module free of imports (it is loaded by worker threads too).
  for (let j = 0; j < k; j++) {
    let s = a[j * k + j];
    for (let q = 0; q < j; q++) s -= a[j * k + q] * a[j * k + q];
    const ljj = Math.sqrt(Math.max(s, 1e-12));
    a[j * k + j] = ljj;
    for (let i = j + 1; i < k; i++) {
      let t = a[i * k + j];
      for (let q = 0; q < j; q++) t -= a[i * k + q] * a[j * k + q];
      a[i * k + j] = t / ljj;
    }
  }
  for (let i = 0; i < k; i++) {
    let s = b[i];
    for (let q = 0; q < i; q++) s -= a[i * k + q] * b[q];
    b[i] = s / a[i * k + i];
  }
  for (let i = k - 1; i >= 0; i--) {
    let s = b[i];
    for (let q = i + 1; q < k; q++) s -= a[q * k + i] * b[q];
    b[i] = s / a[i * k + i];
  }
  return b;
}

export interface LossPartial {
  /** sum over rows of x^T G x + sum over observed (c (1 - s)^2 - s^2), s = x . y */
  data: number;
  /** sum over rows of lambda_row |x|^2 */
  penalty: number;
}

/**
 * Partial weighted squared loss over rows [start, end) with `gram` = fixed^T fixed (no regularisation):
 * sum over all pairs c_ui (p_ui - x_u . y_i)^2, computed as x^T G x for the unobserved part plus a correction per
 * observed pair.
 */
export function lossRange(
  target: Float32Array,
  fixed: Float32Array,
  indptr: Int32Array,
  indices: Int32Array,
  conf: Float32Array,
  k: number,
  gram: Float64Array,
  regularization: number,
  regExponent: number,
  start: number,
  end: number,
): LossPartial {
  let data = 0;
  let penalty = 0;
  for (let u = start; u < end; u++) {
    const base = u * k;
    const lambda = rowRegularization(regularization, regExponent, indptr[u + 1] - indptr[u]);
    for (let a = 0; a < k; a++) {
      const xa = target[base + a];
      penalty += lambda * xa * xa;
      let s = 0;
      const row = a * k;
      for (let b = 0; b < k; b++) s += gram[row + b] * target[base + b];
      data += xa * s;
    }
    for (let e = indptr[u]; e < indptr[u + 1]; e++) {
      const c = 1 + conf[e];
      const yb = indices[e] * k;
      let s = 0;
      for (let a = 0; a < k; a++) s += target[base + a] * fixed[yb + a];
      data += c * (1 - s) * (1 - s) - s * s;
    }
  }
  return { data, penalty };
}
