import type { WorkerPool } from '../../pool';
import type { VectorSearchTask } from '../../../workers/vector-search';
import { ApproximateIndex, ApproximateOptions, Hit } from './approximate';
import { loadFaissAddon } from './faiss-addon';
import { SharedVectorStore } from './shared-store';
import { SlotPool } from './slot-pool';
import { readSnapshot, writeSnapshot } from './snapshot';

export type { Hit } from './approximate';

export interface VectorIndexOptions {
  /** Runs exact scans of large indexes in parallel shards; without it scans run on the calling thread. */
  pool?: WorkerPool;
  /** Shards per exact scan (default: the pool's threads). */
  shards?: number;
  /** Largest k a search accepts (default 1024). */
  kMax?: number;
  /** Rows to reserve memory for at first (grows by 1.5× as needed). */
  initialRows?: number;
  /** Hard cap on rows (default: what fits in 4 GiB of wasm32 memory). */
  maxRows?: number;
  /** Scans of at most this many rows run on the calling thread, not in workers (default 4096, measured). */
  localScanRows?: number;
  /** Allow-lists up to this size are scored row by row instead of scanning (default 4096). */
  directMax?: number;
  /** Searches holding memory at once; more wait (default 64). */
  concurrentSearches?: number;
  /** Approximate (FAISS) search for large indexes; false turns it off. */
  approximate?: false | (ApproximateOptions & {
    /** Build the ANN index once the index holds this many ids (default 50,000). */
    minRows?: number;
  });
  /** Compact once holes exceed this share of rows (default 0.1). */
  compactRatio?: number;
}

export interface SearchOptions {
  /** Ids never returned. */
  exclude?: ReadonlySet<string>;
  /** Only these ids (a set) or ids passing this test may be returned. */
  allow?: ReadonlySet<string> | ((id: string) => boolean);
  /** Force the exact scan even when an approximate index is ready. */
  exact?: boolean;
}

/** Exclude sets larger than this become a row mask instead of over-fetching. */
const EXCLUDE_OVERFETCH_MAX = 64;
const ROW_ALIGN = 32;

let nextStoreNumber = 1;

function normalised(vec: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vec.length; i++) sum += vec[i] * vec[i];
  const out = new Float32Array(vec.length);
  if (sum === 0 || !Number.isFinite(sum)) {
    if (!Number.isFinite(sum)) throw new RangeError('vector has non-finite components');
    return out;
  }
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < vec.length; i++) out[i] = vec[i] * inv;
  return out;
}

function byScoreDesc(a: Hit, b: Hit): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Exact (WASM SIMD, optionally parallel) and approximate (FAISS IVF) cosine search over
 * L2-normalised float32 vectors keyed by string id. See docs/decisions/vector.md.
 */
export class VectorIndex {
  readonly dim: number;
  readonly store: SharedVectorStore;
  private readonly storeNumber = nextStoreNumber++;
  private readonly pool: WorkerPool | undefined;
  private shards: number;
  private localScanRows: number;
  private readonly slots: SlotPool;
  private readonly masks: SlotPool;
  private readonly compactRatio: number;
  private readonly approxOptions: (ApproximateOptions & { minRows?: number }) | undefined;
  private approx: ApproximateIndex | undefined;
  private approxBuilding: Promise<void> | undefined;
  private building: ApproximateIndex | undefined;
  private compactTimer: NodeJS.Timeout | undefined;
  private compactScheduled = false;
  private closed = false;

