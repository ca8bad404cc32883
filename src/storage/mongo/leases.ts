import { MongoServerError, type Collection, type Db } from 'mongodb';
import type { LeaseTable } from '../types';

interface LeaseRow {
  _id: string;
  holder: string;
  until: number;
}

const DUPLICATE_KEY = 11000;

/** Leases as documents: taking one is a conditional upsert, which the unique `_id` makes atomic. */
export class MongoLeases implements LeaseTable {
  private readonly rows: Collection<LeaseRow>;

  constructor(db: Db) {
    this.rows = db.collection<LeaseRow>('leases');
  }

  async acquire(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    try {
      const row = await this.rows.findOneAndUpdate(
        { _id: name, $or: [{ until: { $lt: now } }, { holder }] },
        { $set: { holder, until: now + ttlMs } },
        { upsert: true, returnDocument: 'after' },
      );
      return row?.holder === holder;
    } catch (error) {
      // Held by someone else: the filter matched nothing and the upsert collided with their row.
      if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return false;
      throw error;
    }
  }

  async release(name: string, holder: string): Promise<void> {
    await this.rows.deleteOne({ _id: name, holder });
  }

  async pruneExpired(at: number): Promise<number> {
    return (await this.rows.deleteMany({ until: { $lt: at } })).deletedCount;
  }
}
