/** Groups a stream of rows into arrays of at most `size` (storage scans hand rows out in batches). */
export async function* inBatches<T>(rows: Iterable<T> | AsyncIterable<T>, size: number): AsyncIterable<T[]> {
  let batch: T[] = [];
  for await (const row of rows) {
    batch.push(row);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}
