import type { EmbeddingModel, LsaModel, WordVectorModel } from './model';
import { EMPTY_SPARSE, tfidfVector, type SparseVector } from './sparse';
import { analyze, words as wordsOf } from '../text';
import type { WordVectors } from './word-vectors';

/** What one text becomes: the dense row for the vector index, plus what the second stage needs. */
export interface EmbeddedText {
  /** L2-normalised, or all zeros when no word of the text is known (see `isZeroVector`) */
  readonly vector: Float32Array;
  /** TF-IDF terms for `rerankCandidates` (empty for the word-vector model) */
  readonly sparse: SparseVector;
}

/** Scales `v` to unit length (a zero vector stays zero). */
export function normaliseInPlace(v: Float32Array): void {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  if (s === 0) return;
  const inv = 1 / Math.sqrt(s);
  for (let i = 0; i < v.length; i++) v[i]! *= inv;
}

export function isZeroVector(v: Float32Array): boolean {
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return false;
  return true;
}

/** out += Σ_k w_k · projection[id_k] (kept monomorphic and tiny so V8 optimises the hot loop). */
function projectInto(projection: Float32Array, dim: number, sparse: SparseVector, out: Float32Array): void {
  const ids = sparse.ids;
  const weights = sparse.weights;
  for (let k = 0; k < ids.length; k++) {
    const w = weights[k]!;
    let o = ids[k]! * dim;
    for (let j = 0; j < dim; j++) out[j]! += w * projection[o++]!;
  }
}

function embedLsa(model: LsaModel, text: string, out: Float32Array): EmbeddedText {
  const sparse = tfidfVector(model, analyze(text, { hint: model.language }).terms);
  projectInto(model.projection, model.dim, sparse, out);
  normaliseInPlace(out);
  return { vector: out, sparse };
}

/** Zipf estimate of a word's probability from its frequency rank (the GloVe list is ordered by frequency). */
function zipfProbability(rank: number, vocabularySize: number): number {
  return 1 / ((rank + 1) * (Math.log(vocabularySize) + 0.5772));
}

function embedWordVectors(model: WordVectorModel, wv: WordVectors, text: string, out: Float32Array): EmbeddedText {
  const dim = Math.min(model.dim, wv.dim);
  for (const word of wordsOf(text)) {
    const row = wv.index.get(word);
    if (row === undefined) continue;
    const weight = model.sifA / (model.sifA + zipfProbability(row, wv.size));
    const o = row * wv.dim;
    for (let j = 0; j < dim; j++) out[j]! += weight * wv.vectors[o + j]!;
  }
  normaliseInPlace(out);
  return { vector: out, sparse: EMPTY_SPARSE };
}

/**
 * Embeds one text. `out` (optional) is a zeroed row of `model.dim` floats to write into, e.g. a subarray of a
 * batch buffer. The word-vector model needs `wordVectors` (load once per thread with `loadWordVectors`).
 */
export function embedText(model: EmbeddingModel, text: string, wordVectors?: WordVectors, out?: Float32Array): EmbeddedText {
  const row = out ?? new Float32Array(model.dim);
  if (model.kind === 'lsa') return embedLsa(model, text, row);
  if (!wordVectors) throw new Error('the word-vector model needs word vectors loaded');
  return embedWordVectors(model, wordVectors, text, row);
}

export interface EmbeddedBatch {
  /** texts.length rows of `dim` floats */
  readonly vectors: Float32Array;
  readonly dim: number;
  readonly sparse: SparseVector[];
}

export function embedBatch(model: EmbeddingModel, texts: readonly string[], wordVectors?: WordVectors): EmbeddedBatch {
  const dim = model.dim;
  const vectors = new Float32Array(texts.length * dim);
  const sparse: SparseVector[] = [];
  texts.forEach((text, i) => {
    const e = embedText(model, text, wordVectors, vectors.subarray(i * dim, (i + 1) * dim));
    sparse.push(e.sparse);
  });
  return { vectors, dim, sparse };
}
