import type { Collection, Document as MongoDocument } from 'mongodb';
import type { EntityTable, Page } from '../types';
import { inBatches } from '../batches';
import { isDuplicateKey, nextListOrder, removeOne } from './util';

/** A tenant's rows of one collection: `{t: tenant, id, o: list order, r: record}`, unique on (t, id). */
export class MongoEntityTable<T extends { id: string }, F extends keyof T & string = never> implements EntityTable<T, F> {
  constructor(
    private readonly rows: Collection<MongoDocument>,
    private readonly tenant: string,
    private readonly fields: readonly F[] = [],
  ) {}

  async get(id: string): Promise<T | undefined> {
    const row = await this.rows.findOne({ t: this.tenant, id }, { projection: { _id: 0, r: 1 } });
    return row ? (row.r as T) : undefined;
  }

  async getMany(ids: readonly string[]): Promise<Array<T | undefined>> {
    const rows = await this.rows.find({ t: this.tenant, id: { $in: [...ids] } }, { projection: { _id: 0, id: 1, r: 1 } }).toArray();
    const byId = new Map(rows.map((row) => [row.id as string, row.r as T]));
    return ids.map((id) => byId.get(id));
  }

  async existMany(ids: readonly string[]): Promise<boolean[]> {
    const rows = await this.rows.find({ t: this.tenant, id: { $in: [...ids] } }, { projection: { _id: 0, id: 1 } }).toArray();
    const found = new Set(rows.map((row) => row.id as string));
    return ids.map((id) => found.has(id));
  }

  async insert(record: T): Promise<boolean> {
    try {
      await this.rows.insertOne({ t: this.tenant, id: record.id, o: nextListOrder(), r: record });
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async replace(record: T): Promise<boolean> {
    const result = await this.rows.updateOne({ t: this.tenant, id: record.id }, { $set: { r: record } });
    return result.matchedCount === 1;
  }

  async remove(id: string): Promise<T | undefined> {
    return removeOne<T>(this.rows, { t: this.tenant, id });
  }

  async list(page: Page): Promise<T[]> {
    const rows = await this.rows.find({ t: this.tenant }, { projection: { _id: 0, r: 1 } })
      .sort({ o: 1, id: 1 }).skip(page.offset).limit(Math.min(page.limit, 2 ** 31 - 1)).toArray();
    return rows.map((row) => row.r as T);
  }

  count(): Promise<number> {
    return this.rows.countDocuments({ t: this.tenant });
  }

  async ids(): Promise<string[]> {
    const rows = await this.rows.find({ t: this.tenant }, { projection: { _id: 0, id: 1 } }).sort({ o: 1, id: 1 }).toArray();
    return rows.map((row) => row.id as string);
  }

  scan(batchSize = 1000): AsyncIterable<T[]> {
    return inBatches(this.rows.find({ t: this.tenant }, { projection: { _id: 0, r: 1 }, batchSize }).map((row) => row.r as T), batchSize);
  }

  scanFields(batchSize = 1000): AsyncIterable<Array<Pick<T, 'id' | F>>> {
    // The server sends only these fields (picked again here: the bundled test server sends all of `r`).
    const projection = Object.fromEntries([['_id', 0], ['id', 1], ...this.fields.map((f) => [`r.${f}`, 1])]) as Record<string, 0 | 1>;
    return inBatches(this.rows.find({ t: this.tenant }, { projection, batchSize }).map((row) => {
      const out = { id: row.id as string } as Pick<T, 'id' | F>;
      for (const f of this.fields) out[f] = (row.r as T)[f];
      return out;
    }), batchSize);
  }

  async clear(): Promise<void> {
    await this.rows.deleteMany({ t: this.tenant });
  }
}
