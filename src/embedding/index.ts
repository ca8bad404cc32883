import type { WorkerPool } from '../pool';
import type { FitOptions } from './fit';
import type { EmbedTask, EmbedTaskResult, FitTask } from './protocol';
import type { SerializedModel } from './serialize';
import { wordVectorModel } from './fit';
import { modelInfo, serializeModel, sharedModelBytes } from './serialize';
import { unpackSparse, type SparseVector } from './sparse';
import { defaultWordVectorCacheFile, type SharedWordVectors } from './word-vectors';

export { MIN_DOCS_FOR_CORPUS_MODEL, MODEL_FORMAT_VERSION, lsaDimensions, RERANK_MIN_DOCS, type EmbeddingModel } from './model';
export { serializeModel, deserializeModel, modelInfo, sharedModelBytes, type ModelInfo, type SerializedModel } from './serialize';
export { shapeBySize, type ModelShape, type ShapeCheck } from './model';
export { fitModel as fitModelSync, type FitOptions } from './fit';
export { embedText, embedBatch, isZeroVector, normaliseInPlace, type EmbeddedText, type EmbeddedBatch } from './embed';
export { rerankCandidates, rankByScore, type RerankOptions } from './rerank';
export { denseCentroid, sparseCentroid } from './centroid';
export { textToTfidf, sparseDot, packSparse, unpackSparse, type SparseVector, type PackedSparse } from './sparse';
export { loadWordVectors, defaultWordVectorCacheFile, type WordVectors } from './word-vectors';

/** Whether similar-to-text/-document queries should go through `rerankCandidates` with this model. */
export function usesSecondStage(model: SerializedModel): boolean {
  const info = modelInfo(model);
  return info.kind === 'lsa' && info.shape.secondStage;
}

/** Texts per worker task: big enough to amortise messaging, small enough to spread over the pool. */
export const EMBED_BATCH_SIZE = 256;

/** Word-vector tables a worker read, by cache file: later tasks carry them, so every other thread adopts the same memory. */
const sharedWordVectors = new Map<string, SharedWordVectors>();
/**
 * The task reading a table, by cache file: word-vector tasks wait for it and adopt its table. Without the wait a
 * request arriving while the table was read at start had the other thread read a second copy (136 MB).
 */
const readingWordVectors = new Map<string, Promise<unknown>>();

/** Runs an `embed` task with the shared word-vector table, once a thread has read it. */
async function runEmbed(pool: WorkerPool, model: SerializedModel, texts: readonly string[], withSparse: boolean, options: EmbedOptions): Promise<EmbedTaskResult> {
  const file = options.wordVectorCacheFile ?? defaultWordVectorCacheFile();
  const readsTable = modelInfo(model).kind === 'word-vectors';
  // Awaited only when there is a read to wait for: the first task must reach the pool before others look.
  const reading = readsTable && !sharedWordVectors.has(file) ? readingWordVectors.get(file) : undefined;
  if (reading) await reading;
  const table = sharedWordVectors.get(file);
  const task: EmbedTask = { model, texts, withSparse, wordVectorCacheFile: file, ...(table ? { wordVectors: table } : {}) };
  const running = pool.run<EmbedTaskResult>('embed', task).then((result) => {
    if (result.wordVectors && !sharedWordVectors.has(file)) sharedWordVectors.set(file, result.wordVectors);
    return result;
  });
  if (readsTable && !table && !readingWordVectors.has(file)) {
    readingWordVectors.set(file, running.catch(() => undefined).finally(() => readingWordVectors.delete(file)));
  }
  return running;
}

export interface EmbedOptions {
  /** binary word-vector cache file, forwarded to workers (default: $KINDRED_DATA_DIR/cache/…) */
  wordVectorCacheFile?: string;
  /** Batches in flight at once (default: two per worker); background work takes one, leaving the pool to requests. */
  concurrency?: number;
}

export interface EmbeddedTexts {
  readonly dim: number;
  readonly modelId: string;
  /** texts.length rows of `dim` floats */
  readonly vectors: Float32Array;
  /** per text, for `rerankCandidates` (empty vectors with the word-vector model) */
  readonly sparse: SparseVector[];
}

/**
 * Loads the word vectors in every worker thread ahead of any request, so a new key's first document is not
 * kept waiting (1–3 s a thread from the binary cache). One thread first: the very first start converts the
 * package's JSON into the cache (~40 s), which the other threads then read.
 */
export async function prepareWordVectors(pool: WorkerPool, options: EmbedOptions = {}): Promise<void> {
  const model = sharedModelBytes(serializeModel(wordVectorModel()));
  await runEmbed(pool, model, ['word vectors'], false, options);
  // Tasks submitted together go to idle threads, one each; they adopt the table the first one read.
  await Promise.all(Array.from({ length: pool.threads - 1 }, () => runEmbed(pool, model, ['word vectors'], false, options)));
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

/** Runs `work` over items with at most `limit` in flight (keeps the pool queue bounded for huge imports). */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  });
  await Promise.all(runners);
  return results;
}

/** Embeds texts in parallel batches; full detail (vectors and TF-IDF terms). */
export async function embedTextsDetailed(pool: WorkerPool, model: SerializedModel, texts: string[], options: EmbedOptions & { withSparse?: boolean } = {}): Promise<EmbeddedTexts> {
  const { id, dim } = modelInfo(model);
  const shared = sharedModelBytes(model); // no-op for bytes from serializeModel/fitModel
  const parts = await mapLimited(batches(texts, EMBED_BATCH_SIZE), options.concurrency ?? pool.threads * 2, (chunk) =>
    runEmbed(pool, shared, chunk, options.withSparse ?? true, options));
  const vectors = new Float32Array(texts.length * dim);
  const sparse: SparseVector[] = [];
  let row = 0;
  for (const part of parts) {
    if (part.modelId !== id) throw new Error(`embedding worker used model ${part.modelId}, expected ${id}`);
    vectors.set(part.vectors, row * dim);
    if (part.sparse) sparse.push(...unpackSparse(part.sparse));
    row += part.vectors.length / dim;
  }
  return { dim, modelId: id, vectors, sparse };
}

/** One query text (similar-to-text): its vector and TF-IDF terms for `rerankCandidates`. */
export async function embedQuery(pool: WorkerPool, model: SerializedModel, text: string, options: EmbedOptions = {}): Promise<{ vector: Float32Array; sparse: SparseVector }> {
  const r = await embedTextsDetailed(pool, model, [text], { ...options, withSparse: true });
  return { vector: r.vectors, sparse: r.sparse[0]! };
}

/** Embeds texts into `texts.length` rows of `modelInfo(model).dim` floats. */
export async function embedTexts(pool: WorkerPool, model: SerializedModel, texts: string[], options: EmbedOptions = {}): Promise<Float32Array> {
  if (texts.length === 0) return new Float32Array(0);
  if (texts.length <= EMBED_BATCH_SIZE) {
    return (await runEmbed(pool, sharedModelBytes(model), texts, false, options)).vectors;
  }
  return (await embedTextsDetailed(pool, model, texts, { ...options, withSparse: false })).vectors;
}
