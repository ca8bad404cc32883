import { MongoClient, type Collection, type Db, type Document as MongoDocument } from 'mongodb';
import type { ApiKeyRecord, DocumentRecord, PreferenceRecord, TaggingRecord, TagRecord, UserRecord } from '../../domain';
import { DOCUMENT_VERSION_FIELDS, type ChangeLog, type KeyStore, type KeyValueTable, type LeaseTable, type Storage, type TenantStore } from '../types';
import { MongoChangeLog } from './change-log';
import { MongoLeases } from './leases';
import { MongoEntityTable } from './entity-table';
import { MongoPairTable } from './pair-table';

const ENTITY_COLLECTIONS = ['documents', 'tags', 'users'] as const;
const PAIR_COLLECTIONS = ['taggings', 'preferences'] as const;

function withoutId(row: ApiKeyRecord & { _id: string }): ApiKeyRecord {
  const { hash, tenant, name, created_at, revoked_at } = row;
  return { hash, tenant, name, created_at, revoked_at };
}

class MongoKeyValueTable implements KeyValueTable<unknown> {
  constructor(
    private readonly rows: Collection<MongoDocument>,
    private readonly tenant: string,
    private readonly namespace: string,
  ) {}

  async get(key: string): Promise<unknown> {
    const row = await this.rows.findOne({ t: this.tenant, n: this.namespace, k: key });
    return row ? row.v : undefined;
  }

  async put(key: string, value: unknown): Promise<void> {
    await this.rows.replaceOne({ t: this.tenant, n: this.namespace, k: key }, { t: this.tenant, n: this.namespace, k: key, v: value }, { upsert: true });
  }

  async remove(key: string): Promise<boolean> {
    const result = await this.rows.deleteOne({ t: this.tenant, n: this.namespace, k: key });
    return result.deletedCount === 1;
  }

  async list(): Promise<Array<{ key: string; value: unknown }>> {
    const rows = await this.rows.find({ t: this.tenant, n: this.namespace }).sort({ k: 1 }).toArray();
    return rows.map((row) => ({ key: row.k as string, value: row.v }));
  }

  async clear(): Promise<void> {
    await this.rows.deleteMany({ t: this.tenant, n: this.namespace });
  }
}

/** The MongoDB backend: one collection per kind of record, every row carrying its tenant. */
export class MongoStorage implements Storage {
  readonly backend = 'mongodb' as const;
  readonly keys: KeyStore;
  readonly leases: LeaseTable;
  private readonly tenants = new Map<string, TenantStore>();

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    readonly changeLog: ChangeLog,
  ) {
    this.leases = new MongoLeases(db);
    const apiKeys = db.collection<ApiKeyRecord & { _id: string }>('api_keys');
    this.keys = {
      get: async (hash) => {
        const row = await apiKeys.findOne({ _id: hash });
        return row ? withoutId(row) : undefined;
      },
      put: async (record) => {
        await apiKeys.replaceOne({ _id: record.hash }, { ...record }, { upsert: true });
      },
      list: async () => (await apiKeys.find({}).toArray()).map(withoutId),
    };
  }

  static async connect(uri: string): Promise<MongoStorage> {
    const client = new MongoClient(uri, {
      writeConcern: { w: 'majority', journal: true },
      serverSelectionTimeoutMS: 10_000,
      // Binary values (model chunks) come back as Buffers, as the embedded store returns them.
      promoteBuffers: true,
    });
    await client.connect();
    const db = client.db();
    for (const name of ENTITY_COLLECTIONS) {
      await db.collection(name).createIndex({ t: 1, id: 1 }, { unique: true });
      await db.collection(name).createIndex({ t: 1, o: 1, id: 1 });
    }
    for (const name of PAIR_COLLECTIONS) {
      await db.collection(name).createIndex({ t: 1, a: 1, b: 1 }, { unique: true });
      await db.collection(name).createIndex({ t: 1, b: 1, a: 1 });
    }
    await db.collection('values').createIndex({ t: 1, n: 1, k: 1 }, { unique: true });
    await db.collection('sequences').createIndex({ t: 1, name: 1 }, { unique: true });
    return new MongoStorage(client, db, await MongoChangeLog.prepare(db));
  }

  tenant(tenant: string): TenantStore {
    let store = this.tenants.get(tenant);
    if (!store) {
      store = this.openTenant(tenant);
      this.tenants.set(tenant, store);
    }
    return store;
  }

  private openTenant(tenant: string): TenantStore {
    const db = this.db;
    return {
      tenant,
      documents: new MongoEntityTable<DocumentRecord, (typeof DOCUMENT_VERSION_FIELDS)[number]>(db.collection('documents'), tenant, DOCUMENT_VERSION_FIELDS),
      tags: new MongoEntityTable<TagRecord>(db.collection('tags'), tenant),
      users: new MongoEntityTable<UserRecord>(db.collection('users'), tenant),
      taggings: new MongoPairTable<TaggingRecord>(db.collection('taggings'), tenant),
      preferences: new MongoPairTable<PreferenceRecord>(db.collection('preferences'), tenant),
      values: (namespace) => new MongoKeyValueTable(db.collection('values'), tenant, namespace),
      nextSequence: async (name) => {
        const row = await db.collection('sequences').findOneAndUpdate(
          { t: tenant, name }, { $inc: { value: 1 } }, { upsert: true, returnDocument: 'after' });
        return (row?.value as number | undefined) ?? 1;
      },
    };
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
