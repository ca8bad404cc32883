import type { Collection, Document as MongoDocument, Filter } from 'mongodb';

export function isDuplicateKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}

let lastOrder = 0;

/**
 * Listing order without a round trip for a counter: milliseconds since the epoch scaled by 4096,
 * strictly increasing within a process. Rows from two processes in the same millisecond may
 * interleave; ties are broken by id, so the order is still total and stable.
 */
export function nextListOrder(): number {
  lastOrder = Math.max(lastOrder + 1, Date.now() * 4096);
  return lastOrder;
}

/**
 * Deletes the row matching `filter` and returns its record. (findOneAndDelete would do this in one
 * round trip, but the wire-compatible test server rejects it; find + delete by _id is equivalent
 * for callers, who only need to know whether this call removed the row.)
 */
export async function removeOne<T>(rows: Collection<MongoDocument>, filter: Filter<MongoDocument>): Promise<T | undefined> {
  const row = await rows.findOne(filter, { projection: { _id: 1, r: 1 } });
  if (!row) return undefined;
  const result = await rows.deleteOne({ _id: row._id });
  return result.deletedCount === 1 ? (row.r as T) : undefined;
}
