import type { WorkerPool } from '../pool';
import type { VectorSearchTask } from './scan-task';
import type { Hit } from './approximate';
import { SharedVectorStore } from './shared-store';
import { SlotPool } from './slot-pool';

/** Exclude sets larger than this become a row mask instead of over-fetching. */
export const EXCLUDE_OVERFETCH_MAX = 64;
const ROW_ALIGN = 32;
/** ~2M floats (8192 rows at dim 256, ≈0.4 ms): below that a worker hop costs more than it saves. */
const LOCAL_SCAN_FLOATS = 1 << 21;
/** Masked searches (large allow/exclude sets, predicates) that may run at once. */
export const EXACT_MASK_SLOTS = 4;

/** Where one shard wrote its top-k for one query: byte offsets, and how many pairs. */
interface ShardOut {
  scores: number;
  rows: number;
  n: number;
}

interface PendingScan {
  slot: number;
  k: number;
  resolve: (outs: ShardOut[]) => void;
  reject: (err: unknown) => void;
}

export function byScoreDesc(a: Hit, b: Hit): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export interface ExactSearchOptions {
  pool?: WorkerPool;
  shards: number;
  /** Default: 2^21 floats / stride. */
  localScanRows?: number;
  /** Must equal the store layout's slot count. */
  concurrentSearches: number;
  batchScans: boolean;
}

/**
 * Exact top-k over a SharedVectorStore with the WASM kernel: on the calling thread for
 * small scans and short allow-lists, else in worker shards (batched when possible).
 */
export class ExactSearch {
  shards: number;
  localScanRows: number;
  batchScans: boolean;
  private readonly pool: WorkerPool | undefined;
  /** Scratch slots of the store's memory (a query and its outputs), one per search in flight. */
  readonly slots: SlotPool;
  /** Row bitmaps of the store's memory, one per masked search in flight. */
  readonly masks = new SlotPool(EXACT_MASK_SLOTS);
  private readonly scanQueue: PendingScan[] = [];
  private scanRunning = false;

  constructor(private readonly store: SharedVectorStore, readonly storeNumber: number, opts: ExactSearchOptions) {
    this.pool = opts.pool;
    this.shards = opts.shards;
    this.batchScans = opts.batchScans;
    this.slots = new SlotPool(opts.concurrentSearches);
    this.localScanRows = opts.localScanRows ?? Math.floor(LOCAL_SCAN_FLOATS / store.layout.stride);
  }

  private get dim(): number {
    return this.store.dim;
  }

  /** Scores the listed ids on this thread (small allow-lists). */
  scoreDirect(q: Float32Array, k: number, allow: ReadonlySet<string>, exclude?: ReadonlySet<string>): Hit[] {
    const token = this.store.beginRead();
    try {
      const ids: string[] = [];
      const rows: number[] = [];
      for (const id of allow) {
        if (exclude?.has(id)) continue;
        const row = this.store.rowOf(id);
        if (row === undefined) continue;
        rows.push(row);
        ids.push(id);
      }
      const scores = this.store.scoreRows(Int32Array.from(rows), q);
      const hits = ids.map((id, i) => ({ id, score: scores[i]! }));
      hits.sort(byScoreDesc);
      return hits.slice(0, k);
    } finally {
      this.store.endRead(token);
    }
  }

  private writeQuery(q: Float32Array, ptr: number): void {
    const f32 = this.store.f32();
    f32.set(q, ptr >> 2);
    const stride = this.store.layout.stride;
    if (stride > this.dim) f32.fill(0, (ptr >> 2) + this.dim, (ptr >> 2) + stride);
  }

