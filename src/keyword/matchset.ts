/** Matching documents in increasing doc-number order, each with its score. */
export interface MatchSet {
  docs: Uint32Array;
  scores: Float64Array;
}

export const EMPTY: MatchSet = { docs: new Uint32Array(0), scores: new Float64Array(0) };

export function constantSet(docs: Uint32Array, score: number): MatchSet {
  const scores = new Float64Array(docs.length);
  scores.fill(score);
  return { docs, scores };
}

/** Intersection; scores are summed, or taken from `a` alone when `scoreB` is false. */
export function intersect(a: MatchSet, b: MatchSet, scoreB: boolean): MatchSet {
  const n = Math.min(a.docs.length, b.docs.length);
  const docs = new Uint32Array(n);
  const scores = new Float64Array(n);
  let i = 0, j = 0, k = 0;
  const ad = a.docs, bd = b.docs;
  while (i < ad.length && j < bd.length) {
    const x = ad[i], y = bd[j];
    if (x === y) {
      docs[k] = x;
      scores[k++] = scoreB ? a.scores[i] + b.scores[j] : a.scores[i];
      i++; j++;
    } else if (x < y) i++;
    else j++;
  }
  return { docs: docs.subarray(0, k), scores: scores.subarray(0, k) };
}

export function subtract(a: MatchSet, b: MatchSet): MatchSet {
  if (b.docs.length === 0) return a;
  const docs = new Uint32Array(a.docs.length);
  const scores = new Float64Array(a.docs.length);
  let j = 0, k = 0;
  for (let i = 0; i < a.docs.length; i++) {
    const x = a.docs[i];
    while (j < b.docs.length && b.docs[j] < x) j++;
    if (j < b.docs.length && b.docs[j] === x) continue;
    docs[k] = x;
    scores[k++] = a.scores[i];
  }
  return { docs: docs.subarray(0, k), scores: scores.subarray(0, k) };
}

export function scaled(m: MatchSet, boost: number): MatchSet {
  if (boost === 1) return m;
  const scores = new Float64Array(m.scores.length);
  for (let i = 0; i < scores.length; i++) scores[i] = m.scores[i] * boost;
  return { docs: m.docs, scores };
}
