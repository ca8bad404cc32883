import type { PackedSparse, SparseVector } from '../../embedding/sparse';
import { SNAPSHOT_SLICE, type TermsFile } from './snapshot';

/** Room left behind by replaced and deleted rows is reclaimed once it passes this share of the terms. */
const MAX_GARBAGE_SHARE = 0.5;
const MIN_COMPACT_TERMS = 4096;
/** Terms are kept in chunks of this many (512 KB of ids, 512 KB of weights); a longer row gets a chunk of its own. */
const CHUNK_TERMS = 1 << 17;

/** Term positions [start, start + ids.length) of the rows' terms. */
interface Chunk {
  start: number;
  ids: Uint32Array;
  weights: Float32Array;
}

/**
 * A sparse vector per row of a vector store (the second stage's TF-IDF terms), in chunks of flat arrays, found by
 * the store's row: where a row's terms start and how many there are sit side by side in `spans`, so the 800 rows
 * a search names cost two cache misses each (their span, their terms), not a lookup by id (at 1M documents
 * ~0.65 µs of misses per id). Chunks, not one array grown by half: growing copied every term on the event loop
 * (~100 ms at 1M documents) and left up to a third of the array spare (an 82k key: 39 MB for 28 MB of terms).
 * The owner keeps rows in step with the store: `set` for a new row, `delete` for a dead one, `move` when
 * compaction moves a row.
 */
export class SparseRows {
  /** Per row: start position of its terms, then length + 1 (0: the row has no vector). */
  private spans: Uint32Array = new Uint32Array(128);
  private live = 0;
  /** In order of `start`; the last takes new rows. */
  private chunks: Chunk[] = [];
  /** The position after the last term written. */
  private end = 0;
  private garbage = 0;
  /** The chunk the last lookup found: rows are mostly read in runs from one chunk. */
  private recent = 0;

  /** Adopts packed vectors (a snapshot's): packed row i is row i's, unless `present[i]` is 0. */
  static fromPacked(packed: PackedSparse, present?: Uint8Array): SparseRows {
    const rows = new SparseRows();
    const count = packed.offsets.length - 1;
    rows.spans = new Uint32Array(2 * Math.max(64, count));
    for (let i = 0; i < count; i++) {
      const length = packed.offsets[i + 1]! - packed.offsets[i]!;
      if (present && !present[i]) {
        rows.garbage += length;
        continue;
      }
      rows.spans[2 * i] = packed.offsets[i]!;
      rows.spans[2 * i + 1] = length + 1;
      rows.live++;
    }
    rows.chunks = [{ start: 0, ids: packed.ids, weights: packed.weights }];
    rows.end = packed.ids.length;
    return rows;
  }

  get size(): number {
    return this.live;
  }

  /** Bytes of term arrays held, spare room included. */
  get bytes(): number {
    let bytes = this.spans.byteLength;
    for (const chunk of this.chunks) bytes += chunk.ids.byteLength + chunk.weights.byteLength;
    return bytes;
  }

  has(row: number): boolean {
    return row >= 0 && 2 * row < this.spans.length && this.spans[2 * row + 1]! !== 0;
  }

  /** Stores `vector` for `row`, replacing any it had. */
  set(row: number, vector: SparseVector): void {
    this.delete(row);
    const n = vector.ids.length;
    const chunk = this.roomFor(n);
    const at = this.end - chunk.start;
    chunk.ids.set(vector.ids, at);
    chunk.weights.set(vector.weights, at);
    this.reserveRow(row);
    this.spans[2 * row] = this.end;
    this.spans[2 * row + 1] = n + 1;
    this.end += n;
    this.live++;
  }

  delete(row: number): boolean {
    if (!this.has(row)) return false;
    this.garbage += this.spans[2 * row + 1]! - 1;
    this.spans[2 * row + 1] = 0;
    this.live--;
    return true;
  }

  /** Follows the store moving a live row into a dead one's place. */
  move(from: number, to: number): void {
    this.delete(to);
    if (!this.has(from)) return;
    this.reserveRow(to);
    this.spans[2 * to] = this.spans[2 * from]!;
    this.spans[2 * to + 1] = this.spans[2 * from + 1]!;
    this.spans[2 * from + 1] = 0;
  }

  /** The vectors of those `rows` that have one, packed in order; `present` lists their indices in `rows`. */
  pack(rows: ArrayLike<number>): { packed: PackedSparse; present: number[] } {
    const present: number[] = [];
    let terms = 0;
    for (let i = 0; i < rows.length; i++) {
      if (!this.has(rows[i]!)) continue;
      present.push(i);
      terms += this.spans[2 * rows[i]! + 1]! - 1;
    }
    const offsets = new Uint32Array(present.length + 1);
    const termIds = new Uint32Array(terms);
    const weights = new Float32Array(terms);
    // element by element: a few dozen terms per row, where two views and two copies per row cost more
    for (let i = 0, at = 0; i < present.length; i++) {
      const row = rows[present[i]!]!;
      const start = this.spans[2 * row]!;
      const chunk = this.chunkAt(start);
      const from = start - chunk.start;
      const to = from + this.spans[2 * row + 1]! - 1;
      const ids = chunk.ids;
      const chunkWeights = chunk.weights;
      for (let j = from; j < to; j++, at++) {
        termIds[at] = ids[j]!;
        weights[at] = chunkWeights[j]!;
      }
      offsets[i + 1] = at;
    }
    return { packed: { offsets, ids: termIds, weights }, present };
  }