  constructor(dim: number, opts: VectorIndexOptions = {}) {
    this.dim = dim;
    this.pool = opts.pool;
    this.shards = Math.max(1, Math.min(16, opts.shards ?? opts.pool?.threads ?? 1));
    const concurrent = opts.concurrentSearches ?? 64;
    const maskSlots = 4;
    this.store = new SharedVectorStore({
      dim,
      kMax: opts.kMax ?? 1024,
      shardsMax: this.shards,
      slots: concurrent,
      maskSlots,
      directMax: opts.directMax ?? 4096,
      maxRows: opts.maxRows,
    }, opts.initialRows);
    this.slots = new SlotPool(concurrent);
    this.masks = new SlotPool(maskSlots);
    this.localScanRows = opts.localScanRows ?? 4096;
    this.compactRatio = opts.compactRatio ?? 0.1;
    this.approxOptions = opts.approximate === false ? undefined : (opts.approximate ?? {});
  }

  get size(): number {
    return this.store.size;
  }

  get kMax(): number {
    return this.store.layout.kMax;
  }

  has(id: string): boolean {
    return this.store.rowOf(id) !== undefined;
  }

  ids(): IterableIterator<string> {
    return this.store.ids();
  }

  /** A copy of the stored (normalised) vector. */
  vectorOf(id: string): Float32Array | undefined {
    return this.store.vectorOf(id);
  }

  /** Adds or replaces `id`; the vector is L2-normalised on the way in (a zero vector stays zero). */
  upsert(id: string, vec: Float32Array): void {
    this.store.put(id, normalised(vec));
    this.approx?.noteChange(id);
    this.building?.noteChange(id);
    this.afterMutation();
  }

  remove(id: string): boolean {
    const removed = this.store.delete(id);
    if (removed) {
      this.approx?.noteChange(id);
      this.building?.noteChange(id);
      this.afterMutation();
    }
    return removed;
  }

  /** State of the approximate index: 'off', 'building' or 'ready'. */
  get approximateState(): 'off' | 'building' | 'ready' {
    if (this.approx?.isReady) return 'ready';
    return this.approxBuilding ? 'building' : 'off';
  }

  /** Whether the FAISS addon is built and loadable here. */
  static approximateAvailable(): boolean {
    return loadFaissAddon() !== null;
  }

  private afterMutation(): void {
    const a = this.approxOptions;
    if (a && !this.approx && !this.approxBuilding && this.store.size >= (a.minRows ?? 50_000)) {
      void this.rebuildApproximate().catch(() => undefined);
    }
    const holes = this.store.holeCount;
    if (holes > 1024 && holes > this.compactRatio * this.store.count) this.scheduleCompaction();
  }

  /**
   * Builds a fresh approximate index aside and swaps it in (queries keep using the old
   * one, or the exact scan, meanwhile). Rejects when the FAISS addon is not built.
   */
  rebuildApproximate(): Promise<void> {
    if (this.approxBuilding) return this.approxBuilding;
    const addon = loadFaissAddon();
    if (!addon) return Promise.reject(new Error('FAISS addon not built: run `make -C native faiss`'));
    const next = ApproximateIndex.create(this.store, addon, this.approxOptions ?? {});
    // changes during the build reach `next` through noteChange; its first flush applies them
    this.building = next;
    this.approxBuilding = next.build().then(() => {
      this.building = undefined;
      if (this.closed) {
        next.close();
        return;
      }
      const old = this.approx;
      this.approx = next;
      old?.close();
    }, (err: unknown) => {
      this.building = undefined;
      next.close();
      throw err;
    }).finally(() => {
      this.approxBuilding = undefined;
    });
    return this.approxBuilding;
  }

  /** Changes how exact scans are split: shards (at most the constructor's) and the local-scan threshold. */
  setScan(opts: { shards?: number; localScanRows?: number }): void {
    if (opts.shards !== undefined) this.shards = Math.max(1, Math.min(this.store.layout.shardsMax, opts.shards));
    if (opts.localScanRows !== undefined) this.localScanRows = Math.max(0, opts.localScanRows);
  }

  /** Tunes the approximate search (IVF nprobe / HNSW efSearch) of the current and future ANN index. */
  setApproximateParams(params: { nprobe?: number; efSearch?: number }): void {
    if (this.approxOptions) {
      if (params.nprobe !== undefined) this.approxOptions.nprobe = params.nprobe;
      if (params.efSearch !== undefined) this.approxOptions.efSearch = params.efSearch;
    }
    this.approx?.setSearchParams(params);
  }

