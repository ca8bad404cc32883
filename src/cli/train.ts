import { loadConfig } from '../config';
import { HYBRID_MODEL_BLOB } from '../index/hybrid';
import { evaluateHoldout } from '../models/hybrid/holdout';
import { serialiseModel } from '../models/hybrid/serialise';
import { DEFAULT_HYBRID_PARAMS, interactionsFromPairs, trainHybrid } from '../models/hybrid/train';
import type { HybridParams } from '../models/hybrid/model';
import { WorkerPool } from '../pool';
import { hashKey } from '../services/keys';
import { openStorage } from '../storage';
import { saveBlob } from '../storage/blobs';

const NUMERIC_OPTIONS = { '--factors': 'factors', '--iterations': 'iterations', '--alpha': 'alpha', '--regularization': 'regularization' } as const;

export function trainParams(args: string[]): HybridParams {
  const als = { ...DEFAULT_HYBRID_PARAMS.als };
  for (const [flag, name] of Object.entries(NUMERIC_OPTIONS)) {
    const at = args.indexOf(flag);
    if (at < 0) continue;
    const value = Number(args[at + 1]);
    const integer = name === 'factors' || name === 'iterations';
    if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) throw new Error(`${flag} needs a positive ${integer ? 'integer' : 'number'}`);
    als[name] = value;
  }
  return { ...DEFAULT_HYBRID_PARAMS, als };
}

const say = (line: string) => process.stdout.write(`${line}\n`);

/**
 * `kindred train --key KEY`: trains the key's hybrid model from its preferences, prints progress per
 * iteration and a held-out metric, and stores the model; running servers pick it up within seconds.
 */
export async function train(args: string[]): Promise<number> {
  const keyAt = args.indexOf('--key');
  const key = keyAt >= 0 ? args[keyAt + 1] : undefined;
  if (!key) {
    process.stderr.write('usage: kindred train --key KEY [--factors F] [--iterations N] [--alpha A] [--regularization L]\n');
    return 2;
  }
  const params = trainParams(args);
  const config = loadConfig();
  const storage = await openStorage(config);
  const pool = new WorkerPool({ threads: config.workers });
  try {
    const record = await storage.keys.get(hashKey(key));
    if (!record || record.revoked_at) {
      process.stderr.write('no such key\n');
      return 1;
    }
    const store = storage.tenant(record.tenant);
    const pairs: Array<[string, string]> = [];
    for await (const batch of store.preferences.scan(10_000)) for (const p of batch) pairs.push([p.user_id, p.document_id]);
    if (pairs.length === 0) {
      process.stderr.write('the key has no preferences to train on\n');
      return 1;
    }
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
    if (data.userIds.length >= 2) {
      const held = await evaluateHoldout(data, params, { runner: pool });
      say(`held-out (25% of each user's documents): P@10 ${held.precision.toFixed(4)}, NDCG@10 ${held.ndcg.toFixed(4)}, MAP@10 ${held.map.toFixed(4)} over ${held.users} users`);
    }
    return 0;
  } finally {
    await pool.close();
    await storage.close();
  }
}
