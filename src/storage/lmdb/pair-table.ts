import type { Database, RootDatabase } from 'lmdb';
import type { Page, PairTable } from '../types';
import { inBatches } from '../batches';
import { prefixRange } from './ranges';

/**
 * Pairs live twice: the record under [tenant, table, 'f', first, second] and a bare back
 * reference under [tenant, table, 's', second, first], written in one transaction.
 */
export class LmdbPairTable<P> implements PairTable<P> {
  constructor(
    private readonly root: RootDatabase,
    private readonly pairs: Database<P | true>,
    private readonly tenant: string,
    private readonly table: string,
  ) {}

  private forward(first: string, second?: string): string[] {
    return second === undefined ? [this.tenant, this.table, 'f', first] : [this.tenant, this.table, 'f', first, second];
  }

  private backward(second: string, first?: string): string[] {
    return first === undefined ? [this.tenant, this.table, 's', second] : [this.tenant, this.table, 's', second, first];
  }

  private record(first: string, second: string): P | undefined {
    const value = this.pairs.get(this.forward(first, second));
    return value === true ? undefined : value;
  }

  async get(first: string, second: string): Promise<P | undefined> {
    return this.record(first, second);
  }

  async put(first: string, second: string, record: P): Promise<void> {
    await this.root.transaction(() => {
      this.pairs.put(this.forward(first, second), record);
      this.pairs.put(this.backward(second, first), true);
    });
  }

  remove(first: string, second: string): Promise<P | undefined> {
    return this.root.transaction(() => this.removeNow(first, second));
  }

  private removeNow(first: string, second: string): P | undefined {
    const existing = this.record(first, second);
    if (existing === undefined) return undefined;
    this.pairs.remove(this.forward(first, second));
    this.pairs.remove(this.backward(second, first));
    return existing;
  }

  async listByFirst(first: string, page: Page): Promise<P[]> {
    return Array.from(this.pairs.getRange({ ...prefixRange(this.forward(first)), offset: page.offset, limit: page.limit })
      .map(({ value }) => value as P));
  }

  async secondsOf(first: string): Promise<string[]> {
    return Array.from(this.pairs.getKeys(prefixRange(this.forward(first))).map((key) => (key as string[])[4]!));
  }

  async countByFirst(first: string): Promise<number> {
    return this.pairs.getCount(prefixRange(this.forward(first)));
  }

  private firstsOf(second: string, page?: Page): string[] {
    return Array.from(this.pairs.getKeys({ ...prefixRange(this.backward(second)), offset: page?.offset, limit: page?.limit })
      .map((key) => (key as string[])[4]));
  }

  async listBySecond(second: string, page: Page): Promise<P[]> {
    const out: P[] = [];
    for (const first of this.firstsOf(second, page)) {
      const record = this.record(first, second);
      if (record !== undefined) out.push(record);
    }
    return out;
  }

  async countBySecond(second: string): Promise<number> {
    return this.pairs.getCount(prefixRange(this.backward(second)));
  }

  removeByFirst(first: string): Promise<P[]> {
    return this.root.transaction(() => {
      const seconds = Array.from(this.pairs.getKeys(prefixRange(this.forward(first))).map((key) => (key as string[])[4]));
      return seconds.map((second) => this.removeNow(first, second)).filter((p): p is P => p !== undefined);
    });
  }

  removeBySecond(second: string): Promise<P[]> {
    return this.root.transaction(() =>
      this.firstsOf(second).map((first) => this.removeNow(first, second)).filter((p): p is P => p !== undefined));
  }

  async count(): Promise<number> {
    return this.pairs.getCount(prefixRange([this.tenant, this.table, 'f']));
  }

  scan(batchSize = 1000): AsyncIterable<P[]> {
    return inBatches(this.pairs.getRange(prefixRange([this.tenant, this.table, 'f'])).map(({ value }) => value as P), batchSize);
  }

  clear(): Promise<void> {
    return this.root.transaction(() => {
      for (const key of Array.from(this.pairs.getKeys(prefixRange([this.tenant, this.table])))) this.pairs.remove(key);
    });
  }
}
