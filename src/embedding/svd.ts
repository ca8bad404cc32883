import { seededRandom } from '../random';
import { gaussianFill } from './random';

/** Sparse matrix in compressed sparse row form: row i's entries are [rowStart[i], rowStart[i+1]). */
export interface CsrMatrix {
  readonly rows: number;
  readonly cols: number;
  readonly rowStart: Uint32Array;
  readonly colIndex: Uint32Array;
  readonly values: Float32Array;
}

/** out (rows × l, row-major) = A · X, X is cols × l row-major. */
function multiply(a: CsrMatrix, x: Float64Array, l: number): Float64Array {
  const out = new Float64Array(a.rows * l);
  for (let i = 0; i < a.rows; i++) {
    const o = i * l;
    for (let p = a.rowStart[i]!; p < a.rowStart[i + 1]!; p++) {
      const v = a.values[p]!;
      const xo = a.colIndex[p]! * l;
      for (let c = 0; c < l; c++) out[o + c]! += v * x[xo + c]!;
    }
  }
  return out;
}

/** out (cols × l) = Aᵀ · Y, Y is rows × l row-major. */
function multiplyTransposed(a: CsrMatrix, y: Float64Array, l: number): Float64Array {
  const out = new Float64Array(a.cols * l);
  for (let i = 0; i < a.rows; i++) {
    const yo = i * l;
    for (let p = a.rowStart[i]!; p < a.rowStart[i + 1]!; p++) {
      const v = a.values[p]!;
      const o = a.colIndex[p]! * l;
      for (let c = 0; c < l; c++) out[o + c]! += v * y[yo + c]!;
    }
  }
  return out;
}

/** Gram matrix G = Yᵀ Y (l × l, full) of a row-major m × l matrix. */
function gram(y: Float64Array, m: number, l: number): Float64Array {
  const g = new Float64Array(l * l);
  for (let i = 0; i < m; i++) {
    const o = i * l;
    for (let r = 0; r < l; r++) {
      const yr = y[o + r]!;
      if (yr === 0) continue;
      const go = r * l;
      for (let c = r; c < l; c++) g[go + c]! += yr * y[o + c]!;
    }
  }
  for (let r = 0; r < l; r++) for (let c = 0; c < r; c++) g[r * l + c] = g[c * l + r]!;
  return g;
}

/** Upper-triangular R with RᵀR = G (+ a tiny shift so rank-deficient blocks stay finite). */
function cholesky(g: Float64Array, l: number): Float64Array {
  let trace = 0;
  for (let i = 0; i < l; i++) trace += g[i * l + i]!;
  const shift = 1e-12 * (trace / l || 1);
  const r = new Float64Array(l * l);
  for (let j = 0; j < l; j++) {
    let d = g[j * l + j]! + shift;
    for (let k = 0; k < j; k++) d -= r[k * l + j]! * r[k * l + j]!;
    const rjj = Math.sqrt(Math.max(d, shift));
    r[j * l + j] = rjj;
    for (let c = j + 1; c < l; c++) {
      let s = g[j * l + c]!;
      for (let k = 0; k < j; k++) s -= r[k * l + j]! * r[k * l + c]!;
      r[j * l + c] = s / rjj;
    }
  }
  return r;
}

/** In place: each row y ← y R⁻¹ (forward substitution against upper-triangular R). */
function solveRight(y: Float64Array, m: number, l: number, r: Float64Array): void {
  for (let i = 0; i < m; i++) {
    const o = i * l;
    for (let c = 0; c < l; c++) {
      let s = y[o + c]!;
      for (let k = 0; k < c; k++) s -= y[o + k]! * r[k * l + c]!;
      y[o + c] = s / r[c * l + c]!;
    }
  }
}

/**
 * Orthonormalise the columns of a row-major m × l matrix in place by shifted Cholesky-QR. One pass suffices
 * here: the blocks are re-orthonormalised after every product, so their condition numbers stay small.
 */
export function orthonormalise(y: Float64Array, m: number, l: number): void {
  solveRight(y, m, l, cholesky(gram(y, m, l), l));
}

