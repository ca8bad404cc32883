import type { SparseSpans } from '../embedding/rerank';
import { MAX_TERM_ID, type PackedSparse, type SparseVector } from '../embedding/sparse';
import { readTermsFileInto, SNAPSHOT_SLICE, type PackedTerms, type TermsFile } from './snapshot';
import { f32View, u16View, u32View } from './views';

/** Room left behind by replaced and deleted rows is reclaimed once it passes this share of the terms. */
const MAX_GARBAGE_SHARE = 0.5;
const MIN_COMPACT_TERMS = 4096;
/** The term arrays grow by at least this many terms (256 KB of ids, 512 KB of weights), else by half. */
const GROW_TERMS = 1 << 17;
/** Growable shared buffers reserve their largest size up front (address space, not memory). */
const MAX_TERM_BYTES = 2 ** 32;
const MAX_SPAN_BYTES = 8 * 2 ** 23;

/**
 * A SparseRows' arrays as pool threads read them: spans (per row: start of its terms, then length + 1, 0 for none),
 * term ids and weights, each a growable SharedArrayBuffer. Ids are 16-bit (MAX_TERM_ID): the second stage's gather
 * reads every candidate's ids and weights, and two bytes less a term is a quarter less of what it reads
 * (docs/decisions/throughput.md). A reader takes all three at once: compaction writes fresh buffers and swaps them
 * in, never rewriting the ones readers hold.
 */
export interface SharedTerms {
  spans: SharedArrayBuffer;
  ids: SharedArrayBuffer;
  weights: SharedArrayBuffer;
}

function growable(bytes: number, max: number): SharedArrayBuffer {
  return new SharedArrayBuffer(bytes, { maxByteLength: max });
}

/** Grows `buffer` to at least `bytes` (by half at least), in whole multiples of 8 bytes (a span, two 32-bit words). */
function grow(buffer: SharedArrayBuffer, bytes: number): void {
  if (bytes > buffer.byteLength) buffer.grow(Math.min(buffer.maxByteLength, Math.ceil(Math.max(bytes, buffer.byteLength * 1.5) / 8) * 8));
}

/**
 * Where the terms of those `rows` that have some are, in order, without copying them: candidate i's are positions
 * [starts[i], ends[i]) of the shared arrays (views as they are now); `present` lists their indices in `rows`. Any thread
 * may call it while the owner writes (see packTermsOf).
 */
export function termSpansOf(terms: SharedTerms, rows: ArrayLike<number>): { spans: SparseSpans; present: Int32Array } {
  const spans = u32View(terms.spans);
  const ids = u16View(terms.ids);
  const present = new Int32Array(rows.length);
  const starts = new Uint32Array(rows.length);
  const ends = new Uint32Array(rows.length);
  let n = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (row < 0 || 2 * row + 1 >= spans.length) continue;
    const span = spans[2 * row + 1]!;
    if (span === 0) continue;
    const start = Math.min(spans[2 * row]!, ids.length);
    present[n] = i;
    starts[n] = start;
    ends[n++] = Math.min(start + span - 1, ids.length);
  }
  return {
    spans: { starts: starts.subarray(0, n), ends: ends.subarray(0, n), ids, weights: f32View(terms.weights).subarray(0, ids.length) },
    present: present.subarray(0, n),
  };
}

/**
 * The terms of those `rows` that have some, packed in order (`present` lists their indices in `rows`). Any thread
 * may call it while the owner writes: a row written meanwhile may read as absent or as its previous terms, never
 * outside the arrays.
 */
