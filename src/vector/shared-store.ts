import { computeLayout, Layout, LayoutOptions, MAX_PAGES, pagesFor, PAGE_BYTES } from './layout';
import { instantiateKernel, KernelExports } from './kernel';
import { scoreRowsInto } from './dense-kernel';

/**
 * Rows of float32 vectors in one shared WebAssembly.Memory, with id ↔ row maps,
 * an alive bitmap and compaction that never disturbs searches in flight.
 *
 * Consistency rules (all mutation happens on the owning thread):
 * - A new vector is appended at row `count`; its alive bit is set after the vector is
 *   written, so a scan either skips it or sees it complete.
 * - Replacing or removing an id clears the alive bit of its row (a "hole"); rows are
 *   never overwritten in place.
 * - Every hole records the sequence number at which it died. A reader (search) records
 *   the sequence number at which it started. Compaction refills a hole, and shrinks the
 *   row range, only when every reader in flight started after that hole died, so a row
 *   number a reader got back still names the id it scored.
 */
export class SharedVectorStore {
  readonly layout: Layout;
  readonly memory: WebAssembly.Memory;
  readonly kernel: KernelExports;
  /** Rows in use, live or dead: scans cover [0, count). */
  count = 0;
  private capacity: number;
  private live = 0;
  private readonly rowToId: Array<string | undefined> = [];
  private readonly idToRow = new Map<string, number>();
  private deadSeq: Float64Array;
  private holes: number[] = [];
  private holesHead = 0;
  private seq = 0;
  private readonly readers = new Map<number, number>();
  private nextReader = 1;
  private compactionBlocks = 0;
  /** Told of every live row compaction moves (an approximate index keeps its label → row table current). */
  readonly moveListeners = new Set<(from: number, to: number) => void>();
  private bufferCache: ArrayBuffer | SharedArrayBuffer | undefined;
  private f32Cache: Float32Array | undefined;
  private u32Cache: Uint32Array | undefined;

  constructor(layoutOptions: LayoutOptions, initialRows = 1024) {
    this.layout = computeLayout(layoutOptions);
    this.capacity = Math.max(32, Math.min(initialRows, this.layout.maxRows));
    this.memory = new WebAssembly.Memory({
      initial: pagesFor(this.layout, this.capacity),
      maximum: MAX_PAGES,
      shared: true,
    });
    this.capacity = this.rowsThatFit();
    this.deadSeq = new Float64Array(this.capacity);
    this.kernel = instantiateKernel(this.memory);
  }

  get dim(): number {
    return this.layout.dim;
  }

  /** Live ids. */
  get size(): number {
    return this.live;
  }

  get holeCount(): number {
    return this.count - this.live;
  }

  /** Float32 view over the whole memory (refreshed after growth). */
  f32(): Float32Array {
    this.refreshViews();
    return this.f32Cache as Float32Array;
  }

  u32(): Uint32Array {
    this.refreshViews();
    return this.u32Cache as Uint32Array;
  }

  private refreshViews(): void {
    const buffer = this.memory.buffer;
    if (buffer !== this.bufferCache) {
      this.bufferCache = buffer;
      this.f32Cache = new Float32Array(buffer);
      this.u32Cache = new Uint32Array(buffer);
    }
  }

  private rowsThatFit(): number {
    const bytes = this.memory.buffer.byteLength - this.layout.vectorsBase;
    return Math.min(this.layout.maxRows, Math.floor(bytes / (this.layout.stride * 4)));
  }

  rowOffset(row: number): number {
    return this.layout.vectorsBase + row * this.layout.stride * 4;
  }

  rowOf(id: string): number | undefined {
    return this.idToRow.get(id);
  }

  idOf(row: number): string | undefined {
    return this.rowToId[row];
  }

  isAlive(row: number): boolean {
    return (Atomics.load(this.u32(), (this.layout.aliveBase >> 2) + (row >> 5)) & (1 << (row & 31))) !== 0;
  }

  /**
   * `isAlive` for many rows in one turn of the event loop: the view and base read once, plain loads (this thread is
   * the only one that changes the bits).
   */
  aliveBits(): (row: number) => boolean {
    const u32 = this.u32();
    const base = this.layout.aliveBase >> 2;
    return (row) => (u32[base + (row >> 5)]! & (1 << (row & 31))) !== 0;
  }

