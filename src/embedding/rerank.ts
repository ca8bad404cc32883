import { sparseDot, type SparseVector } from './sparse';

export interface RerankOptions {
  /** pseudo-relevance feedback: the m best candidates by direct TF-IDF cosine; default 3 */
  feedbackDocs?: number;
  /** weight of the feedback term; default 2 */
  feedbackWeight?: number;
}

/**
 * Second stage for "similar to text/document" over a dense-retrieved candidate set (e.g. the top 200 from the
 * vector index). Scores each candidate by TF-IDF cosine with the query plus pseudo-relevance feedback:
 *
 *   score(c) = (cos(q, c) + a · mean_{f ∈ F} cos(f, c)) / (1 + a),   F = the m candidates most similar to q
 *
 * which equals re-querying with q + a·mean(F) in TF-IDF space, restricted to the candidates. Pure; O(N·m) sparse
 * dot products. Returns one score in [0, 1] per candidate, in candidate order (sort descending to rank).
 */
export function rerankCandidates(query: SparseVector, candidates: readonly SparseVector[], options: RerankOptions = {}): Float32Array {
  const m = Math.min(options.feedbackDocs ?? 3, candidates.length);
  const a = options.feedbackWeight ?? 2;
  const direct = Float32Array.from(candidates, (c) => sparseDot(query, c));
  const scores = new Float32Array(candidates.length);
  if (m === 0 || a === 0) {
    scores.set(direct);
    return scores;
  }
  const order = Array.from(direct.keys()).sort((x, y) => direct[y]! - direct[x]! || x - y);
  const feedback = order.slice(0, m).map((i) => candidates[i]!);
  for (let i = 0; i < candidates.length; i++) {
    let fb = 0;
    for (const f of feedback) fb += sparseDot(f, candidates[i]!);
    scores[i] = Math.min(1, Math.max(0, (direct[i]! + (a * fb) / m) / (1 + a)));
  }
  return scores;
}

/** Candidate indices ordered by score, best first (ties: lower index first, so results are deterministic). */
export function rankByScore(scores: Float32Array): number[] {
  return Array.from(scores.keys()).sort((x, y) => scores[y]! - scores[x]! || x - y);
}