/** Eigen-decomposition of a symmetric l × l matrix by cyclic Jacobi; returns eigenvalues and column eigenvectors. */
export function symmetricEigen(input: Float64Array, l: number): { values: Float64Array; vectors: Float64Array } {
  const a = Float64Array.from(input);
  const v = new Float64Array(l * l);
  for (let i = 0; i < l; i++) v[i * l + i] = 1;
  for (let sweep = 0; sweep < 60; sweep++) {
    let off = 0;
    let total = 0;
    for (let p = 0; p < l; p++)
      for (let q = 0; q < l; q++) {
        const x = a[p * l + q]! * a[p * l + q]!;
        total += x;
        if (p !== q) off += x;
      }
    if (off <= 1e-22 * total) break;
    for (let p = 0; p < l - 1; p++) {
      for (let q = p + 1; q < l; q++) {
        const apq = a[p * l + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * l + q]! - a[p * l + p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < l; k++) {
          const akp = a[k * l + p]!;
          const akq = a[k * l + q]!;
          a[k * l + p] = c * akp - s * akq;
          a[k * l + q] = s * akp + c * akq;
        }
        for (let k = 0; k < l; k++) {
          const apk = a[p * l + k]!;
          const aqk = a[q * l + k]!;
          a[p * l + k] = c * apk - s * aqk;
          a[q * l + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < l; k++) {
          const vkp = v[k * l + p]!;
          const vkq = v[k * l + q]!;
          v[k * l + p] = c * vkp - s * vkq;
          v[k * l + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const values = new Float64Array(l);
  for (let i = 0; i < l; i++) values[i] = a[i * l + i]!;
  return { values, vectors: v };
}

export interface TruncatedSvd {
  /** k singular values, descending */
  readonly singularValues: Float64Array;
  /** right singular vectors as a cols × k row-major matrix (column j = j-th vector) */
  readonly rightVectors: Float64Array;
  readonly k: number;
}

export interface RandomizedSvdOptions {
  oversample?: number;
  powerIterations?: number;
  seed?: number;
}

/**
 * Randomized truncated SVD (Halko, Martinsson & Tropp 2011) of a sparse rows × cols matrix, worked on the row
 * side (documents, usually fewer than terms): range finder Q with power iterations, then the eigen-decomposition
 * of the small l × l matrix Qᵀ A Aᵀ Q = W Λ Wᵀ gives σ = √λ, U = Q W, and V = Aᵀ U Σ⁻¹ by one sparse product.
 */
export function randomizedSvd(a: CsrMatrix, k: number, options: RandomizedSvdOptions = {}): TruncatedSvd {
  const rank = Math.min(k, a.rows, a.cols);
  const l = Math.min(rank + (options.oversample ?? 10), a.rows, a.cols);
  const omega = new Float64Array(a.cols * l);
  gaussianFill(omega, seededRandom(options.seed ?? 1));
  let q = multiply(a, omega, l);
  orthonormalise(q, a.rows, l);
  for (let it = 0; it < (options.powerIterations ?? 1); it++) {
    q = multiply(a, multiplyTransposed(a, q, l), l);
    orthonormalise(q, a.rows, l);
  }
  const aatq = multiply(a, multiplyTransposed(a, q, l), l); // A Aᵀ Q, rows × l
  const small = new Float64Array(l * l); // Qᵀ (A Aᵀ Q)
  for (let i = 0; i < a.rows; i++) {
    const o = i * l;
    for (let r = 0; r < l; r++) {
      const qr = q[o + r]!;
      if (qr === 0) continue;
      const so = r * l;
      for (let c = 0; c < l; c++) small[so + c]! += qr * aatq[o + c]!;
    }
  }
  for (let r = 0; r < l; r++) for (let c = 0; c < r; c++) small[r * l + c] = small[c * l + r] = (small[r * l + c]! + small[c * l + r]!) / 2;
  const { values, vectors } = symmetricEigen(small, l);
  const order = Array.from(values.keys()).sort((x, y) => values[y]! - values[x]!);
  const singularValues = new Float64Array(rank);
  // U Σ⁻¹ = Q W Σ⁻¹ (rows × rank), then V = Aᵀ (U Σ⁻¹)
  const w = new Float64Array(l * rank);
  for (let j = 0; j < rank; j++) {
    const e = order[j]!;
    const sigma = Math.sqrt(Math.max(values[e]!, 0));
    singularValues[j] = sigma;
    const inv = sigma > 1e-12 ? 1 / sigma : 0;
    for (let c = 0; c < l; c++) w[c * rank + j] = vectors[c * l + e]! * inv;
  }
  const uScaled = new Float64Array(a.rows * rank);
  for (let i = 0; i < a.rows; i++) {
    const o = i * l;
    const uo = i * rank;
    for (let c = 0; c < l; c++) {
      const qc = q[o + c]!;
      if (qc === 0) continue;
      const wo = c * rank;
      for (let j = 0; j < rank; j++) uScaled[uo + j]! += qc * w[wo + j]!;
    }
  }
  const rightVectors = multiplyTransposed(a, uScaled, rank);
  return { singularValues, rightVectors, k: rank };
}