export function packTermsOf(terms: SharedTerms, rows: ArrayLike<number>, count = rows.length): { packed: PackedSparse; present: Int32Array } {
  const spans = u32View(terms.spans);
  const termIds = u16View(terms.ids);
  const termWeights = f32View(terms.weights);
  const present = new Int32Array(count);
  const starts = new Uint32Array(count);
  const lengths = new Uint32Array(count);
  let n = 0;
  let total = 0;
  for (let i = 0; i < count; i++) {
    const row = rows[i]!;
    if (row < 0 || 2 * row + 1 >= spans.length) continue;
    const start = spans[2 * row]!;
    const span = spans[2 * row + 1]!;
    if (span === 0) continue;
    const length = Math.min(span - 1, Math.max(0, termIds.length - start));
    present[n] = i;
    starts[n] = start;
    lengths[n++] = length;
    total += length;
  }
  const offsets = new Uint32Array(n + 1);
  const ids = new Uint32Array(total);
  const weights = new Float32Array(total);
  // element by element: a few dozen terms per row, where two views and two copies per row cost more
  for (let i = 0, at = 0; i < n; i++) {
    for (let j = starts[i]!, end = j + lengths[i]!; j < end; j++, at++) {
      ids[at] = termIds[j]!;
      weights[at] = termWeights[j]!;
    }
    offsets[i + 1] = at;
  }
  return { packed: { offsets, ids, weights }, present: present.subarray(0, n) };
}

/**
 * A sparse vector per row of a vector store (the second stage's TF-IDF terms), in shared growable arrays found by
 * the store's row, so the pool thread answering a query reads its candidates' terms where they are: where a row's
 * terms start and how many there are sit side by side in `spans` (two cache misses per row, not a lookup by id).
 * Rows are appended; a replaced or deleted row leaves garbage, reclaimed by compaction into fresh buffers.
 * The owner keeps rows in step with the store: `set` for a new row, `delete` for a dead one, `move` when
 * compaction moves a row.
 */
export class SparseRows {
  private buffers: SharedTerms;
  private spans: Uint32Array;
  private ids: Uint16Array;
  private weights: Float32Array;
  private live = 0;
  /** The position after the last term written. */
  private end = 0;
  private garbage = 0;

  constructor(terms = GROW_TERMS, rows = 128) {
    this.buffers = {
      spans: growable(8 * rows, MAX_SPAN_BYTES), ids: growable(2 * terms, MAX_TERM_BYTES / 2), weights: growable(4 * terms, MAX_TERM_BYTES),
    };
    this.spans = u32View(this.buffers.spans);
    this.ids = u16View(this.buffers.ids);
    this.weights = f32View(this.buffers.weights);
  }

  /** Adopts packed vectors (a snapshot's): packed row i is row i's, unless `present[i]` is 0. */
  static fromPacked(packed: PackedTerms, present?: Uint8Array): SparseRows {
    const rows = new SparseRows(Math.max(GROW_TERMS, packed.ids.length), Math.max(64, packed.offsets.length - 1));
    rows.ids.set(packed.ids);
    rows.weights.set(packed.weights);
    return rows.adopt(packed, present);
  }

  /** Reads a terms file (a snapshot's, row i for row i) with its terms straight into the shared buffers. */
  static async readFile(file: string): Promise<{ rows: SparseRows; count: number }> {
    let made: SparseRows | undefined;
    const { packed, present } = await readTermsFileInto(file, (terms) => {
      made = new SparseRows(Math.max(GROW_TERMS, terms));
      return { ids: made.ids, weights: made.weights };
    });
    const rows = made as SparseRows;
    const count = packed.offsets.length - 1;
    rows.reserveRow(Math.max(63, count - 1));
    return { rows: rows.adopt(packed, present), count };
  }

  /** Takes the spans of packed rows whose terms are already at positions 0… of this one's arrays. */
  private adopt(packed: PackedTerms, present?: Uint8Array): SparseRows {
    const count = packed.offsets.length - 1;
    for (let i = 0; i < count; i++) {
      const length = packed.offsets[i + 1]! - packed.offsets[i]!;
      if (present && !present[i]) {
        this.garbage += length;
        continue;
      }
      this.spans[2 * i] = packed.offsets[i]!;
      this.spans[2 * i + 1] = length + 1;
      this.live++;
    }
    this.end = packed.ids.length;
    return this;
  }

  /** The arrays as they are now, for a pool thread (see SharedTerms). */
  get shared(): SharedTerms {
    return this.buffers;
  }

  get size(): number {
    return this.live;
  }

  /** Bytes of term arrays held, spare room included. */
  get bytes(): number {
    return this.buffers.spans.byteLength + this.buffers.ids.byteLength + this.buffers.weights.byteLength;
  }

