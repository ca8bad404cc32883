import { move, transferableSymbol, valueSymbol } from 'piscina';
import { embedBatch } from '../src/embedding/embed';
import { ModelCache } from '../src/embedding/model-cache';
import type { EmbedTask, EmbedTaskResult } from '../src/embedding/protocol';
import { packSparse } from '../src/embedding/sparse';
import { defaultWordVectorCacheFile, loadWordVectors } from '../src/embedding/word-vectors';

const models = new ModelCache();

/** Texts + model → L2-normalised Float32Array rows (and optionally TF-IDF terms), buffers transferred back. */
export default function embed(task: EmbedTask): EmbedTaskResult {
  const model = models.get(task.model);
  const wordVectors = model.kind === 'word-vectors' ? loadWordVectors(task.wordVectorCacheFile ?? defaultWordVectorCacheFile(), task.wordVectors) : undefined;
  const batch = embedBatch(model, task.texts, wordVectors);
  const sparse = task.withSparse ? packSparse(batch.sparse) : undefined;
  const result: EmbedTaskResult = {
    modelId: model.id, dim: batch.dim, vectors: batch.vectors, sparse, ...(wordVectors && !task.wordVectors ? { wordVectors: wordVectors.shared } : {}),
  };
  const transfer: ArrayBuffer[] = [batch.vectors.buffer as ArrayBuffer];
  if (sparse) transfer.push(sparse.offsets.buffer as ArrayBuffer, sparse.ids.buffer as ArrayBuffer, sparse.weights.buffer as ArrayBuffer);
  return move({ [transferableSymbol]: transfer, [valueSymbol]: result }) as unknown as EmbedTaskResult;
}