  /** Waits until every change so far is in the approximate index (no-op without one). */
  async flushApproximate(): Promise<void> {
    if (this.approxBuilding) await this.approxBuilding;
    await this.approx?.flush();
  }

  /**
   * The k ids most similar to `query` (cosine; the query is normalised), best first.
   * Uses the approximate index when it is ready and the search has no predicate `allow`;
   * `exact: true` forces the exact scan.
   */
  async search(query: Float32Array, k: number, opts: SearchOptions = {}): Promise<Hit[]> {
    if (query.length !== this.dim) throw new RangeError(`query has ${query.length} dims, index has ${this.dim}`);
    if (!Number.isInteger(k) || k < 1) throw new RangeError('k must be a positive integer');
    if (k > this.kMax) throw new RangeError(`k must be at most ${this.kMax}`);
    const q = normalised(query);
    const { allow, exclude } = opts;
    if (allow instanceof Set && allow.size <= this.store.layout.directMax) {
      return this.scoreDirect(q, k, allow, exclude);
    }
    if (!opts.exact && this.approx?.isReady && typeof allow !== 'function') {
      const hits = await this.searchApproximate(q, k, allow, exclude);
      if (hits) return hits;
    }
    return this.searchExact(q, k, allow, exclude);
  }

  private async searchApproximate(
    q: Float32Array, k: number, allow: ReadonlySet<string> | undefined, exclude: ReadonlySet<string> | undefined,
  ): Promise<Hit[] | undefined> {
    const approx = this.approx as ApproximateIndex;
    let excluded = 0;
    if (exclude) for (const id of exclude) if (this.has(id)) excluded++;
    const fetch = Math.min(this.kMax + EXCLUDE_OVERFETCH_MAX, k + excluded);
    const raw = await approx.search(q, fetch, allow);
    const hits = raw.filter((h) => !exclude?.has(h.id)).slice(0, k);
    const eligible = (allow ? allow.size : this.size) - excluded;
    // too few results (a filter the probed lists barely cover): answer exactly instead
    if (hits.length < Math.min(k, eligible)) return undefined;
    return hits;
  }

  /** Scores the listed ids one by one on this thread (small allow-lists). */
  private async scoreDirect(q: Float32Array, k: number, allow: ReadonlySet<string>, exclude?: ReadonlySet<string>): Promise<Hit[]> {
    const slot = await this.slots.acquire();
    const token = this.store.beginRead();
    try {
      const layout = this.store.layout;
      const slotBase = layout.slotsBase + slot * layout.slotBytes;
      const queryPtr = slotBase + layout.slotQuery;
      const rowsPtr = slotBase + layout.slotOut;
      const scoresPtr = rowsPtr + layout.directMax * 4;
      this.writeQuery(q, queryPtr);
      const ids: string[] = [];
      const rows = new Int32Array(this.store.memory.buffer, rowsPtr, layout.directMax);
      for (const id of allow) {
        if (exclude?.has(id)) continue;
        const row = this.store.rowOf(id);
        if (row === undefined) continue;
        rows[ids.length] = row;
        ids.push(id);
      }
      this.store.kernel.kv_score_rows(this.store.layout.vectorsBase, layout.stride, rowsPtr, ids.length, queryPtr, scoresPtr);
      const scores = new Float32Array(this.store.memory.buffer, scoresPtr, ids.length);
      const hits = ids.map((id, i) => ({ id, score: scores[i] }));
      hits.sort(byScoreDesc);
      return hits.slice(0, k);
    } finally {
      this.store.endRead(token);
      this.slots.release(slot);
    }
  }

  private writeQuery(q: Float32Array, ptr: number): void {
    const f32 = this.store.f32();
    f32.set(q, ptr >> 2);
    const stride = this.store.layout.stride;
    if (stride > this.dim) f32.fill(0, (ptr >> 2) + this.dim, (ptr >> 2) + stride);
  }

