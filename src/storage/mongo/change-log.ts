import type { Collection, Db } from 'mongodb';
import type { ChangeLog, ChangeLogEntry } from '../types';

type Row = Omit<ChangeLogEntry, 'seq'> & { _id: number };

const SEQUENCE = { t: '', name: 'change_log' };

/** The change log as a collection keyed by sequence number; numbers come from one `$inc` per append. */
export class MongoChangeLog implements ChangeLog {
  private readonly rows: Collection<Row>;
  private readonly sequences: Collection;

  constructor(db: Db) {
    this.rows = db.collection<Row>('change_log');
    this.sequences = db.collection('sequences');
  }

  static async prepare(db: Db): Promise<MongoChangeLog> {
    await db.collection('change_log').createIndex({ at: 1 });
    return new MongoChangeLog(db);
  }

  async append(entries: ReadonlyArray<Omit<ChangeLogEntry, 'seq'>>): Promise<void> {
    if (entries.length === 0) return;
    const row = await this.sequences.findOneAndUpdate(SEQUENCE, { $inc: { value: entries.length } }, { upsert: true, returnDocument: 'after' });
    const first = (row?.value as number) - entries.length + 1;
    await this.rows.insertMany(entries.map((entry, i) => ({ _id: first + i, ...entry })), { ordered: false });
  }

  async readAfter(seq: number, limit: number): Promise<ChangeLogEntry[]> {
    const rows = await this.rows.find({ _id: { $gt: seq } }).sort({ _id: 1 }).limit(limit).toArray();
    return rows.map(({ _id, origin, tenant, entity, op, id, at }) => ({ seq: _id, origin, tenant, entity, op, id, at }));
  }

  async head(): Promise<number> {
    const row = await this.sequences.findOne(SEQUENCE);
    return (row?.value as number | undefined) ?? 0;
  }

  async pruneBefore(at: number): Promise<number> {
    return (await this.rows.deleteMany({ at: { $lt: at } })).deletedCount;
  }
}
