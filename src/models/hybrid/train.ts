import { buildCsr, type Csr } from '../als/csr';
import { type AlsExecutor, InlineExecutor, PoolExecutor, type TaskRunner } from '../als/executor';
import { invertSpdInPlace } from '../als/linalg';
import { DEFAULT_ALS_PARAMS, gramOf, trainAls, type IterationReport } from '../als/train';
import { fitContentMap, type ContentMap } from './content-map';
import { easeFromInverse, itemGram, MAX_EASE_ITEMS } from './item-item';
import { HYBRID_MODEL_FORMAT, type HybridModel, type HybridParams } from './model';

/** Chosen by measurement on MovieLens-100k (bench/results/hybrid.md). */
export const DEFAULT_HYBRID_PARAMS: HybridParams = {
  als: DEFAULT_ALS_PARAMS,
  itemItemLambda: 300,
  maxItemItemItems: MAX_EASE_ITEMS,
  contentRidge: 1,
  weights: { factor: 1, itemItem: 0, content: 0.15, popularity: 0.1 },
};

/** Interactions with their id maps: user u interacted with item i, `counts` times (default 1). */
export interface Interactions {
  userIds: string[];
  itemIds: string[];
  users: Int32Array;
  items: Int32Array;
  counts?: Float32Array;
}

/** Builds id maps and index arrays from (user id, document id) pairs (e.g. preference records). */
export function interactionsFromPairs(pairs: Iterable<readonly [string, string]>): Interactions {
  const userIndex = new Map<string, number>();
  const itemIndex = new Map<string, number>();
  const users: number[] = [];
  const items: number[] = [];
  for (const [u, i] of pairs) {
    let ui = userIndex.get(u);
    if (ui === undefined) userIndex.set(u, (ui = userIndex.size));
    let ii = itemIndex.get(i);
    if (ii === undefined) itemIndex.set(i, (ii = itemIndex.size));
    users.push(ui);
    items.push(ii);
  }
  return { userIds: [...userIndex.keys()], itemIds: [...itemIndex.keys()], users: Int32Array.from(users), items: Int32Array.from(items) };
}

/** Content embeddings by document id (L2-normalised float32 rows of length dim). */
export interface ContentVectors {
  ids: string[];
  vectors: Float32Array;
  dim: number;
}

export interface HybridTrainOptions {
  /** Worker pool to spread the work over (the `als` task module); in-thread when absent. */
  runner?: TaskRunner;
  content?: ContentVectors;
  computeLoss?: boolean;
  onIteration?: (report: IterationReport) => void;
}

function interactionCsr(data: Interactions): Csr {
  const values = data.counts ?? new Float32Array(data.users.length).fill(1);
  return buildCsr({ rows: data.users, cols: data.items, values }, data.userIds.length, data.itemIds.length);
}

async function buildItemItem(userItems: Csr, params: HybridParams, runner?: TaskRunner): Promise<Float32Array> {
  const n = userItems.cols;
  if (n === 0 || n > params.maxItemItemItems || params.weights.itemItem === 0) return new Float32Array(0);
  // binary interactions for the co-occurrence Gram
  const binary: Csr = { ...userItems, data: new Float32Array(userItems.data.length).fill(1) };
  const g = itemGram(binary, params.itemItemLambda);
  if (runner) {
    const shared = new Float64Array(new SharedArrayBuffer(g.byteLength));
    shared.set(g);
    return runner.run<Float32Array>('als', { op: 'ease', gram: shared, n });
  }
  invertSpdInPlace(g, n);
  return easeFromInverse(g, n);
}

function buildContentMap(model: { itemIds: string[]; itemFactors: Float32Array; k: number }, content: ContentVectors | undefined, ridge: number): ContentMap | null {
  if (!content || content.dim === 0) return null;
  const index = new Map<string, number>();
  model.itemIds.forEach((id, i) => index.set(id, i));
  const rows: number[] = [];
  const items: number[] = [];
  content.ids.forEach((id, r) => {
    const i = index.get(id);
    if (i !== undefined) {
      rows.push(r);
      items.push(i);
    }
  });
  if (rows.length === 0) return null;
  const c = new Float32Array(rows.length * content.dim);
  rows.forEach((r, j) => c.set(content.vectors.subarray(r * content.dim, (r + 1) * content.dim), j * content.dim));
  return fitContentMap(c, content.dim, Int32Array.from(items), model.itemFactors, model.k, ridge);
}

/** Trains factors, the item-item component and the cold-start content map into one model object. */
export async function trainHybrid(data: Interactions, params: HybridParams = DEFAULT_HYBRID_PARAMS, options: HybridTrainOptions = {}): Promise<HybridModel> {
  const userItems = interactionCsr(data);
  const executor: AlsExecutor = options.runner ? new PoolExecutor(options.runner) : new InlineExecutor();
  const seconds: number[] = [];
  let lastLoss = NaN;
  const factors = await trainAls(userItems, params.als, {
    executor,
    computeLoss: options.computeLoss,
    onIteration: (r) => {
      seconds.push(r.seconds);
      if (r.loss !== undefined) lastLoss = r.loss;
      options.onIteration?.(r);
    },
  });
  const k = factors.k;
  const gram = await gramOf(executor, factors.itemFactors, factors.nItems, k);
  const itemCounts = new Float32Array(userItems.cols);
  for (let e = 0; e < userItems.indices.length; e++) itemCounts[userItems.indices[e]] += 1;
  const itemItem = await buildItemItem(userItems, params, options.runner);
  const contentMap = buildContentMap({ itemIds: data.itemIds, itemFactors: factors.itemFactors, k }, options.content, params.contentRidge);
  const sorted = [...seconds].sort((a, b) => a - b);
  const metrics: Record<string, number> = {
    users: userItems.rows,
    items: userItems.cols,
    interactions: userItems.indices.length,
    medianSecondsPerIteration: sorted.length ? sorted[Math.floor(sorted.length / 2)] : 0,
  };
  if (!Number.isNaN(lastLoss)) metrics.finalLoss = lastLoss;
  return {
    format: HYBRID_MODEL_FORMAT,
    trainedAt: new Date().toISOString(),
    params,
    userIds: data.userIds,
    itemIds: data.itemIds,
    k,
    userFactors: factors.userFactors,
    itemFactors: factors.itemFactors,
    itemGram: gram,
    userItems,
    itemCounts,
    itemItem,
    contentMap,
    metrics,
  };
}