  has(row: number): boolean {
    return row >= 0 && 2 * row + 1 < this.spans.length && this.spans[2 * row + 1]! !== 0;
  }

  /** Stores `vector` for `row`, replacing any it had. */
  set(row: number, vector: SparseVector): void {
    const n = vector.ids.length;
    // ids ascend: the last is the largest
    if (n > 0 && vector.ids[n - 1]! > MAX_TERM_ID) throw new RangeError(`term id ${vector.ids[n - 1]} does not fit the 16-bit term arrays`);
    this.delete(row);
    this.roomFor(n);
    this.ids.set(vector.ids, this.end);
    this.weights.set(vector.weights, this.end);
    this.reserveRow(row);
    // Start first, then the length that makes the row visible to readers.
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
    const { packed, present } = packTermsOf(this.buffers, rows);
    return { packed, present: Array.from(present) };
  }

  /**
   * The vectors of `rows` as a terms file holds them: row i of it for `rows[i]`, empty and marked absent where
   * none. Awaits `pause` every SNAPSHOT_SLICE rows (a snapshot of a million rows packs tens of millions of terms): the
   * caller keeps row numbers valid meanwhile (the store's compaction blocked). A row that loses its terms during a
   * pause keeps the room counted for it and is marked absent; a reader skips it. Reads through the arrays current at
   * each row (a compaction during a pause swaps them).
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
    const termIds = new Uint16Array(offsets[n]!);
    const weights = new Float32Array(offsets[n]!);
    for (let i = 0; i < n; i++) {
      const row = rows[i]!;
      if (present[i] && (!this.has(row) || this.spans[2 * row + 1]! - 1 !== offsets[i + 1]! - offsets[i]!)) present[i] = 0;
      if (present[i]) {
        const from = this.spans[2 * row]!;
        termIds.set(this.ids.subarray(from, from + offsets[i + 1]! - offsets[i]!), offsets[i]!);
        weights.set(this.weights.subarray(from, from + offsets[i + 1]! - offsets[i]!), offsets[i]!);
      }
      if ((i + 1) % SNAPSHOT_SLICE === 0) await pause();
    }
    return { packed: { offsets, ids: termIds, weights }, present };
  }

  private reserveRow(row: number): void {
    if (2 * row + 1 < this.spans.length) return;
    grow(this.buffers.spans, 8 * (row + 1));
    this.spans = u32View(this.buffers.spans);
  }

  /** Room for `n` more terms at `end`: the arrays grown, or compacted first when garbage passes its share. */
  private roomFor(n: number): void {
    if (this.end + n <= this.ids.length) return;
    if (this.garbage > MIN_COMPACT_TERMS && this.garbage > MAX_GARBAGE_SHARE * this.end) {
      this.compact();
      if (this.end + n <= this.ids.length) return;
    }
    const terms = Math.max(this.end + n, this.ids.length + GROW_TERMS);
    grow(this.buffers.ids, 2 * terms);
    grow(this.buffers.weights, 4 * terms);
    this.ids = u16View(this.buffers.ids);
    this.weights = f32View(this.buffers.weights);
  }

  /** Rewrites the live rows into fresh buffers, in row order, and swaps them in (readers keep the ones they hold). */
  private compact(): void {
    const spans = this.spans;
    const liveTerms = this.end - this.garbage;
    const next = new SparseRows(Math.max(GROW_TERMS, Math.ceil(liveTerms * 1.25)), spans.length / 2);
    for (let span = 0; span < spans.length; span += 2) {
      const length = spans[span + 1]! - 1;
      if (length < 0) continue;
      const from = spans[span]!;
      next.ids.set(this.ids.subarray(from, from + length), next.end);
      next.weights.set(this.weights.subarray(from, from + length), next.end);
      next.spans[span] = next.end;
      next.spans[span + 1] = length + 1;
      next.end += length;
    }
    this.buffers = next.buffers;
    this.spans = next.spans;
    this.ids = next.ids;
    this.weights = next.weights;
    this.end = next.end;
    this.garbage = 0;
  }
}
