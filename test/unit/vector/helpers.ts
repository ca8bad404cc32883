/** Deterministic test data and a plain-JS reference for vector search. */
export { seededRandom as rng } from '../../../src/random';

export function randomUnit(dim: number, next: () => number): Float32Array {
  const v = new Float32Array(dim);
  let sum = 0;
  for (let i = 0; i < dim; i++) {
    v[i] = next() * 2 - 1;
    sum += v[i] * v[i];
  }
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < dim; i++) v[i] *= inv;
  return v;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Exact top-k by brute force over a Map of vectors. */
export function referenceTopK(
  vectors: Map<string, Float32Array>, q: Float32Array, k: number, keep: (id: string) => boolean = () => true,
): Array<{ id: string; score: number }> {
  const all: Array<{ id: string; score: number }> = [];
  for (const [id, v] of vectors) if (keep(id)) all.push({ id, score: dot(v, q) });
  all.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  return all.slice(0, k);
}
