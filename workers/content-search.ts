import { move, transferableSymbol, valueSymbol } from 'piscina';
import { ModelCache } from '../src/embedding/model-cache';
import { rerankCandidates } from '../src/embedding/rerank';
import { combinedQuery } from '../src/index/rerank-query';
import { KernelCache } from '../src/vector/kernel-cache';
import { answerQuery, type Embed, type QueryResult, type QueryStages, type QueryTask, type Rerank } from '../src/vector/query-task';
import { loadFaissAddon } from '../src/vector/faiss-addon';
import { denseCentroid } from '../src/embedding/centroid';
import { embedBatch } from '../src/embedding/embed';
import type { BatchOutcome } from '../src/runtime/task-batches';

const kernels = new KernelCache();
const models = new ModelCache();

/**
 * The second stage (corpus models): the candidates rescored by TF-IDF cosine with pseudo-relevance feedback in
 * both spaces, blended with the dense score.
 */
const rerank: Rerank = (second, { terms, dense, denseFeedbackOf }, queryTerms) => {
  const model = models.get(second.model);
  if (model.kind !== 'lsa') return dense;
  return rerankCandidates(queryTerms ?? combinedQuery(model, second.texts ?? []), terms, { ...model.shape?.weights, denseScores: dense, denseFeedbackOf });
};

/** Query texts (corpus models): their normalised centroid, and their terms as the second stage's query. */
const embed: Embed = (bytes, texts) => {
  const model = models.get(bytes);
  if (model.kind !== 'lsa') throw new Error('query texts are embedded in the pool thread with corpus models only');
  const batch = embedBatch(model, texts);
  const vector = denseCentroid(texts.map((_, row) => batch.vectors.subarray(row * batch.dim, (row + 1) * batch.dim)), batch.dim);
  return { vector, terms: texts.length === 1 ? batch.sparse[0] : combinedQuery(model, texts) };
};

/** FAISS searches of the main thread's approximate indexes, by their shared numbers (null: no addon, or closed). */
const searchShared: QueryStages['searchShared'] = (handle, query, k, nprobe, rows) => loadFaissAddon()?.searchShared(handle, query, k, nprobe, rows) ?? null;

const stages: QueryStages = { rerank, embed, searchShared };

/**
 * Content queries, each whole: search, candidates, second stage (src/vector/query-task.ts). A batch is the queries
 * that waited for a thread together (WorkerPool.runBatched); each gets its own answer or error.
 */
export default function contentSearch(tasks: QueryTask[]): Array<BatchOutcome<QueryResult>> {
  const outcomes: Array<BatchOutcome<QueryResult>> = [];
  // each answer's arrays have buffers of their own (answerQuery), moved rather than copied
  const buffers: ArrayBuffer[] = [];
  for (const task of tasks) {
    try {
      const result = answerQuery(task, kernels.of(task.store, task.memory), stages);
      outcomes.push({ value: result });
      buffers.push(result.rows.buffer as ArrayBuffer, result.scores.buffer as ArrayBuffer);
    } catch (error) {
      outcomes.push({ error });
    }
  }
  return move({ [transferableSymbol]: buffers, [valueSymbol]: outcomes }) as unknown as Array<BatchOutcome<QueryResult>>;
}
