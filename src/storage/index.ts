import type { Config } from '../config';
import { LmdbStorage } from './lmdb/storage';
import { MongoStorage } from './mongo/storage';
import type { Storage } from './types';

export type { Storage, TenantStore, EntityTable, PairTable, KeyValueTable, Page } from './types';
export { ALL } from './types';

export async function openStorage(config: Pick<Config, 'dataDir' | 'mongodbUri'>): Promise<Storage> {
  return config.mongodbUri ? MongoStorage.connect(config.mongodbUri) : new LmdbStorage(config.dataDir);
}
