export { VectorIndex } from './vector-index';
export type { ApproximateTrial, QueryTerms, SecondStageQuery, StoredQuery, TextQuery, VectorIndexOptions, SearchOptions, Hit } from './vector-index';
export type { ApproximateOptions } from './approximate';
export { rankDescending } from './rank';
