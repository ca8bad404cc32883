import type { Database, RootDatabase } from 'lmdb';
import type { EntityTable, Page } from '../types';
import { inBatches } from '../batches';
import { MAX_SEQ, prefixRange } from './ranges';

interface Stored<T> {
  seq: number;
  record: T;
}

/** A table's copy of some fields of each record, under the record's key (`scanFields` reads it, not the records). */
export interface FieldsCopy<T, F extends keyof T> {
  db: Database<Pick<T, F>>;
  fields: readonly F[];
}

/** Raised when the copy starts to be kept for tables that lacked it: an older store gets it filled in once. */
const FIELDS_COPY_VERSION = 1;

/**
 * One table of one tenant. Records live under [tenant, table, id]; the creation-order index
 * under [tenant, table, seq] -> id; the row count and the last sequence under counters.
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
    private readonly order: Database<string>,
    private readonly counters: Database<number>,
    private readonly tenant: string,
    private readonly table: string,
    private readonly copy?: FieldsCopy<T, F>,
  ) {
    this.countKey = [tenant, table, 'count'];
    this.seqKey = [tenant, table, 'seq'];
    this.copyKey = [tenant, table, 'fields-copy'];
  }

  private fieldsOf(record: T): Pick<T, F> {
    const out = {} as Pick<T, F>;
    for (const f of this.copy?.fields ?? []) out[f] = record[f];
    return out;
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

  insert(record: T): Promise<boolean> {
    return this.root.transaction(() => {
      const key = this.key(record.id);
      if (this.records.get(key) !== undefined) return false;
      const seq = (this.counters.get(this.seqKey) ?? 0) + 1;
      const count = this.counters.get(this.countKey) ?? 0;
      // A table that starts empty keeps the copy from its first record: nothing to fill in later.
      if (this.copy && count === 0 && this.counters.get(this.copyKey) !== FIELDS_COPY_VERSION) this.counters.put(this.copyKey, FIELDS_COPY_VERSION);
      this.counters.put(this.seqKey, seq);
      this.counters.put(this.countKey, count + 1);
      this.records.put(key, { seq, record });
      this.copy?.db.put(key, this.fieldsOf(record));
      this.order.put([this.tenant, this.table, seq], record.id);
      return true;
    });
  }

  replace(record: T): Promise<boolean> {
    return this.root.transaction(() => {
      const key = this.key(record.id);
      const existing = this.records.get(key);
      if (existing === undefined) return false;
      this.records.put(key, { seq: existing.seq, record });
      this.copy?.db.put(key, this.fieldsOf(record));
      return true;
    });
  }

  remove(id: string): Promise<T | undefined> {
    return this.root.transaction(() => {
      const key = this.key(id);
      const existing = this.records.get(key);
      if (existing === undefined) return undefined;
      this.records.remove(key);
      this.copy?.db.remove(key);
      this.order.remove([this.tenant, this.table, existing.seq]);
      this.counters.put(this.countKey, (this.counters.get(this.countKey) ?? 1) - 1);
      return existing.record;
    });
  }

  async list(page: Page): Promise<T[]> {
    const ids = Array.from(this.order.getRange({
      start: [this.tenant, this.table, 0],
      end: [this.tenant, this.table, MAX_SEQ],
      offset: page.offset,
      limit: page.limit,
    }).map(({ value }) => value));
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
    return Array.from(this.order.getRange({ start: [this.tenant, this.table, 0], end: [this.tenant, this.table, MAX_SEQ] })
      .map(({ value }) => value));
  }

  scan(batchSize = 1000): AsyncIterable<T[]> {
    return inBatches(this.records.getRange(prefixRange([this.tenant, this.table])).map(({ value }) => value.record), batchSize);
  }

  async *scanFields(batchSize = 1000): AsyncIterable<Array<Pick<T, 'id' | F>>> {
    const copy = this.copy;
    if (!copy) {
      for await (const batch of this.scan(batchSize)) yield batch.map((record) => ({ id: record.id }) as Pick<T, 'id' | F>);
      return;
    }
    await (this.copyFilled ??= this.fillCopy(copy));
    yield* inBatches(copy.db.getRange(prefixRange([this.tenant, this.table]))
      .map(({ key, value }) => ({ ...value, id: (key as string[])[2] }) as Pick<T, 'id' | F>), batchSize);
  }

  /** Fills the fields copy from the records, once, for a store written before the copy was kept. */
  private async fillCopy(copy: FieldsCopy<T, F>): Promise<void> {
    if (this.counters.get(this.copyKey) === FIELDS_COPY_VERSION) return;
    await this.root.transaction(() => {
      for (const { key, value } of this.records.getRange(prefixRange([this.tenant, this.table]))) copy.db.put(key, this.fieldsOf(value.record));
      this.counters.put(this.copyKey, FIELDS_COPY_VERSION);
    });
  }

  clear(): Promise<void> {
    return this.root.transaction(() => {
      for (const key of Array.from(this.records.getKeys(prefixRange([this.tenant, this.table])))) this.records.remove(key);
      for (const key of Array.from(this.copy?.db.getKeys(prefixRange([this.tenant, this.table])) ?? [])) this.copy?.db.remove(key);
      for (const key of Array.from(this.order.getKeys({ start: [this.tenant, this.table, 0], end: [this.tenant, this.table, MAX_SEQ] }))) {
        this.order.remove(key);
      }
      this.counters.put(this.countKey, 0);
    });
  }
}
