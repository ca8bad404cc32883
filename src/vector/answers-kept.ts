/** An answer of a similarity search: what the share of an exact answer kept is measured on. */
export interface ScoredAnswer {
  id: string;
  score: number;
}

/**
 * How many of `exact`'s answers `approximate` keeps, where an answer of `approximate` that `exact` lacks but that
 * ties `exact`'s last score counts as kept: among tied answers the exact one's were cut by id, and another path may
 * hold other members of the same tie. Without this, one document with dozens of duplicates (identical Debian
 * descriptions: similarity 1 to all of them) cost a 24-query probe tuning 0.033 at every probe, all lists included,
 * and the tuner chose to probe them all (docs/decisions/throughput.md, "Eleventh session").
 */
export function answersKept(exact: readonly ScoredAnswer[], approximate: readonly ScoredAnswer[]): number {
  if (exact.length === 0) return 0;
  const truth = new Set(exact.map((a) => a.id));
  const last = exact[exact.length - 1]!.score;
  let kept = 0;
  for (const a of approximate) if (truth.has(a.id) || a.score === last) kept++;
  return Math.min(kept, exact.length);
}
