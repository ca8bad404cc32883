import type { Config } from '../config';
import { LmdbStorage } from './lmdb/storage';
import type { Storage } from './types';

export type { Storage, TenantStore, EntityTable, PairTable, KeyValueTable, Page } from './types';
export { ALL } from './types';

export async function openStorage(config: Pick<Config, 'dataDir' | 'mongodbUri'>): Promise<Storage> {
  if (!config.mongodbUri) return new LmdbStorage(config.dataDir);
  // Loaded only when used: the driver takes a few hundred milliseconds of every start to load.
  const { MongoStorage } = await import('./mongo/storage');
  return MongoStorage.connect(config.mongodbUri);
}
