/**
 * Fit-time document neighbourhoods for bench/second-stage.ts (issue 32, eighth session): each train row's exact
 * k nearest train rows by dense cosine, k-means clusters of the train rows, and the document-side transforms and
 * re-rankings built on them (cluster smoothing, document expansion by neighbours, shared-nearest-neighbour scores).
 */
import { kmeans } from '../src/clustering/kmeans';
import { normaliseInPlace, type SparseVector } from '../src/embedding';

/** Each row's `k` nearest other rows (row-major n × k, best first) and their cosines. */
export interface Neighbours {
  k: number;
  ids: Int32Array;
  sims: Float32Array;
}

/** Exact all-pairs k nearest neighbours of the rows (dot products of L2-normalised rows), the row itself left out. */
export function nearestNeighbours(vectors: Float32Array, dim: number, k: number): Neighbours {
  const n = vectors.length / dim;
  const ids = new Int32Array(n * k).fill(-1);
  const sims = new Float32Array(n * k).fill(-Infinity);
  const scores = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const o = i * dim;
    for (let r = 0; r < n; r++) {
      let s = 0;
      const p = r * dim;
      for (let j = 0; j < dim; j++) s += vectors[o + j]! * vectors[p + j]!;
      scores[r] = s;
    }
    scores[i] = -Infinity;
    const base = i * k;
    for (let r = 0; r < n; r++) {
      const s = scores[r]!;
      if (s <= sims[base + k - 1]!) continue;
      let p = k - 1;
      while (p > 0 && sims[base + p - 1]! < s) {
        sims[base + p] = sims[base + p - 1]!;
        ids[base + p] = ids[base + p - 1]!;
        p--;
      }
      sims[base + p] = s;
      ids[base + p] = r;
    }
  }
  return { k, ids, sims };
}

/** The first `k` of each row's neighbours (k ≤ the list's). */
export function firstNeighbours(all: Neighbours, k: number): Neighbours {
  if (k === all.k) return all;
  const n = all.ids.length / all.k;
  const ids = new Int32Array(n * k);
  const sims = new Float32Array(n * k);
  for (let i = 0; i < n; i++) {
    ids.set(all.ids.subarray(i * all.k, i * all.k + k), i * k);
    sims.set(all.sims.subarray(i * all.k, i * all.k + k), i * k);
  }
  return { k, ids, sims };
}

/**
 * Document expansion by neighbours: each row replaced by (1 − w) · row + w · mean of its k nearest rows,
 * L2-normalised (queries unchanged).
 */
export function expandedByNeighbours(vectors: Float32Array, dim: number, neighbours: Neighbours, weight: number): Float32Array {
  const n = vectors.length / dim;
  const out = new Float32Array(vectors.length);
  const row = new Float32Array(dim);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < dim; j++) row[j] = (1 - weight) * vectors[i * dim + j]!;
    let count = 0;
    for (let t = 0; t < neighbours.k; t++) if (neighbours.ids[i * neighbours.k + t]! >= 0) count++;
    for (let t = 0; t < neighbours.k; t++) {
      const r = neighbours.ids[i * neighbours.k + t]!;
      if (r < 0) continue;
      for (let j = 0; j < dim; j++) row[j]! += (weight / count) * vectors[r * dim + j]!;
    }
    out.set(row, i * dim);
    normaliseInPlace(out.subarray(i * dim, (i + 1) * dim));
  }
  return out;
}

/** k-means clusters of the rows: each row's centroid (the mean of its cluster's rows, not normalised). */
export function clusterCentroids(vectors: Float32Array, dim: number, clusters: number): Float32Array {
  const n = vectors.length / dim;
  const result = kmeans({ data: vectors, rows: n, dim }, { k: clusters, maxIterations: 30, tolerance: 0.002 });
  const out = new Float32Array(vectors.length);
  for (let i = 0; i < n; i++) {
    const c = result.assignments[i]!;
    out.set(result.centroids.subarray(c * dim, (c + 1) * dim), i * dim);
  }
  return out;
}

/**
 * Cluster smoothing (Liu & Croft 2004): each row + β · its cluster's centroid, so q · row' = sim(q, d) + β · sim(q,
 * centroid); `normalise` makes it a mixed unit vector instead.
 */
export function smoothedByClusters(vectors: Float32Array, dim: number, centroids: Float32Array, beta: number, normalise: boolean): Float32Array {
  const n = vectors.length / dim;
  const out = new Float32Array(vectors.length);
  const row = new Float32Array(dim);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < dim; j++) row[j] = vectors[i * dim + j]! + beta * centroids[i * dim + j]!;
    out.set(row, i * dim);
    if (normalise) normaliseInPlace(out.subarray(i * dim, (i + 1) * dim));
  }
  return out;
}

/**
 * Shared-nearest-neighbour scores: for each candidate (train rows), the share of the query's best `top` (train rows)
 * among the candidate's stored neighbours, plus the candidate itself being among the best's neighbours.
 */
export function sharedNeighbourScores(candidates: readonly number[], best: readonly number[], neighbours: Neighbours): Float32Array {
  const inBest = new Set(best);
  const out = new Float32Array(candidates.length);
  candidates.forEach((c, i) => {
    let shared = 0;
    for (let t = 0; t < neighbours.k; t++) if (inBest.has(neighbours.ids[c * neighbours.k + t]!)) shared++;
    out[i] = shared / Math.max(1, Math.min(neighbours.k, best.length));
  });
  return out;
}

/**
 * Document expansion in the second stage's term space: each row's TF-IDF terms mixed with the mean of its k nearest
 * rows' terms, (1 − w) · own + w · mean, the `cap(own length)` heaviest terms kept, L2-normalised.
 */
export function expandedSparse(
  rows: readonly SparseVector[], neighbours: Neighbours, weight: number, cap: (length: number) => number,
): SparseVector[] {
  return rows.map((own, i) => {
    const mixed = new Map<number, number>();
    own.ids.forEach((id, t) => mixed.set(id, (1 - weight) * own.weights[t]!));
    const near: number[] = [];
    for (let t = 0; t < neighbours.k; t++) if (neighbours.ids[i * neighbours.k + t]! >= 0) near.push(neighbours.ids[i * neighbours.k + t]!);
    for (const r of near) {
      const v = rows[r]!;
      v.ids.forEach((id, t) => mixed.set(id, (mixed.get(id) ?? 0) + (weight / near.length) * v.weights[t]!));
    }
    const kept = [...mixed].sort((x, y) => y[1] - x[1]).slice(0, Math.max(1, Math.round(cap(own.ids.length))));
    kept.sort((x, y) => x[0] - y[0]);
    const norm = Math.hypot(...kept.map(([, w]) => w)) || 1;
    return { ids: Uint32Array.from(kept, ([id]) => id), weights: Float32Array.from(kept, ([, w]) => w / norm) };
  });
}
