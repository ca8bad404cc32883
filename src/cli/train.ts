import { loadConfig } from '../config';
import { whenLeased } from '../jobs/lease';
import { trainingLease, trainTenantModel } from '../jobs/train-hybrid';
import { DEFAULT_HYBRID_PARAMS } from '../models/hybrid/train';
import type { HybridParams } from '../models/hybrid/model';
import { WorkerPool } from '../pool';
import { hashKey } from '../services/keys';
import { openStorage } from '../storage';

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
    const report = await whenLeased(storage.leases, trainingLease(record.tenant),
      () => trainTenantModel(storage.tenant(record.tenant), pool, params, say),
      () => say('another process is training this key; waiting for it to finish'));
    if (!report) {
      process.stderr.write('the key has no preferences to train on\n');
      return 1;
    }
    return 0;
  } finally {
    await pool.close();
    await storage.close();
  }
}
