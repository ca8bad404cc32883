import type { Database, Key, RootDatabase } from 'lmdb';
import type { EntityTable, Page } from '../types';
import { inBatches } from '../batches';
import { MAX_SEQ, prefixRange } from './ranges';

interface Stored<T> {
  seq: number;
  record: T;
}

/** An entry of the creation-order index: the id, or (tables with copied fields) the id and the fields' values. */
type OrderEntry = string | unknown[];

const idOfEntry = (entry: OrderEntry): string => (typeof entry === 'string' ? entry : entry[0] as string);

/** Raised when fields start to be copied for tables that lacked them: an older store gets them filled in once. */
const FIELDS_COPY_VERSION = 2;

/**
 * One table of one tenant. Records live under [tenant, table, id]; the creation-order index
 * under [tenant, table, seq] -> id (or [id, ...copied fields]); the row count and the last sequence under counters.
 * Every write is one LMDB transaction, so the three never disagree after a crash.
 */
export class LmdbEntityTable<T extends { id: string }, F extends keyof T = never> implements EntityTable<T, F> {
  private readonly countKey: string[];
  private readonly seqKey: string[];
  private readonly copyKey: string[];
  private copyFilled: Promise<void> | undefined;

  constructor(
    private readonly root: RootDatabase,
    private readonly records: Database<Stored<T>>,
    private readonly order: Database<OrderEntry>,
    private readonly counters: Database<number>,
    private readonly tenant: string,
    private readonly table: string,
    /**
     * Fields kept beside each record for `scanFields`, in the record's creation-order entry (`[id, ...values]`
     * instead of the id alone): a few dozen bytes more per record; a table of their own, keyed like the records,
     * cost about 200 bytes of the store's memory map per document (bench:scale, 1M).
     */
    private readonly copied: readonly F[] = [],
  ) {
    this.countKey = [tenant, table, 'count'];
    this.seqKey = [tenant, table, 'seq'];
    this.copyKey = [tenant, table, 'fields-copy'];
  }

  private orderEntry(record: T): OrderEntry {
    return this.copied.length === 0 ? record.id : [record.id, ...this.copied.map((f) => record[f])];
  }

  /** The table's creation-order entries, first to last. */
  private orderRange(): { start: Key[]; end: Key[] } {
    return { start: [this.tenant, this.table, 0], end: [this.tenant, this.table, MAX_SEQ] };
  }

  private key(id: string): string[] {
    return [this.tenant, this.table, id];
  }

  async get(id: string): Promise<T | undefined> {
    return this.records.get(this.key(id))?.record;
  }

  async getMany(ids: readonly string[]): Promise<Array<T | undefined>> {
    return ids.map((id) => this.records.get(this.key(id))?.record);
  }

  async existMany(ids: readonly string[]): Promise<boolean[]> {
    return ids.map((id) => this.records.doesExist(this.key(id)));
  }

  insert(record: T): Promise<boolean> {
    return this.root.transaction(() => {
      const key = this.key(record.id);
      if (this.records.get(key) !== undefined) return false;
      const seq = (this.counters.get(this.seqKey) ?? 0) + 1;
      const count = this.counters.get(this.countKey) ?? 0;
      // A table that starts empty copies the fields from its first record: nothing to fill in later.
      if (this.copied.length > 0 && count === 0 && this.counters.get(this.copyKey) !== FIELDS_COPY_VERSION) this.counters.put(this.copyKey, FIELDS_COPY_VERSION);
      this.counters.put(this.seqKey, seq);
      this.counters.put(this.countKey, count + 1);
      this.records.put(key, { seq, record });
      this.order.put([this.tenant, this.table, seq], this.orderEntry(record));
      return true;
    });
  }

  replace(record: T): Promise<boolean> {
    return this.root.transaction(() => {
      const key = this.key(record.id);
      const existing = this.records.get(key);
      if (existing === undefined) return false;
      this.records.put(key, { seq: existing.seq, record });
      if (this.copied.length > 0) this.order.put([this.tenant, this.table, existing.seq], this.orderEntry(record));
      return true;
    });
  }

  remove(id: string): Promise<T | undefined> {
    return this.root.transaction(() => {
      const key = this.key(id);
      const existing = this.records.get(key);
      if (existing === undefined) return undefined;
      this.records.remove(key);
      this.order.remove([this.tenant, this.table, existing.seq]);
      this.counters.put(this.countKey, (this.counters.get(this.countKey) ?? 1) - 1);
      return existing.record;
    });
  }

  async list(page: Page): Promise<T[]> {
    const ids = Array.from(this.order.getRange({ ...this.orderRange(), offset: page.offset, limit: page.limit })
      .map(({ value }) => idOfEntry(value)));
    const out: T[] = [];
    for (const id of ids) {
      const stored = this.records.get(this.key(id));
      if (stored) out.push(stored.record);
    }
    return out;
  }

  async count(): Promise<number> {
    return this.counters.get(this.countKey) ?? 0;
  }

  async ids(): Promise<string[]> {
    return Array.from(this.order.getRange(this.orderRange())
      .map(({ value }) => idOfEntry(value)));
  }

  scan(batchSize = 1000): AsyncIterable<T[]> {
    return inBatches(this.records.getRange(prefixRange([this.tenant, this.table])).map(({ value }) => value.record), batchSize);
  }

  async *scanFields(batchSize = 1000): AsyncIterable<Array<Pick<T, 'id' | F>>> {
    if (this.copied.length === 0) {
      for await (const batch of this.scan(batchSize)) yield batch.map((record) => ({ id: record.id }) as Pick<T, 'id' | F>);
      return;
    }
    await (this.copyFilled ??= this.fillCopy());
    const copied = this.copied;
    yield* inBatches(this.order.getRange(this.orderRange()).map(({ value }) => {
      const entry = value as unknown[];
      const out = { id: entry[0] } as Record<string, unknown>;
      copied.forEach((f, i) => (out[f as string] = entry[i + 1]));
      return out as Pick<T, 'id' | F>;
    }), batchSize);
  }

  /** Copies the fields into the creation-order entries, once, for a store written before they were copied. */
  private async fillCopy(): Promise<void> {
    if (this.counters.get(this.copyKey) === FIELDS_COPY_VERSION) return;
    await this.root.transaction(() => {
      for (const { value } of this.records.getRange(prefixRange([this.tenant, this.table]))) {
        this.order.put([this.tenant, this.table, value.seq], this.orderEntry(value.record));
      }
      this.counters.put(this.copyKey, FIELDS_COPY_VERSION);
    });
  }

  clear(): Promise<void> {
    return this.root.transaction(() => {
      for (const key of Array.from(this.records.getKeys(prefixRange([this.tenant, this.table])))) this.records.remove(key);
      for (const key of Array.from(this.order.getKeys(this.orderRange()))) {
        this.order.remove(key);
      }
      this.counters.put(this.countKey, 0);
    });
  }
}
