import type { PackedSparse, SparseVector } from '../../embedding/sparse';
import type { TermsFile } from './snapshot';

/** Room left behind by replaced and deleted rows is reclaimed once it passes this share of the arrays. */
const MAX_GARBAGE_SHARE = 0.5;
const MIN_COMPACT_TERMS = 4096;

/**
 * A sparse vector per row of a vector store (the second stage's TF-IDF terms), every vector in two flat arrays,
 * found by the store's row: where a row's terms start and how many there are sit side by side in `spans`, so the
 * 800 rows a search names cost two cache misses each (their span, their terms), not a lookup by id (at 1M
 * documents ~0.65 µs of misses per id). The owner keeps rows in step with the store: `set` for a new row,
 * `delete` for a dead one, `move` when compaction moves a row.
 */
export class SparseRows {
  /** Per row: start in the term arrays, then length + 1 (0: the row has no vector). */
  private spans: Uint32Array = new Uint32Array(128);
  private live = 0;
  private termIds: Uint32Array = new Uint32Array(1024);
  private weights: Float32Array = new Float32Array(1024);
  private end = 0;
  private garbage = 0;

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
    rows.termIds = packed.ids;
    rows.weights = packed.weights;
    rows.end = packed.ids.length;
    return rows;
  }

  get size(): number {
    return this.live;
  }

  has(row: number): boolean {
    return row >= 0 && 2 * row < this.spans.length && this.spans[2 * row + 1]! !== 0;
  }

  /** Stores `vector` for `row`, replacing any it had. */
  set(row: number, vector: SparseVector): void {
    this.delete(row);
    const n = vector.ids.length;
    this.reserve(n);
    this.termIds.set(vector.ids, this.end);
    this.weights.set(vector.weights, this.end);
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

  clear(): void {
    this.spans.fill(0);
    this.live = 0;
    this.end = 0;
    this.garbage = 0;
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
      const from = this.spans[2 * row]!;
      const to = from + this.spans[2 * row + 1]! - 1;
      for (let j = from; j < to; j++, at++) {
        termIds[at] = this.termIds[j]!;
        weights[at] = this.weights[j]!;
      }
      offsets[i + 1] = at;
    }
    return { packed: { offsets, ids: termIds, weights }, present };
  }

  /** The vectors of `rows` as a terms file holds them: row i of it for `rows[i]`, empty and marked absent where none. */
  packFile(rows: ArrayLike<number>): TermsFile {
    const { packed, present } = this.pack(rows);
    const flags = new Uint8Array(rows.length);
    for (const at of present) flags[at] = 1;
    if (present.length === rows.length) return { packed, present: flags };
    const offsets = new Uint32Array(rows.length + 1);
    for (let i = 0, next = 0; i < rows.length; i++) {
      const length = flags[i] ? packed.offsets[next + 1]! - packed.offsets[next++]! : 0;
      offsets[i + 1] = offsets[i]! + length;
    }
    return { packed: { offsets, ids: packed.ids, weights: packed.weights }, present: flags };
  }

  private reserveRow(row: number): void {
    if (2 * row < this.spans.length) return;
    const grown = new Uint32Array(2 * Math.max(row + 1, Math.ceil(this.spans.length * 0.75)));
    grown.set(this.spans);
    this.spans = grown;
  }

  /** Makes room for `n` more terms at the end: reclaims garbage when it is worth it, else grows by half. */
  private reserve(n: number): void {
    if (this.end + n <= this.termIds.length) return;
    if (this.garbage > MIN_COMPACT_TERMS && this.garbage > MAX_GARBAGE_SHARE * this.end) this.compact(n);
    if (this.end + n <= this.termIds.length) return;
    const grown = Math.max(this.end + n, Math.ceil(this.termIds.length * 1.5));
    this.termIds = copyInto(new Uint32Array(grown), this.termIds.subarray(0, this.end));
    this.weights = copyInto(new Float32Array(grown), this.weights.subarray(0, this.end));
  }

  private compact(extra: number): void {
    const live = this.end - this.garbage;
    const size = Math.max(1024, Math.ceil((live + extra) * 1.25));
    const termIds = new Uint32Array(size);
    const weights = new Float32Array(size);
    let at = 0;
    for (let span = 0; span < this.spans.length; span += 2) {
      const length = this.spans[span + 1]! - 1;
      if (length < 0) continue;
      const start = this.spans[span]!;
      termIds.set(this.termIds.subarray(start, start + length), at);
      weights.set(this.weights.subarray(start, start + length), at);
      this.spans[span] = at;
      at += length;
    }
    this.termIds = termIds;
    this.weights = weights;
    this.end = at;
    this.garbage = 0;
  }
}

function copyInto<T extends Uint32Array | Float32Array>(target: T, source: ArrayLike<number>): T {
  target.set(source);
  return target;
}