  /** Exact top-k by scanning every live row (in worker shards for large indexes). */
  private async searchExact(
    q: Float32Array, k: number,
    allow: ReadonlySet<string> | ((id: string) => boolean) | undefined,
    exclude: ReadonlySet<string> | undefined,
  ): Promise<Hit[]> {
    const useMask = allow !== undefined || (exclude !== undefined && exclude.size > EXCLUDE_OVERFETCH_MAX);
    const slot = await this.slots.acquire();
    const mask = useMask ? await this.masks.acquire() : -1;
    const token = this.store.beginRead();
    try {
      const store = this.store;
      const layout = store.layout;
      const count = store.count;
      const slotBase = layout.slotsBase + slot * layout.slotBytes;
      const queryPtr = slotBase + layout.slotQuery;
      const outBase = slotBase + layout.slotOut;
      this.writeQuery(q, queryPtr);
      let maskPtr = 0;
      let excludedInIndex = 0;
      if (mask >= 0) {
        maskPtr = layout.maskBase + mask * layout.maskBytes;
        this.fillMask(maskPtr, count, allow, exclude);
      } else if (exclude) {
        for (const id of exclude) if (store.rowOf(id) !== undefined) excludedInIndex++;
      }
      const kScan = Math.min(layout.kMax, k + excludedInIndex);
      const local = !this.pool || count <= this.localScanRows;
      // each shard gets at least localScanRows rows: smaller pieces cost more in hops than they save
      const shards = local ? 1 : Math.min(this.shards, Math.ceil(count / Math.max(1, this.localScanRows)));
      const outs: Array<{ scores: number; rows: number; n: number }> = [];
      if (local) {
        const scores = outBase;
        const rows = outBase + layout.kMax * 4;
        const n = store.kernel.kv_topk(layout.vectorsBase, layout.stride, 0, count, queryPtr, layout.aliveBase, maskPtr, kScan, scores, rows);
        outs.push({ scores, rows, n });
      } else {
        const pool = this.pool as WorkerPool;
        const per = Math.ceil(count / shards / ROW_ALIGN) * ROW_ALIGN;
        const tasks: Array<Promise<number>> = [];
        for (let s = 0; s < shards; s++) {
          const begin = s * per;
          const end = Math.min(count, begin + per);
          if (begin >= end) break;
          const scores = outBase + s * layout.kMax * 8;
          const rows = scores + layout.kMax * 4;
          const task: VectorSearchTask = {
            store: this.storeNumber, memory: store.memory, base: layout.vectorsBase, stride: layout.stride,
            begin, end, query: queryPtr, alive: layout.aliveBase, allow: maskPtr, k: kScan,
            outScores: scores, outRows: rows,
          };
          const i = outs.length;
          outs.push({ scores, rows, n: 0 });
          tasks.push(pool.run<number>('vector-search', task).then((n) => (outs[i].n = n)));
        }
        await Promise.all(tasks);
      }
      return this.collect(outs, k, mask >= 0 ? undefined : exclude);
    } finally {
      this.store.endRead(token);
      if (mask >= 0) this.masks.release(mask);
      this.slots.release(slot);
    }
  }

  /** Row bitmap for one query: allowed rows (all when no allow) minus excluded rows. */
  private fillMask(
    maskPtr: number, count: number,
    allow: ReadonlySet<string> | ((id: string) => boolean) | undefined,
    exclude: ReadonlySet<string> | undefined,
  ): void {
    const store = this.store;
    const words = Math.ceil(count / 32);
    const mask = new Uint32Array(store.memory.buffer, maskPtr, words);
    if (allow === undefined) {
      mask.fill(0xffffffff);
    } else if (typeof allow === 'function') {
      mask.fill(0);
      for (let r = 0; r < count; r++) {
        const id = store.idOf(r);
        if (id !== undefined && store.rowOf(id) === r && allow(id)) mask[r >> 5] |= 1 << (r & 31);
      }
    } else {
      mask.fill(0);
      for (const id of allow) {
        const r = store.rowOf(id);
        if (r !== undefined && r < count) mask[r >> 5] |= 1 << (r & 31);
      }
    }
    if (exclude) {
      for (const id of exclude) {
        const r = store.rowOf(id);
        if (r !== undefined && r < count) mask[r >> 5] &= ~(1 << (r & 31));
      }
    }
  }

