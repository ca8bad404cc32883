import { seededRandom } from '../random';

/** n rows of dim floats, row-major. */
export interface Matrix {
  data: Float32Array;
  rows: number;
  dim: number;
}

export interface KMeansOptions {
  k: number;
  seed?: number;
  maxIterations?: number;
  /** Stop once fewer than this share of points change cluster in an iteration. */
  tolerance?: number;
  /** Independent seedings; the run with the least inertia wins (guards against a poor local optimum). */
  restarts?: number;
}

export interface KMeansResult {
  /** rows × k centroids (the mean of each cluster's points). */
  centroids: Float32Array;
  k: number;
  /** cluster of each row, 0..k-1 */
  assignments: Int32Array;
  iterations: number;
  converged: boolean;
  /** Sum of squared distances of points to their centroid. */
  inertia: number;
}

export const DEFAULT_SEED = 20_240_601;

function squaredDistance(a: Float32Array, aOffset: number, b: Float32Array, bOffset: number, dim: number): number {
  let sum = 0;
  for (let j = 0; j < dim; j++) {
    const d = a[aOffset + j]! - b[bOffset + j]!;
    sum += d * d;
  }
  return sum;
}

/** Index of the centroid nearest to row `row` of `points`, and its squared distance. */
export function nearestCentroid(points: Float32Array, row: number, centroids: Float32Array, k: number, dim: number): { cluster: number; distance: number } {
  let best = 0;
  let bestDistance = Infinity;
  const offset = row * dim;
  for (let c = 0; c < k; c++) {
    const d = squaredDistance(points, offset, centroids, c * dim, dim);
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  return { cluster: best, distance: bestDistance };
}

/**
 * k-means++ seeding (Arthur & Vassilvitskii 2007): the first centre uniformly at random, each next one
 * with probability proportional to the squared distance to the nearest centre chosen so far.
 */
export function kmeansPlusPlus(points: Matrix, k: number, random: () => number): Float32Array {
  const { data, rows, dim } = points;
  if (k > rows) throw new RangeError(`k = ${k} exceeds the ${rows} points`);
  const centroids = new Float32Array(k * dim);
  const nearest = new Float64Array(rows).fill(Infinity);
  let chosen = Math.floor(random() * rows);
  for (let c = 0; c < k; c++) {
    centroids.set(data.subarray(chosen * dim, (chosen + 1) * dim), c * dim);
    let total = 0;
    for (let i = 0; i < rows; i++) {
      const d = squaredDistance(data, i * dim, centroids, c * dim, dim);
      if (d < nearest[i]!) nearest[i] = d;
      total += nearest[i]!;
    }
    if (c === k - 1) break;
    if (total <= 0) {
      // Every point coincides with a centre already: take the first row not yet used as a centre.
      chosen = (chosen + 1) % rows;
      continue;
    }
    let target = random() * total;
    chosen = rows - 1;
    for (let i = 0; i < rows; i++) {
      target -= nearest[i]!;
      if (target < 0) {
        chosen = i;
        break;
      }
    }
  }
  return centroids;
}

function squaredNorms(data: Float32Array, rows: number, dim: number): Float64Array {
  const out = new Float64Array(rows);
  for (let i = 0; i < rows; i++) {
    let s = 0;
    for (let j = i * dim, end = j + dim; j < end; j++) s += data[j]! * data[j]!;
    out[i] = s;
  }
  return out;
}

/**
 * Assigns each row to its nearest centroid; fills `distances` with squared distances and returns how many
 * rows changed cluster. ‖x − c‖² = ‖x‖² + ‖c‖² − 2 x·c: one multiply-add per coordinate in the inner loop.
 */
function assignRows(data: Float32Array, rows: number, dim: number, rowNorms: Float64Array, centroids: Float32Array, k: number, assignments: Int32Array, distances: Float64Array): number {
  const centroidNorms = squaredNorms(centroids, k, dim);
  let changed = 0;
  for (let i = 0; i < rows; i++) {
    const offset = i * dim;
    let best = 0;
    let bestScore = Infinity;
    for (let c = 0; c < k; c++) {
      const base = c * dim;
      let dot = 0;
      for (let j = 0; j < dim; j++) dot += data[offset + j]! * centroids[base + j]!;
      const score = centroidNorms[c]! - 2 * dot;
      if (score < bestScore) {
        bestScore = score;
        best = c;
      }
    }
    distances[i] = Math.max(0, rowNorms[i]! + bestScore);
    if (assignments[i] !== best) {
      assignments[i] = best;
      changed++;
    }
  }
  return changed;
}

/** Lloyd iterations from the given centroids (updated in place). An emptied cluster takes the point farthest from its centre. */
export function lloyd(points: Matrix, centroids: Float32Array, k: number, maxIterations = 100, tolerance = 0): KMeansResult {
  const { data, rows, dim } = points;
  const rowNorms = squaredNorms(data, rows, dim);
  const assignments = new Int32Array(rows).fill(-1);
  const distances = new Float64Array(rows);
  const sums = new Float64Array(k * dim);
  const counts = new Int32Array(k);
  let iterations = 0;
  let converged = false;
  while (iterations < maxIterations) {
    iterations++;
    const changed = assignRows(data, rows, dim, rowNorms, centroids, k, assignments, distances);
    if (changed <= tolerance * rows && iterations > 1) {
      converged = true;
      break;
    }
    sums.fill(0);
    counts.fill(0);
    for (let i = 0; i < rows; i++) {
      const c = assignments[i]!;
      counts[c]!++;
      const offset = i * dim;
      const target = c * dim;
      for (let j = 0; j < dim; j++) sums[target + j] += data[offset + j]!;
    }
    for (let c = 0; c < k; c++) {
      if (counts[c] === 0) {
        let farthest = 0;
        for (let i = 1; i < rows; i++) if (distances[i]! > distances[farthest]!) farthest = i;
        centroids.set(data.subarray(farthest * dim, (farthest + 1) * dim), c * dim);
        distances[farthest] = 0;
        continue;
      }
      for (let j = 0; j < dim; j++) centroids[c * dim + j] = sums[c * dim + j]! / counts[c]!;
    }
  }
  if (!converged) assignRows(data, rows, dim, rowNorms, centroids, k, assignments, distances);
  let inertia = 0;
  for (let i = 0; i < rows; i++) inertia += distances[i]!;
  return { centroids, k, assignments, iterations, converged, inertia };
}

/** k-means++ seeding then Lloyd iterations; k is clamped to the number of points. */
export function kmeans(points: Matrix, options: KMeansOptions): KMeansResult {
  const k = Math.min(options.k, points.rows);
  if (k === 0) return { centroids: new Float32Array(0), k: 0, assignments: new Int32Array(0), iterations: 0, converged: true, inertia: 0 };
  const random = seededRandom(options.seed ?? DEFAULT_SEED);
  let best: KMeansResult | undefined;
  for (let run = 0; run < Math.max(1, options.restarts ?? 1); run++) {
    const result = lloyd(points, kmeansPlusPlus(points, k, random), k, options.maxIterations ?? 100, options.tolerance ?? 0);
    if (!best || result.inertia < best.inertia) best = result;
  }
  return best!;
}

/** Means of the rows of each cluster in the current vectors (clusters without rows stay zero). */
export function clusterMeans(points: Matrix, assignments: Int32Array, k: number): Float32Array {
  const { data, rows, dim } = points;
  const sums = new Float64Array(k * dim);
  const counts = new Int32Array(k);
  for (let i = 0; i < rows; i++) {
    const c = assignments[i]!;
    if (c < 0 || c >= k) continue;
    counts[c]!++;
    for (let j = 0; j < dim; j++) sums[c * dim + j] += data[i * dim + j]!;
  }
  const out = new Float32Array(k * dim);
  for (let c = 0; c < k; c++) if (counts[c]) for (let j = 0; j < dim; j++) out[c * dim + j] = sums[c * dim + j]! / counts[c]!;
  return out;
}
