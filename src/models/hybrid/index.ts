/** The hybrid recommender's public surface: training, persistence, serving. */
export { DEFAULT_ALS_PARAMS, validateParams, type AlsParams, type IterationReport } from '../als/train';
export type { TaskRunner } from '../als/executor';
export { DEFAULT_HYBRID_PARAMS, interactionsFromPairs, trainHybrid, type ContentVectors, type HybridTrainOptions, type Interactions } from './train';
export { HYBRID_MODEL_FORMAT, type HybridModel, type HybridParams } from './model';
export { deserialiseModel, serialiseModel } from './serialise';
export { evaluateHoldout, type HoldoutOptions } from './holdout';
export type { RankingMetrics } from './evaluate';
export type { BlendWeights } from './scoring';
export {
  HybridRecommender,
  type HybridAnswer,
  type RecommenderOptions,
  type Restrictions,
  type ScoredId,
  type SimilarRequest,
  type UserRecommendationRequest,
} from './recommender';
