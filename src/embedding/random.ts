/** Standard normal samples by Box–Muller. */
export function gaussianFill(out: Float64Array, rand: () => number): void {
  for (let i = 0; i < out.length; i += 2) {
    const u = Math.max(rand(), 1e-12);
    const v = rand();
    const r = Math.sqrt(-2 * Math.log(u));
    out[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < out.length) out[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
}
