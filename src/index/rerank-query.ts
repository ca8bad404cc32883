import type { LsaModel } from '../embedding/model';
import { textToTfidf, type SparseVector } from '../embedding/sparse';

/** The TF-IDF query for several texts: the normalised sum of their (normalised) vectors. */
export function combinedQuery(model: LsaModel, texts: readonly string[]): SparseVector {
  if (texts.length === 1) return textToTfidf(model, texts[0], model.language);
  const sum = new Map<number, number>();
  for (const text of texts) {
    const v = textToTfidf(model, text, model.language);
    for (let i = 0; i < v.ids.length; i++) sum.set(v.ids[i], (sum.get(v.ids[i]) ?? 0) + v.weights[i]);
  }
  const ids = Uint32Array.from([...sum.keys()].sort((a, b) => a - b));
  const weights = Float32Array.from(ids, (id) => sum.get(id)!);
  const norm = Math.hypot(...weights) || 1;
  for (let i = 0; i < weights.length; i++) weights[i] /= norm;
  return { ids, weights };
}
