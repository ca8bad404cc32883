import type { Csr } from '../als/csr';
import type { AlsParams } from '../als/train';
import type { ContentMap } from './content-map';
import type { BlendWeights } from './scoring';

export const HYBRID_MODEL_FORMAT = 1;

export interface HybridParams {
  als: AlsParams;
  /** EASE lambda; the item-item component is built only when items <= maxItemItemItems. */
  itemItemLambda: number;
  maxItemItemItems: number;
  /** Ridge penalty of the content -> factors map (cold start). */
  contentRidge: number;
  weights: BlendWeights;
}

/** A trained hybrid model: plain data (typed arrays, id lists, numbers), so it can be persisted and swapped whole. */
export interface HybridModel {
  format: number;
  trainedAt: string;
  params: HybridParams;
  userIds: string[];
  itemIds: string[];
  k: number;
  /** users x k */
  userFactors: Float32Array;
  /** items x k */
  itemFactors: Float32Array;
  /** itemFactors^T itemFactors (k x k, no regularisation), for folding in users the model did not see. */
  itemGram: Float64Array;
  /** Training interactions, user x item (counts). */
  userItems: Csr;
  /** Interactions per item in the training data. */
  itemCounts: Float32Array;
  /** EASE weights (items x items) or empty. */
  itemItem: Float32Array;
  contentMap: ContentMap | null;
  /** Anything measured at training time (seconds per iteration, final loss, held-out P@10 ...). */
  metrics: Record<string, number>;
}
