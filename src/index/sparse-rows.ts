import type { PackedSparse, SparseVector } from '../embedding';

/** Room left behind by replaced and deleted rows is reclaimed once it passes this share of the arrays. */
const MAX_GARBAGE_SHARE = 0.5;
const MIN_COMPACT_TERMS = 4096;

/**
 * Sparse vectors keyed by document id (the second stage's TF-IDF terms), every row in two flat arrays:
 * a document costs its terms (8 bytes each) and a slot, not an object and two typed-array views
 * (bench:scale, 82k documents: the main thread's heap 457 → 225 bytes per document).
 */
export class SparseRows {
  private readonly slotOf = new Map<string, number>();
  private starts: Uint32Array = new Uint32Array(64);
  private lengths: Uint32Array = new Uint32Array(64);
  private slots = 0;
  private freeSlots: number[] = [];
  private termIds: Uint32Array = new Uint32Array(1024);
  private weights: Float32Array = new Float32Array(1024);
  private end = 0;
  private garbage = 0;

  /** Adopts packed rows (a snapshot's), row i being `ids[i]`'s. */
  static fromPacked(ids: readonly string[], packed: PackedSparse): SparseRows {
    const rows = new SparseRows();
    rows.starts = new Uint32Array(Math.max(64, ids.length));
    rows.lengths = new Uint32Array(rows.starts.length);
    ids.forEach((id, i) => {
      rows.starts[i] = packed.offsets[i]!;
      rows.lengths[i] = packed.offsets[i + 1]! - packed.offsets[i]!;
      rows.slotOf.set(id, i);
    });
    rows.slots = ids.length;
    rows.termIds = packed.ids;
    rows.weights = packed.weights;
    rows.end = packed.ids.length;
    return rows;
  }

  get size(): number {
    return this.slotOf.size;
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  ids(): IterableIterator<string> {
    return this.slotOf.keys();
  }

  set(id: string, row: SparseVector): void {
    this.delete(id);
    const n = row.ids.length;
    this.reserve(n);
    this.termIds.set(row.ids, this.end);
    this.weights.set(row.weights, this.end);
    const slot = this.freeSlots.pop() ?? this.newSlot();
    this.starts[slot] = this.end;
    this.lengths[slot] = n;
    this.end += n;
    this.slotOf.set(id, slot);
  }

  delete(id: string): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    this.slotOf.delete(id);
    this.garbage += this.lengths[slot]!;
    this.freeSlots.push(slot);
    return true;
  }

  clear(): void {
    this.slotOf.clear();
    this.slots = 0;
    this.freeSlots = [];
    this.end = 0;
    this.garbage = 0;
  }

  /** The rows of `ids` (each present) packed into three transferable arrays, in that order. */
  pack(ids: readonly string[]): PackedSparse {
    const slots = ids.map((id) => {
      const slot = this.slotOf.get(id);
      if (slot === undefined) throw new Error(`no sparse row for ${id}`);
      return slot;
    });
    return this.packSlots(slots);
  }

  /** The rows of those `ids` that have one, packed in order; `present` lists their indices in `ids`. */
  packPresent(ids: readonly string[]): { packed: PackedSparse; present: number[] } {
    const slots: number[] = [];
    const present: number[] = [];
    ids.forEach((id, i) => {
      const slot = this.slotOf.get(id);
      if (slot === undefined) return;
      slots.push(slot);
      present.push(i);
    });
    return { packed: this.packSlots(slots), present };
  }

  private packSlots(slots: readonly number[]): PackedSparse {
    const offsets = new Uint32Array(slots.length + 1);
    slots.forEach((slot, i) => (offsets[i + 1] = offsets[i]! + this.lengths[slot]!));
    const termIds = new Uint32Array(offsets[slots.length]!);
    const weights = new Float32Array(offsets[slots.length]!);
    // element by element: a few dozen terms per row, where two views and two copies per row cost more
    for (let i = 0; i < slots.length; i++) {
      const from = this.starts[slots[i]!]!;
      for (let at = offsets[i]!, j = from; at < offsets[i + 1]!; at++, j++) {
        termIds[at] = this.termIds[j]!;
        weights[at] = this.weights[j]!;
      }
    }
    return { offsets, ids: termIds, weights };
  }

  private newSlot(): number {
    if (this.slots === this.starts.length) {
      const grown = Math.ceil(this.starts.length * 1.5);
      this.starts = copyInto(new Uint32Array(grown), this.starts);
      this.lengths = copyInto(new Uint32Array(grown), this.lengths);
    }
    return this.slots++;
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
    for (const slot of this.slotOf.values()) {
      const start = this.starts[slot]!;
      const length = this.lengths[slot]!;
      termIds.set(this.termIds.subarray(start, start + length), at);
      weights.set(this.weights.subarray(start, start + length), at);
      this.starts[slot] = at;
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