  /** Merges shard outputs: keeps rows still alive, one hit per id, best k first. */
  private collect(outs: Array<{ scores: number; rows: number; n: number }>, k: number, exclude?: ReadonlySet<string>): Hit[] {
    const buffer = this.store.memory.buffer;
    const best = new Map<string, number>();
    for (const out of outs) {
      const scores = new Float32Array(buffer, out.scores, out.n);
      const rows = new Int32Array(buffer, out.rows, out.n);
      for (let i = 0; i < out.n; i++) {
        const row = rows[i];
        if (!this.store.isAlive(row)) continue;
        const id = this.store.idOf(row);
        if (id === undefined || exclude?.has(id)) continue;
        const prev = best.get(id);
        if (prev === undefined || scores[i] > prev) best.set(id, scores[i]);
      }
    }
    const hits: Hit[] = [];
    for (const [id, score] of best) hits.push({ id, score });
    hits.sort(byScoreDesc);
    return hits.slice(0, k);
  }

  private scheduleCompaction(): void {
    if (this.compactScheduled || this.closed) return;
    this.compactScheduled = true;
    const step = (): void => {
      this.compactTimer = undefined;
      if (this.closed) return;
      const done = this.store.compactStep();
      if (this.store.holeCount === 0) {
        this.compactScheduled = false;
        return;
      }
      // no progress: readers in flight still name the holes; try again shortly
      if (done > 0) setImmediate(step);
      else {
        this.compactTimer = setTimeout(step, 5);
        this.compactTimer.unref();
      }
    };
    setImmediate(step);
  }

  /** Compacts until no holes are left (waits for searches that still name them). */
  async compact(): Promise<void> {
    while (this.store.holeCount > 0 && !this.closed) {
      const done = this.store.compactStep();
      await new Promise<void>((resolve) => (done > 0 ? setImmediate(resolve) : setTimeout(resolve, 2)));
    }
  }

  /** Writes the live vectors and `meta` (e.g. the change-feed sequence they reflect) to `file`. */
  snapshot(file: string, meta: unknown = null): Promise<void> {
    return writeSnapshot(this.store, file, meta);
  }

  /**
   * Loads a snapshot written by `snapshot`. The approximate index (if enabled and large
   * enough) builds in the background; exact search serves meanwhile.
   */
  static async load(file: string, opts: VectorIndexOptions = {}): Promise<{ index: VectorIndex; meta: unknown }> {
    let index: VectorIndex | undefined;
    let ids: string[] = [];
    let meta: unknown = null;
    await readSnapshot(file, (header) => {
      index = new VectorIndex(header.dim, { ...opts, initialRows: Math.max(opts.initialRows ?? 0, header.ids.length) });
      ids = header.ids;
      meta = header.meta;
    }, (first, rows) => {
      const ix = index as VectorIndex;
      for (let i = 0; i * ix.dim < rows.length; i++) ix.store.put(ids[first + i], rows.subarray(i * ix.dim, (i + 1) * ix.dim));
    });
    const loaded = index as VectorIndex;
    loaded.afterMutation();
    return { index: loaded, meta };
  }

  /** Stops background work; searches in flight finish, later calls must not be made. */
  close(): void {
    this.closed = true;
    if (this.compactTimer) clearTimeout(this.compactTimer);
    this.approx?.close();
    this.building?.close();
  }
}
