import { HYBRID_MODEL_BLOB } from '../index/hybrid';
import { evaluateHoldout } from '../models/hybrid/holdout';
import type { HybridParams } from '../models/hybrid/model';
import { serialiseModel } from '../models/hybrid/serialise';
import { interactionsFromPairs, trainHybrid } from '../models/hybrid/train';
import type { WorkerPool } from '../pool';
import type { TenantStore } from '../storage';
import { saveBlob } from '../storage/blobs';

/** Name of the lease that keeps a key's training to one process at a time. */
export const trainingLease = (tenant: string): string => `train:${tenant}`;

export interface TrainReport {
  version: string;
  preferences: number;
  heldOut?: { precision: number; ndcg: number; map: number; users: number };
}

/**
 * Trains a key's hybrid model from its preferences and stores it; servers serve the new version
 * within seconds. Used by `kindred train` and by the per-key schedule (KINDRED_TRAIN_CRON).
 */
export async function trainTenantModel(store: TenantStore, pool: WorkerPool, params: HybridParams, say: (line: string) => void = () => undefined): Promise<TrainReport | undefined> {
  const pairs: Array<[string, string]> = [];
  for await (const batch of store.preferences.scan(10_000)) for (const p of batch) pairs.push([p.user_id, p.document_id]);
  if (pairs.length === 0) return undefined;
  const data = interactionsFromPairs(pairs);
  say(`training on ${pairs.length} preferences of ${data.userIds.length} users and ${data.itemIds.length} documents ` +
    `(factors ${params.als.factors}, iterations ${params.als.iterations}, alpha ${params.als.alpha}, regularization ${params.als.regularization}, ${pool.threads} workers)`);
  const model = await trainHybrid(data, params, {
    runner: pool,
    computeLoss: true,
    onIteration: (r) => say(`iteration ${r.iteration}/${params.als.iterations}: ${r.seconds.toFixed(3)} s${r.loss === undefined ? '' : `, loss ${r.loss.toFixed(4)}`}`),
  });
  const version = await saveBlob(store.values('models'), HYBRID_MODEL_BLOB, serialiseModel(model));
  say(`saved model ${version}`);
  const report: TrainReport = { version, preferences: pairs.length };
  if (data.userIds.length >= 2) {
    report.heldOut = await evaluateHoldout(data, params, { runner: pool });
    const h = report.heldOut;
    say(`held-out (25% of each user's documents): P@10 ${h.precision.toFixed(4)}, NDCG@10 ${h.ndcg.toFixed(4)}, MAP@10 ${h.map.toFixed(4)} over ${h.users} users`);
  }
  return report;
}