  /** Exact top-k by scanning every live row (in worker shards for large indexes). */
  async search(
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
      let outs: ShardOut[];
      if (local) {
        const scores = outBase;
        const rows = outBase + layout.outPairs * 4;
        const n = store.kernel.kv_topk(layout.vectorsBase, layout.stride, 0, count, queryPtr, layout.aliveBase, maskPtr, kScan, layout.outPairs, scores, rows);
        outs = [{ scores, rows, n }];
      } else if (mask < 0 && this.batchScans) {
        outs = await new Promise<ShardOut[]>((resolve, reject) => {
          this.scanQueue.push({ slot, k: kScan, resolve, reject });
          this.pumpScans();
        });
      } else {
        outs = await this.scanShards(count, (_s, begin, end, out) => ({
          kind: 'single', ...this.scanBase(begin, end), query: queryPtr, allow: maskPtr, k: kScan, cap: this.store.layout.kMax,
          outScores: out.scores, outRows: out.rows,
        }), [slot])
          .then((perQuery) => perQuery[0]);
      }
      return this.collect(outs, k, mask >= 0 ? undefined : exclude);
    } finally {
      this.store.endRead(token);
      if (mask >= 0) this.masks.release(mask);
      this.slots.release(slot);
    }
  }

  private scanBase(begin: number, end: number): { store: number; memory: WebAssembly.Memory; base: number; stride: number; begin: number; end: number; alive: number } {
    const layout = this.store.layout;
    return {
      store: this.storeNumber, memory: this.store.memory, base: layout.vectorsBase, stride: layout.stride,
      begin, end, alive: layout.aliveBase,
    };
  }

  /** Output area of shard `s` for the search holding `slot`. */
  private shardOut(slot: number, s: number): ShardOut {
    const layout = this.store.layout;
    const scores = layout.slotsBase + slot * layout.slotBytes + layout.slotOut + s * layout.kMax * 8;
    return { scores, rows: scores + layout.kMax * 4, n: 0 };
  }

  /**
   * Splits rows [0, count) into shards (each at least localScanRows rows: smaller pieces
   * cost more in hops than they save) and runs one worker task per shard. Returns, per slot, the outputs of every shard.
   */
  private async scanShards(
    count: number,
    makeTask: (shard: number, begin: number, end: number, out: ShardOut) => VectorSearchTask,
    slots: number[],
    afterRun?: (shard: number, result: number, outs: ShardOut[][]) => void,
  ): Promise<ShardOut[][]> {
    const pool = this.pool as WorkerPool;
    const shards = Math.max(1, Math.min(this.shards, Math.ceil(count / Math.max(1, this.localScanRows))));
    const per = Math.ceil(count / shards / ROW_ALIGN) * ROW_ALIGN;
    const outs: ShardOut[][] = slots.map(() => []);
    const tasks: Array<Promise<void>> = [];
    for (let s = 0; s < shards; s++) {
      const begin = s * per;
      const end = Math.min(count, begin + per);
      if (begin >= end) break;
      slots.forEach((slot, j) => outs[j].push(this.shardOut(slot, s)));
      const first = outs[0][s];
      const task = makeTask(s, begin, end, first);
      tasks.push(pool.run<number>('vector-search', task).then((n) => {
        if (afterRun) afterRun(s, n, outs);
        else first.n = n;
      }));
    }
    await Promise.all(tasks);
    return outs;
  }

  /**
   * Runs queued mask-less scans as one batch (kv_topk_multi): every row is read from
   * memory once for all of them. One batch runs at a time; searches arriving meanwhile
   * form the next one.
   */
  private pumpScans(): void {
    if (this.scanRunning || this.scanQueue.length === 0) return;
    const batch = this.scanQueue.splice(0, this.store.layout.batchMax);
    this.scanRunning = true;
    const layout = this.store.layout;
    const count = this.store.count;
    const descSlot = batch[0].slot;
    const descFor = (s: number): number => layout.slotsBase + descSlot * layout.slotBytes + layout.slotDesc + s * layout.descBytesPerShard;
    const i32 = (): Int32Array => new Int32Array(this.store.memory.buffer);
    this.scanShards(count, (s, begin, end) => {
      const desc = descFor(s);
      const view = i32();
      batch.forEach((p, j) => {
        const out = this.shardOut(p.slot, s);
        const at = (desc >> 2) + 4 * j;
        view[at] = layout.slotsBase + p.slot * layout.slotBytes + layout.slotQuery;
        view[at + 1] = p.k;
        view[at + 2] = out.scores;
        view[at + 3] = out.rows;
      });
      return { kind: 'batch', ...this.scanBase(begin, end), desc, nq: batch.length, sizes: desc + batch.length * 16 };
    }, batch.map((p) => p.slot), (s, _n, outs) => {
      const view = i32();
      const sizes = (descFor(s) + batch.length * 16) >> 2;
      batch.forEach((_p, j) => (outs[j][s].n = view[sizes + j]));
    }).then((outs) => {
      batch.forEach((p, j) => p.resolve(outs[j]));
    }, (err: unknown) => {
      for (const p of batch) p.reject(err);
    }).finally(() => {
      this.scanRunning = false;
      this.pumpScans();
    });
  }

  /** Row bitmap for one query: allowed rows (all when no allow) minus excluded rows. */
  fillMask(
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
  private collect(outs: ShardOut[], k: number, exclude?: ReadonlySet<string>): Hit[] {
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
}
