import type { WorkerPool } from '../pool';
import type { FitOptions } from './fit';
import type { EmbedTask, EmbedTaskResult, FitTask } from './protocol';
import type { SerializedModel } from './serialize';
import { modelInfo } from './serialize';
import { unpackSparse, type SparseVector } from './sparse';

export { MIN_DOCS_FOR_CORPUS_MODEL, MODEL_FORMAT_VERSION, DEFAULT_LSA_DIM, type EmbeddingModel } from './model';
export { serializeModel, deserializeModel, modelInfo, type SerializedModel } from './serialize';
export { fitModel as fitModelSync, type FitOptions } from './fit';
export { embedText, embedBatch, recognisedWords, isZeroVector, type EmbeddedText, type EmbeddedBatch } from './embed';
export { rerankCandidates, rankByScore, type RerankOptions } from './rerank';
export { textToTfidf, sparseDot, packSparse, unpackSparse, type SparseVector, type PackedSparse } from './sparse';
export { loadWordVectors, defaultWordVectorCacheFile, type WordVectors } from './word-vectors';

/** Texts per worker task: big enough to amortise messaging, small enough to spread over the pool. */
export const EMBED_BATCH_SIZE = 256;

export interface EmbedOptions {
  /** binary word-vector cache file, forwarded to workers (default: $KINDRED_DATA_DIR/cache/…) */
  wordVectorCacheFile?: string;
}

export interface EmbeddedTexts {
  readonly dim: number;
  readonly modelId: string;
  /** texts.length rows of `dim` floats */
  readonly vectors: Float32Array;
  readonly recognisedWords: Uint32Array;
  /** per text, for `rerankCandidates` (empty vectors with the word-vector model) */
  readonly sparse: SparseVector[];
}

/** Fits a model from the corpus texts in a worker; returns SharedArrayBuffer-backed bytes to persist or share. */
export function fitModel(pool: WorkerPool, texts: string[], options?: FitOptions): Promise<SerializedModel> {
  const task: FitTask = { texts, options };
  return pool.run<SerializedModel>('embed-fit', task);
}

function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Embeds texts in parallel batches; full detail (vectors, recognised-word counts, TF-IDF terms). */
export async function embedTextsDetailed(pool: WorkerPool, model: SerializedModel, texts: string[], options: EmbedOptions & { withSparse?: boolean } = {}): Promise<EmbeddedTexts> {
  const { id, dim } = modelInfo(model);
  const parts = await Promise.all(
    batches(texts, EMBED_BATCH_SIZE).map((chunk) => {
      const task: EmbedTask = { model, texts: chunk, withSparse: options.withSparse ?? true, wordVectorCacheFile: options.wordVectorCacheFile };
      return pool.run<EmbedTaskResult>('embed', task);
    }),
  );
  const vectors = new Float32Array(texts.length * dim);
  const recognised = new Uint32Array(texts.length);
  const sparse: SparseVector[] = [];
  let row = 0;
  for (const part of parts) {
    if (part.modelId !== id) throw new Error(`embedding worker used model ${part.modelId}, expected ${id}`);
    vectors.set(part.vectors, row * dim);
    recognised.set(part.recognisedWords, row);
    const n = part.recognisedWords.length;
    if (part.sparse) sparse.push(...unpackSparse(part.sparse));
    row += n;
  }
  return { dim, modelId: id, vectors, recognisedWords: recognised, sparse };
}

/** Embeds texts into `texts.length` rows of `modelInfo(model).dim` floats. */
export async function embedTexts(pool: WorkerPool, model: SerializedModel, texts: string[], options: EmbedOptions = {}): Promise<Float32Array> {
  if (texts.length === 0) return new Float32Array(0);
  if (texts.length <= EMBED_BATCH_SIZE) {
    const task: EmbedTask = { model, texts, withSparse: false, wordVectorCacheFile: options.wordVectorCacheFile };
    return (await pool.run<EmbedTaskResult>('embed', task)).vectors;
  }
  return (await embedTextsDetailed(pool, model, texts, { ...options, withSparse: false })).vectors;
}