  private setAlive(row: number, alive: boolean): void {
    const word = (this.layout.aliveBase >> 2) + (row >> 5);
    if (alive) Atomics.or(this.u32(), word, 1 << (row & 31));
    else Atomics.and(this.u32(), word, ~(1 << (row & 31)));
  }

  ids(): IterableIterator<string> {
    return this.idToRow.keys();
  }

  /** Each live id with its row. */
  idRows(): IterableIterator<[string, number]> {
    return this.idToRow.entries();
  }

  /** Copies the vector of `id` (dim floats) or returns undefined. */
  vectorOf(id: string): Float32Array | undefined {
    const row = this.idToRow.get(id);
    if (row === undefined) return undefined;
    const start = this.rowOffset(row) >> 2;
    return this.f32().slice(start, start + this.layout.dim);
  }

  /** Inner products of `query` (dim floats) with the vectors in `rows`, as the kernel's scan computes them. */
  scoreRows(rows: Int32Array, query: Float32Array): Float32Array {
    const { stride, vectorsBase } = this.layout;
    const padded = query.length === stride ? query : new Float32Array(stride);
    if (padded !== query) padded.set(query);
    const out = new Float32Array(rows.length);
    scoreRowsInto(this.f32().subarray(vectorsBase >> 2, (vectorsBase >> 2) + this.count * stride), stride, rows, padded, out);
    return out;
  }

  /** Copies the vectors in `rows` into `out`, one after another (dim floats each). */
  copyRows(rows: ArrayLike<number>, out: Float32Array): void {
    const f32 = this.f32();
    const { dim, stride } = this.layout;
    const base = this.layout.vectorsBase >> 2;
    // a loop, not a view and a set per row (the time is the rows' cache misses either way)
    for (let i = 0, at = 0; i < rows.length; i++) {
      const start = base + rows[i]! * stride;
      for (let j = 0; j < dim; j++) out[at++] = f32[start + j]!;
    }
  }

  /** Stores `vec` for `id` (appending a row; an older row of the id becomes a hole). */
  put(id: string, vec: Float32Array): void {
    if (vec.length !== this.layout.dim) throw new RangeError(`vector has ${vec.length} dims, index has ${this.layout.dim}`);
    this.putMany([id], vec);
  }

