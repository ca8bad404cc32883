/**
 * Latencies in fixed log-scale bins: 10 µs to ~170 s, four bins per doubling (each bin ~19% wide),
 * so a quantile read from the bins is within ~10% of the true value and recording costs one log2.
 */
export const HISTOGRAM_BINS = 96;
const LOWEST_SECONDS = 1e-5;
const BINS_PER_DOUBLING = 4;

export function binOf(seconds: number): number {
  if (!(seconds > LOWEST_SECONDS)) return 0;
  const bin = Math.floor(Math.log2(seconds / LOWEST_SECONDS) * BINS_PER_DOUBLING);
  return Math.min(HISTOGRAM_BINS - 1, bin);
}

/** Geometric middle of a bin, in seconds. */
export function binValue(bin: number): number {
  return LOWEST_SECONDS * 2 ** ((bin + 0.5) / BINS_PER_DOUBLING);
}

export function newBins(): Uint32Array {
  return new Uint32Array(HISTOGRAM_BINS);
}

/** The q-quantile (0..1) of the recorded values, in seconds; 0 when nothing was recorded. */
export function quantileOf(bins: Uint32Array, q: number): number {
  let total = 0;
  for (const n of bins) total += n;
  if (total === 0) return 0;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let bin = 0; bin < bins.length; bin++) {
    seen += bins[bin]!;
    if (seen >= rank) return binValue(bin);
  }
  return binValue(bins.length - 1);
}
