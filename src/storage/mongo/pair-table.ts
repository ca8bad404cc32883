import type { Collection, Document as MongoDocument } from 'mongodb';
import type { Page, PairTable } from '../types';
import { inBatches } from '../batches';
import { removeOne } from './util';

/** A tenant's pairs: `{t: tenant, a: first, b: second, r: record}`, unique on (t, a, b), indexed on (t, b, a). */
export class MongoPairTable<P> implements PairTable<P> {
  constructor(
    private readonly rows: Collection<MongoDocument>,
    private readonly tenant: string,
  ) {}

  async get(first: string, second: string): Promise<P | undefined> {
    const row = await this.rows.findOne({ t: this.tenant, a: first, b: second }, { projection: { _id: 0, r: 1 } });
    return row ? (row.r as P) : undefined;
  }

  async put(first: string, second: string, record: P): Promise<void> {
    await this.rows.replaceOne({ t: this.tenant, a: first, b: second }, { t: this.tenant, a: first, b: second, r: record }, { upsert: true });
  }

  async remove(first: string, second: string): Promise<P | undefined> {
    return removeOne<P>(this.rows, { t: this.tenant, a: first, b: second });
  }

  private async listWhere(filter: MongoDocument, sort: MongoDocument, page: Page): Promise<P[]> {
    const rows = await this.rows.find({ t: this.tenant, ...filter }, { projection: { _id: 0, r: 1 } })
      .sort(sort).skip(page.offset).limit(Math.min(page.limit, 2 ** 31 - 1)).toArray();
    return rows.map((row) => row.r as P);
  }

  listByFirst(first: string, page: Page): Promise<P[]> {
    return this.listWhere({ a: first }, { b: 1 }, page);
  }

  async secondsOf(first: string): Promise<string[]> {
    const rows = await this.rows.find({ t: this.tenant, a: first }, { projection: { _id: 0, b: 1 } }).sort({ b: 1 }).toArray();
    return rows.map((row) => row.b as string);
  }

  countByFirst(first: string): Promise<number> {
    return this.rows.countDocuments({ t: this.tenant, a: first });
  }

  listBySecond(second: string, page: Page): Promise<P[]> {
    return this.listWhere({ b: second }, { a: 1 }, page);
  }

  countBySecond(second: string): Promise<number> {
    return this.rows.countDocuments({ t: this.tenant, b: second });
  }

  private async removeWhere(filter: MongoDocument): Promise<P[]> {
    const rows = await this.rows.find({ t: this.tenant, ...filter }, { projection: { _id: 0, r: 1 } }).toArray();
    if (rows.length) await this.rows.deleteMany({ t: this.tenant, ...filter });
    return rows.map((row) => row.r as P);
  }

  removeByFirst(first: string): Promise<P[]> {
    return this.removeWhere({ a: first });
  }

  removeBySecond(second: string): Promise<P[]> {
    return this.removeWhere({ b: second });
  }

  count(): Promise<number> {
    return this.rows.countDocuments({ t: this.tenant });
  }

  scan(batchSize = 1000): AsyncIterable<P[]> {
    return inBatches(this.rows.find({ t: this.tenant }, { projection: { _id: 0, r: 1 }, batchSize }).map((row) => row.r as P), batchSize);
  }

  async clear(): Promise<void> {
    await this.rows.deleteMany({ t: this.tenant });
  }
}
