import { move, transferableSymbol, valueSymbol } from 'piscina';
import { ModelCache } from '../src/embedding/model-cache';
import { rerankCandidates } from '../src/embedding/rerank';
import { combinedQuery } from '../src/index/rerank-query';
import { KernelCache } from '../src/index/vector/kernel-cache';
import { answerQuery, type QueryResult, type QueryTask, type Rerank } from '../src/index/vector/query-task';

const kernels = new KernelCache();
const models = new ModelCache();

/**
 * The second stage (corpus models): the candidates rescored by TF-IDF cosine with pseudo-relevance feedback in
 * both spaces, blended with the dense score.
 */
const rerank: Rerank = (second, { terms, dense, vectors }, queryTerms) => {
  const model = models.get(second.model);
  if (model.kind !== 'lsa') return dense;
  return rerankCandidates(queryTerms ?? combinedQuery(model, second.texts ?? []), terms, { denseScores: dense, candidateVectors: vectors });
};

/** One content query, whole: search, candidates, second stage (src/index/vector/query-task.ts). */
export default function contentSearch(task: QueryTask): QueryResult {
  const result = answerQuery(task, kernels.of(task.store, task.memory), rerank);
  return move({ [transferableSymbol]: [result.rows.buffer, result.scores.buffer], [valueSymbol]: result }) as unknown as QueryResult;
}