  /**
   * The vectors of `rows` as a terms file holds them: row i of it for `rows[i]`, empty and marked absent where
   * none. Awaits `pause` every SNAPSHOT_SLICE rows (a snapshot of a million rows packs tens of millions of terms): the
   * caller keeps row numbers valid meanwhile (the store's compaction blocked). A row that loses its terms during a
   * pause keeps the room counted for it and is marked absent; a reader skips it.
   */
  async packFile(rows: ArrayLike<number>, pause: () => Promise<void>): Promise<TermsFile> {
    const n = rows.length;
    const present = new Uint8Array(n);
    const offsets = new Uint32Array(n + 1);
    for (let i = 0; i < n; i++) {
      const row = rows[i]!;
      const has = this.has(row);
      present[i] = has ? 1 : 0;
      offsets[i + 1] = offsets[i]! + (has ? this.spans[2 * row + 1]! - 1 : 0);
      if ((i + 1) % SNAPSHOT_SLICE === 0) await pause();
    }
    const termIds = new Uint32Array(offsets[n]!);
    const weights = new Float32Array(offsets[n]!);
    for (let i = 0; i < n; i++) {
      const row = rows[i]!;
      if (present[i] && !this.has(row)) present[i] = 0;
      if (present[i]) {
        const start = this.spans[2 * row]!;
        const chunk = this.chunkAt(start);
        const from = start - chunk.start;
        const { ids, weights: chunkWeights } = chunk;
        for (let j = from, at = offsets[i]!; at < offsets[i + 1]!; j++, at++) {
          termIds[at] = ids[j]!;
          weights[at] = chunkWeights[j]!;
        }
      }
      if ((i + 1) % SNAPSHOT_SLICE === 0) await pause();
    }
    return { packed: { offsets, ids: termIds, weights }, present };
  }

  private reserveRow(row: number): void {
    if (2 * row < this.spans.length) return;
    const grown = new Uint32Array(2 * Math.max(row + 1, Math.ceil(this.spans.length * 0.75)));
    grown.set(this.spans);
    this.spans = grown;
  }

  /** The chunk holding position `at`. */
  private chunkAt(at: number): Chunk {
    const chunks = this.chunks;
    const recent = chunks[this.recent]!;
    if (at >= recent.start && at < recent.start + recent.ids.length) return recent;
    let lo = 0;
    let hi = chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (chunks[mid]!.start <= at) lo = mid;
      else hi = mid - 1;
    }
    this.recent = lo;
    return chunks[lo]!;
  }

  /** The chunk to write `n` more terms at `end`: the last one, or a new one (reclaiming garbage first when it is worth it). */
  private roomFor(n: number): Chunk {
    const last = this.chunks[this.chunks.length - 1];
    if (last && this.end + n <= last.start + last.ids.length) return last;
    if (this.garbage > MIN_COMPACT_TERMS && this.garbage > MAX_GARBAGE_SHARE * this.end) {
      this.compact();
      return this.roomFor(n);
    }
    if (last) {
      // What the last chunk has left is less than this row: left unused (counted as garbage, for compaction).
      this.garbage += last.start + last.ids.length - this.end;
      this.end = last.start + last.ids.length;
    }
    const size = Math.max(CHUNK_TERMS, n);
    const chunk = { start: this.end, ids: new Uint32Array(size), weights: new Float32Array(size) };
    this.chunks.push(chunk);
    return chunk;
  }

  /** Rewrites the live rows into fresh chunks, in row order. */
  private compact(): void {
    const spans = this.spans;
    const live: Array<{ span: number; ids: Uint32Array; weights: Float32Array }> = [];
    for (let span = 0; span < spans.length; span += 2) {
      const length = spans[span + 1]! - 1;
      if (length < 0) continue;
      const chunk = this.chunkAt(spans[span]!);
      const from = spans[span]! - chunk.start;
      live.push({ span, ids: chunk.ids.subarray(from, from + length), weights: chunk.weights.subarray(from, from + length) });
    }
    this.chunks = [];
    this.recent = 0;
    this.end = 0;
    this.garbage = 0;
    for (const row of live) {
      const chunk = this.roomFor(row.ids.length);
      const at = this.end - chunk.start;
      chunk.ids.set(row.ids, at);
      chunk.weights.set(row.weights, at);
      spans[row.span] = this.end;
      this.end += row.ids.length;
    }
  }
}
