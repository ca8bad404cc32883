import type { PackedSparse, SparseVector } from './sparse';
import { gather } from './sparse-kernel';

/**
 * Candidates' terms where they are: candidate c's are positions [starts[c], ends[c]) of `ids` and `weights` (a pool
 * thread reads them in the key's shared term arrays, no copy). A PackedSparse is the case starts = offsets[0…n-1],
 * ends = offsets[1…n].
 */
export interface SparseSpans {
  starts: Uint32Array;
  ends: Uint32Array;
  /** 16-bit in a key's term arrays (sparse-rows.ts), 32-bit when packed */
  ids: Uint16Array | Uint32Array;
  weights: Float32Array;
}

export function spansOfPacked(packed: PackedSparse): SparseSpans {
  const n = packed.offsets.length - 1;
  return { starts: packed.offsets.subarray(0, n), ends: packed.offsets.subarray(1), ids: packed.ids, weights: packed.weights };
}

export interface RerankOptions {
  /** pseudo-relevance feedback: the m best candidates by direct TF-IDF cosine; default 3 */
  feedbackDocs?: number;
  /** weight a of the feedback term; default 2 */
  feedbackWeight?: number;
  /** each candidate's first-stage dense cosine (the vector index's score), same order as the candidates */
  denseScores?: Float32Array;
  /** weight λ of the dense score when `denseScores` is given; default 0.6 */
  denseWeight?: number;
  /** the candidates' dense rows (N × dim, same order): adds dense pseudo-relevance feedback */
  candidateVectors?: Float32Array;
  /** weight μ of the dense feedback term when `candidateVectors` is given; default 1 */
  denseFeedbackWeight?: number;
  /**
   * Instead of `candidateVectors`: each candidate's dot product with the mean of the candidates at `positions` (the
   * feedback documents), computed where the vectors are (a pool thread's kernel over the key's shared rows).
   */
  denseFeedbackOf?: (positions: readonly number[]) => Float32Array;
}

/**
 * Second stage for "similar to text / document(s)" over a dense-retrieved candidate set (e.g. the vector index's
 * top 200). Scores each candidate c by TF-IDF cosine with the query, pseudo-relevance feedback and the dense score:
 *
 *   score(c) = (cos(q, c) + a · mean_{f ∈ F} cos(f, c) + λ · dense(q, c) + μ · mean_{f ∈ F} dense(f, c)) / (1 + a + λ + μ)
 *
 * where F = the m candidates with the highest cos(q, ·); the λ term needs `denseScores`, the μ term
 * `candidateVectors` (each is left out when not given). The feedback term equals re-querying with q + a·mean(F)
 * in TF-IDF space, restricted to the candidates. Pure; about N·(m+1) sparse dot products.
 * The candidates come packed (candidate c = positions [offsets[c], offsets[c + 1])), as they travel between
 * threads: unpacked into an object and two views each, 800 candidates made a quarter of a pool thread's time
 * per query garbage collection (a session's CPU profile at 1M documents; bench/RESULTS.md, ninth part).
 * Returns one score in [0, 1] per candidate, in candidate order (use `rankByScore`).
 */