  /**
   * Stores `rows` (consecutive vectors of dim floats) for `ids` in order: `put` for a whole block at once (a
   * snapshot's), with one growth, one copy and the alive bits set a word at a time.
   */
  putMany(ids: readonly string[], rows: Float32Array): void {
    const { dim, stride } = this.layout;
    if (rows.length !== ids.length * dim) throw new RangeError(`${ids.length} ids need ${ids.length * dim} floats, got ${rows.length}`);
    const first = this.count;
    if (first + ids.length > this.capacity) this.grow(first + ids.length);
    const f32 = this.f32();
    const base = this.rowOffset(first) >> 2;
    if (stride === dim) {
      if (rows.buffer !== f32.buffer || rows.byteOffset !== base * 4) f32.set(rows, base);
    } else {
      for (let i = 0; i < ids.length; i++) {
        f32.set(rows.subarray(i * dim, (i + 1) * dim), base + i * stride);
        f32.fill(0, base + i * stride + dim, base + (i + 1) * stride);
      }
    }
    // Alive bits after the vectors are written (a scan either skips a row or sees it complete).
    this.count = first + ids.length;
    this.setAliveRange(first, this.count);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const row = first + i;
      this.rowToId[row] = id;
      const old = this.idToRow.get(id);
      this.idToRow.set(id, row);
      if (old !== undefined) this.kill(old);
      else this.live++;
    }
  }

  /**
   * Where the next `count` rows would go, as one array when rows have no padding (read a block of rows into it,
   * then `putMany` them without a copy); otherwise a new array.
   */
  roomFor(count: number): Float32Array {
    const { dim, stride } = this.layout;
    if (stride !== dim) return new Float32Array(count * dim);
    if (this.count + count > this.capacity) this.grow(this.count + count);
    const base = this.rowOffset(this.count) >> 2;
    return this.f32().subarray(base, base + count * dim);
  }

  private setAliveRange(from: number, to: number): void {
    const u32 = this.u32();
    const base = this.layout.aliveBase >> 2;
    for (let row = from; row < to;) {
      const bit = row & 31;
      const bits = Math.min(32 - bit, to - row);
      const mask = bits === 32 ? 0xffffffff : ((1 << bits) - 1) << bit;
      Atomics.or(u32, base + (row >> 5), mask | 0);
      row += bits;
    }
  }

  delete(id: string): boolean {
    const row = this.idToRow.get(id);
    if (row === undefined) return false;
    this.idToRow.delete(id);
    this.kill(row);
    this.live--;
    return true;
  }

  private kill(row: number): void {
    this.setAlive(row, false);
    this.deadSeq[row] = ++this.seq;
    this.holes.push(row);
  }

  private grow(rowsNeeded: number): void {
    if (rowsNeeded > this.layout.maxRows) throw new RangeError(`vector index is full (${this.layout.maxRows} rows of dim ${this.layout.dim})`);
    const target = Math.min(this.layout.maxRows, Math.max(rowsNeeded, Math.ceil(this.capacity * 1.5), 1024));
    const pages = pagesFor(this.layout, target) - this.memory.buffer.byteLength / PAGE_BYTES;
    if (pages > 0) this.memory.grow(pages);
    this.capacity = this.rowsThatFit();
    const seqs = new Float64Array(this.capacity);
    seqs.set(this.deadSeq);
    this.deadSeq = seqs;
  }

  /** Registers a reader; rows it may return stay valid until `endRead`. */
  beginRead(): number {
    const token = this.nextReader++;
    this.readers.set(token, this.seq);
    return token;
  }

  endRead(token: number): void {
    this.readers.delete(token);
  }

  /** Sequence number every reader in flight started at or after. */
  private oldestReader(): number {
    let min = Infinity;
    for (const s of this.readers.values()) if (s < min) min = s;
    return min;
  }

  /** Pauses compaction (e.g. while a snapshot or an ANN build reads rows by number). */
  blockCompaction(): () => void {
    this.compactionBlocks++;
    let released = false;
    return () => {
      if (!released) {
        released = true;
        this.compactionBlocks--;
      }
    };
  }

  /**
   * Moves up to `maxMoves` live rows from the end into reusable holes and trims dead
   * rows off the end. Returns the number of rows moved or trimmed (0: nothing doable now).
   */
  compactStep(maxMoves = 4096): number {
    if (this.compactionBlocks > 0) return 0;
    const oldest = this.oldestReader();
    const reusable = (row: number): boolean => this.deadSeq[row] <= oldest;
    let work = 0;
    const f32 = this.f32();
    const rowFloats = this.layout.stride;
    while (work < maxMoves) {
      // trim the dead tail
      while (this.count > 0 && !this.isAlive(this.count - 1) && reusable(this.count - 1)) {
        this.count--;
        this.rowToId[this.count] = undefined;
        work++;
      }
      const hole = this.nextReusableHole(oldest);
      if (hole === undefined) break;
      const last = this.lastLiveRow();
      if (last === undefined || last < hole) {
        this.holes.push(hole); // keep it for the trim above once the tail is reusable
        break;
      }
      const id = this.rowToId[last] as string;
      f32.copyWithin(this.rowOffset(hole) >> 2, this.rowOffset(last) >> 2, (this.rowOffset(last) >> 2) + rowFloats);
      this.rowToId[hole] = id;
      this.idToRow.set(id, hole);
      this.setAlive(hole, true);
      this.kill(last);
      for (const moved of this.moveListeners) moved(last, hole);
      work++;
    }
    if (this.holesHead > 4096 && this.holesHead * 2 > this.holes.length) {
      this.holes = this.holes.slice(this.holesHead);
      this.holesHead = 0;
    }
    return work;
  }

  private lastLiveRow(): number | undefined {
    for (let r = this.count - 1; r >= 0; r--) if (this.isAlive(r)) return r;
    return undefined;
  }

  /** Oldest hole that is still a hole below `count` and that no reader can still name. */
  private nextReusableHole(oldest: number): number | undefined {
    while (this.holesHead < this.holes.length) {
      const row = this.holes[this.holesHead];
      if (row >= this.count || this.isAlive(row)) {
        this.holesHead++;
        continue; // trimmed or refilled since it was queued
      }
      if (this.deadSeq[row] > oldest) return undefined; // FIFO: later holes are younger
      this.holesHead++;
      return row;
    }
    return undefined;
  }
}
