import type { TaskRunner } from '../als/executor';
import { MetricsAccumulator, pairsFromLists, splitPerUser, type RankingMetrics } from './evaluate';
import type { HybridParams } from './model';
import { HybridRecommender } from './recommender';
import { DEFAULT_HYBRID_PARAMS, trainHybrid, type ContentVectors, type Interactions } from './train';

export interface HoldoutOptions {
  /** Share of each user's items held out (default 0.25). */
  testFraction?: number;
  seed?: number;
  /** Cut-off of the metrics (default 10). */
  k?: number;
  runner?: TaskRunner;
  content?: ContentVectors;
}

/**
 * The held-out metric the `train` command prints: a per-user random split, a model trained on the rest, then
 * P@k / NDCG@k / MAP@k of the blend (training items excluded) over users with held-out items.
 */
export async function evaluateHoldout(data: Interactions, params: HybridParams = DEFAULT_HYBRID_PARAMS, options: HoldoutOptions = {}): Promise<RankingMetrics> {
  const k = options.k ?? 10;
  const byUser: number[][] = data.userIds.map(() => []);
  for (let e = 0; e < data.users.length; e++) byUser[data.users[e]].push(data.items[e]);
  const lists = byUser.map((l) => Int32Array.from(new Set(l)).sort());
  const { train, test } = splitPerUser(lists, options.testFraction ?? 0.25, options.seed ?? 1);
  const { users, items } = pairsFromLists(train);
  const model = await trainHybrid({ userIds: data.userIds, itemIds: data.itemIds, users, items }, params, { runner: options.runner, content: options.content });
  const rec = new HybridRecommender(model, { runner: options.runner });
  if (options.content) rec.attachContent(options.content);
  const acc = new MetricsAccumulator(k);
  const index = new Map<string, number>();
  data.itemIds.forEach((id, i) => index.set(id, i));
  for (let u = 0; u < train.length; u++) {
    if (test[u].length === 0 || train[u].length === 0) continue;
    const ans = await rec.recommendForUser({ userId: data.userIds[u], number: k });
    acc.add(ans.results.map((r) => index.get(r.id) ?? -1), new Set(test[u]));
  }
  return acc.result();
}
