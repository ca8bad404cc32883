import { ModelCache } from '../src/embedding/model-cache';
import { rerankCandidates } from '../src/embedding/rerank';
import type { PackedSparse } from '../src/embedding/sparse';
import type { SerializedModel } from '../src/embedding/serialize';
import { combinedQuery } from '../src/index/rerank-query';

export interface RerankTask {
  model: SerializedModel;
  queryTexts: string[];
  /** The candidates' TF-IDF terms, kept from ingest. */
  candidates: PackedSparse;
  denseScores: Float32Array;
  /** The candidates' dense vectors, one row each in candidate order (dense pseudo-relevance feedback). */
  candidateVectors: Float32Array;
}

const models = new ModelCache();

/**
 * Second stage of content recommendations: rescores the vector index's candidates by TF-IDF
 * cosine with pseudo-relevance feedback in both spaces, blended with the dense score (corpus models only).
 */
export default function rerank(task: RerankTask): Float32Array {
  const model = models.get(task.model);
  if (model.kind !== 'lsa') return task.denseScores;
  return rerankCandidates(combinedQuery(model, task.queryTexts), task.candidates, {
    ...model.shape?.weights, denseScores: task.denseScores, candidateVectors: task.candidateVectors,
  });
}