export function rerankCandidates(query: SparseVector, candidates: PackedSparse | SparseSpans, options: RerankOptions = {}): Float32Array {
  const packed = 'offsets' in candidates ? spansOfPacked(candidates) : candidates;
  const count = packed.starts.length;
  const m = Math.min(options.feedbackDocs ?? 3, count);
  const a = m > 0 ? (options.feedbackWeight ?? 2) : 0;
  const dense = options.denseScores;
  if (dense && dense.length !== count) throw new Error('denseScores must have one score per candidate');
  const lambda = dense ? (options.denseWeight ?? 0.6) : 0;
  const rows = options.candidateVectors;
  const dim = rows && count > 0 ? rows.length / count : 0;
  if (rows && !Number.isInteger(dim)) throw new Error('candidateVectors must hold one row per candidate');
  const feedbackOf = options.denseFeedbackOf;
  const mu = (rows || feedbackOf) && m > 0 ? (options.denseFeedbackWeight ?? 1) : 0;
  const weights = scratchFor(query);
  scatter(weights, query.ids, query.weights);
  const direct = new Float32Array(count);
  gatherInto(weights, packed, 1, direct);
  unscatter(weights, query.ids);
  const feedback = new Float32Array(count);
  const denseFeedback = new Float32Array(count);
  if (m > 0) {
    const top = bestPositions(direct, m);
    // The feedback documents' terms summed where the query's were (one pass each, no map of ids).
    const feedbackWeights = scratchFor(...top.map((c) => ({ ids: packed.ids.subarray(packed.starts[c]!, packed.ends[c]!) })));
    for (const c of top) scatterAdd(feedbackWeights, packed, c);
    gatherInto(feedbackWeights, packed, m, feedback);
    for (const c of top) unscatter(feedbackWeights, packed.ids.subarray(packed.starts[c]!, packed.ends[c]!));
    if (feedbackOf && mu > 0) denseFeedback.set(feedbackOf(top));
    else if (rows && mu > 0) denseFeedbackInto(rows, dim, top, denseFeedback);
  }
  const scores = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    const s = direct[i]! + a * feedback[i]! + (dense ? lambda * Math.max(0, dense[i]!) : 0) + mu * Math.max(0, denseFeedback[i]!);
    scores[i] = Math.min(1, Math.max(0, s / (1 + a + lambda + mu)));
  }
  return scores;
}

/**
 * Dense scratch indexed by term id (grown on demand, kept zeroed between uses): scattering one side once makes
 * every dot product a gather over the candidate's terms only.
 */
let scratch = new Float32Array(0);

/** The scratch, grown to hold every id of `vectors` (ids ascending within each). */
function scratchFor(...vectors: ReadonlyArray<{ ids: Uint16Array | Uint32Array }>): Float32Array {
  let maxId = 0;
  for (const v of vectors) if (v.ids.length > 0) maxId = Math.max(maxId, v.ids[v.ids.length - 1]!);
  if (scratch.length <= maxId) scratch = new Float32Array(Math.max(maxId + 1, scratch.length * 2));
  return scratch;
}

function scatter(weights: Float32Array, ids: Uint32Array, values: Float32Array): void {
  for (let k = 0; k < ids.length; k++) weights[ids[k]!] = values[k]!;
}

/** Adds candidate c's terms to the scratch. */
function scatterAdd(weights: Float32Array, packed: SparseSpans, c: number): void {
  const { ids, weights: values } = packed;
  for (let k = packed.starts[c]!, end = packed.ends[c]!; k < end; k++) weights[ids[k]!]! += values[k]!;
}

function unscatter(weights: Float32Array, ids: Uint16Array | Uint32Array): void {
  for (let k = 0; k < ids.length; k++) weights[ids[k]!] = 0;
}

/** out[c] = (dot product of the scattered `weights` with candidate c) / divisor, for every candidate. */
function gatherInto(weights: Float32Array, packed: SparseSpans, divisor: number, out: Float32Array): void {
  gather(weights, packed.starts, packed.ends, packed.ids, packed.weights, out, divisor);
}

/** out[c] = mean over the feedback rows f of dot(row f, row c). */
function denseFeedbackInto(rows: Float32Array, dim: number, feedbackRows: readonly number[], out: Float32Array): void {
  const mean = new Float32Array(dim);
  for (const f of feedbackRows) for (let j = 0; j < dim; j++) mean[j]! += rows[f * dim + j]! / feedbackRows.length;
  for (let c = 0; c < out.length; c++) {
    let s = 0;
    const o = c * dim;
    for (let j = 0; j < dim; j++) s += mean[j]! * rows[o + j]!;
    out[c] = s;
  }
}

/** The positions of the `m` best scores, best first (ties: lower position first); a pass per position, not a sort (m is a few). */
function bestPositions(scores: Float32Array, m: number): number[] {
  const best: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    let at = best.length;
    while (at > 0 && scores[i]! > scores[best[at - 1]!]!) at--;
    if (at < m) {
      best.splice(at, 0, i);
      if (best.length > m) best.pop();
    }
  }
  return best;
}

/** Candidate indices ordered by score, best first (ties: lower index first, so results are deterministic). */
export function rankByScore(scores: Float32Array): number[] {
  return Array.from(scores.keys()).sort((x, y) => scores[y]! - scores[x]! || x - y);
}
