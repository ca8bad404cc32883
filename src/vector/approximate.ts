import { FaissAddon, FaissIndex } from './faiss-addon';
import { SharedVectorStore } from './shared-store';
import { SNAPSHOT_SLICE } from './snapshot';
import { i32View } from './views';

/** The largest number of inverted lists chosen automatically (LISTS_PER_ROOT × √rows up to here). */
export const MAX_AUTO_NLIST = 8192;
/**
 * Inverted lists per √rows chosen at build. With every row of the probed lists scored exactly, finer lists keep more of
 * the second stage's 800 exact candidates per row scored: at 82k real texts, 1,024 lists kept 0.948 of them with 128
 * probed (12 % of the rows), 224 lists 0.959 with 64 (28 %) (bench/probes/ivf-flat-recall.js, docs/decisions/throughput.md).
 */
const LISTS_PER_ROOT = 4;

/** The lists an index of `rows` rows is built with when none are set. */
export function automaticLists(rows: number): number {
  return Math.min(MAX_AUTO_NLIST, Math.max(16, Math.round(LISTS_PER_ROOT * Math.sqrt(rows))));
}

/** The rows automatically chosen lists were sized for (the inverse of automaticLists). */
export function rowsSizedFor(nlist: number): number {
  return (nlist / LISTS_PER_ROOT) ** 2;
}
/** Lists probed until the index is tuned. */
const DEFAULT_NPROBE = 16;
/**
 * The codec of an index built without a `description`: 8-bit codes. A pool thread's search shortlists the probed
 * lists' rows by their codes and scores the shortlist exactly from the key's own float32 rows
 * (native/src/ivf_rows_scan.h); FAISS scans the codes itself only for searches with an allow-list, re-scored.
 * Float32 codes (`Flat`) held a second copy of every vector: 3.9 KB a document at 82k in bench:scale against 3,000
 * required (docs/decisions/vector.md).
 */
const AUTOMATIC_CODEC = 'SQ8';
/**
 * Training points per list (k-means), at most TRAIN_PER_ROOT × √rows in all: k-means costs points × lists, and lists
 * are LISTS_PER_ROOT × √rows, so 40 a list cost sixteen times the √rows lists' build (at 82k, 7.4 s of CPU against
 * 1.0–2.0 s for 10 a list; docs/decisions/vector.md, "Lists scored from the store's rows").
 */
const TRAIN_PER_LIST = 40;
const TRAIN_PER_ROOT = 40;

export interface ApproximateOptions {
  /** FAISS factory string; default `IVF<nlist>,SQ8` (inner product; a pool thread scores the probed lists from the key's rows). */
  description?: string;
  /** Inverted lists; default round(4 √rows), clamped to [16, 8192] (automaticLists). */
  nlist?: number;
  /**
   * Lists probed per query (IVF). Unset: tuned on the index's own vectors by its owner (`VectorIndex.tuneProbes`:
   * the fewest probes whose searches keep the owner's measure of recall); 16 until then.
   */
  nprobe?: number;
  /** Candidate list size per query (HNSW). */
  efSearch?: number;
  /** Training sample per list (k-means; default TRAIN_PER_LIST, at most TRAIN_PER_ROOT × √rows in all). */
  trainPerList?: number;
}

export interface Hit {
  id: string;
  score: number;
}

/** Hits as store rows (valid until the next turn of the event loop) and their scores, in the same order. */
export interface RowScores {
  rows: Int32Array;
  scores: Float32Array;
}

const CHUNK_ROWS = 4096;
/** The label → row table reserves room for this many labels (address space; a label per stored version). */
const MAX_LABELS = 2 ** 30;

function growableLabels(labels: number): SharedArrayBuffer {
  return new SharedArrayBuffer(4 * labels, { maxByteLength: 4 * MAX_LABELS });
}

/** An approximate index as a pool thread searches it (ApproximateIndex.shared). */
export interface SharedApproximate {
  /** The FAISS index's number in the process (FaissAddon.searchShared). */
  handle: number;
  /** Int32 row + 1 by label (0: none). */
  labelRows: SharedArrayBuffer;
  nprobe: number;
  /** Whether a search given the key's rows scores them exactly (an IVF index's probed lists): no re-scoring needed. */
  scoresRows: boolean;
}

/** Label state of an approximate index as stored in a snapshot header. */
export interface PersistedApproximate {
  description: string;
  nlist: number;
  nprobe: number;
  nextLabel: number;
  /** Label per snapshot id (same order), -1 when it has none. */
  labels: number[];
  /** Ids whose latest version is not in the FAISS file yet. */
  dirty: string[];
  /** Rows the index held when its probes were tuned (0 or absent: not tuned). */
  tunedRows?: number;
  /** The shortlist tuned with the probes, in hits wanted (absent: the default). */
  overfetch?: number;
}

export function isPersistedApproximate(v: unknown): v is PersistedApproximate {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.description === 'string' && typeof o.nlist === 'number' && typeof o.nprobe === 'number'
    && typeof o.nextLabel === 'number' && Array.isArray(o.labels) && Array.isArray(o.dirty);
}

/**
 * A FAISS index mirroring a SharedVectorStore. Every stored version of an id gets a
 * fresh numeric label; changed ids are marked dirty and applied in batches (old label
 * removed, new label added) off the JS thread. Searches map labels back to ids and
 * drop ids that are no longer in the store.
 */
export class ApproximateIndex {
  /** Rows the index held when its probes were tuned on its own vectors (0: not tuned; kept in snapshots). */
  tunedRows = 0;
  /** The shortlist of a quantized index, in hits wanted, tuned with the probes (undefined: the searcher's default). */
  overfetch: number | undefined;
  /**
   * The store row + 1 of each label (0: none), in a growable shared buffer that pool threads read, and the label of
   * each row (0: none; labels start at 1), kept current as compaction moves rows: a search turns labels into rows
   * without a lookup by id.
   */
  private labelRows = growableLabels(1024);
  private labelRow = i32View(this.labelRows);
  private rowLabel = new Int32Array(1024);
  /** This index's number for pool threads' searches (FaissAddon.searchShared), once asked for. */
  private sharedHandle: number | undefined;
  private readonly idToLabel = new Map<string, number>();
  private readonly onMove = (from: number, to: number): void => {
    const label = from < this.rowLabel.length ? this.rowLabel[from]! : 0;
    if (label === 0 || this.labelRow[label] !== from + 1) return;
    this.rowLabel[from] = 0;
    this.link(label, to);
  };
  private nextLabel = 1;
  private dirty = new Set<string>();
  /** Changes taken by the flush in progress, not in FAISS yet. */
  private applying: ReadonlySet<string> = new Set();
  private flushing: Promise<void> | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private ready = false;
  private paused = 0;
  /** Some index types (HNSW) cannot remove: their stale labels are filtered at search time. */
  private removeSupported = true;
  /** Last error of a background flush (the index keeps serving; stale labels are filtered). */
  lastError: unknown;

  private constructor(
    private readonly store: SharedVectorStore,
    private readonly addon: FaissAddon,
    private readonly faiss: FaissIndex,
    readonly description: string,
    private readonly options: ApproximateOptions,
  ) {
    store.moveListeners.add(this.onMove);
  }

  private link(label: number, row: number): void {
    if (label >= this.labelRow.length) {
      this.labelRows.grow(4 * Math.max(label + 1, Math.ceil(this.labelRow.length * 1.5)));
      this.labelRow = i32View(this.labelRows);
    }
    if (row >= this.rowLabel.length) {
      const grown = new Int32Array(Math.max(row + 1, Math.ceil(this.rowLabel.length * 1.5)));
      grown.set(this.rowLabel);
      this.rowLabel = grown;
    }
    this.labelRow[label] = row + 1;
    this.rowLabel[row] = label;
  }

  private unlink(label: number): void {
    const row = this.labelRow[label]! - 1;
    this.labelRow[label] = 0;
    if (row >= 0 && this.rowLabel[row] === label) this.rowLabel[row] = 0;
  }

  get isReady(): boolean {
    return this.ready;
  }

  get ntotal(): number {
    return this.faiss.ntotal;
  }

  /** Whether FAISS holds lossy codes (SQ, PQ) rather than the float32 vectors: its own scan's scores and order are approximate. */
  get quantized(): boolean {
    return /(^|,)(SQ|PQ|OPQ)/.test(this.description);
  }

  /**
   * Whether a pool thread's search scores the probed lists from the key's rows (an IVF index: exact scores whatever
   * its codes), so its shortlist needs no more than the hits wanted.
   */
  get scoresRows(): boolean {
    return this.description.startsWith('IVF');
  }

  /**
   * Whether this index was built automatically (no `description` given) with a codec other than today's automatic one
   * (a float32 index restored from a snapshot of the large-keys branch): its owner rebuilds it aside.
   */
  outdatedCodec(options: ApproximateOptions): boolean {
    return options.description === undefined && /^IVF\d+,/.test(this.description) && !this.description.endsWith(`,${AUTOMATIC_CODEC}`);
  }

  /** Inverted lists of the IVF index (undefined for other kinds). */
  get nlist(): number | undefined {
    return this.options.nlist;
  }

  /** Creates and fills an index from the store's live rows; changes noted meanwhile are applied after. */
  static create(store: SharedVectorStore, addon: FaissAddon, options: ApproximateOptions): ApproximateIndex {
    const nlist = options.nlist ?? automaticLists(store.size);
    const description = options.description ?? `IVF${nlist},${AUTOMATIC_CODEC}`;
    const faiss = new addon.FaissIndex(store.dim, description, 'ip');
    const nprobe = options.nprobe ?? Math.min(nlist, DEFAULT_NPROBE);
    return new ApproximateIndex(store, addon, faiss, description, { ...options, nlist, nprobe });
  }

  /** Trains on a sample and adds every live row. Call once, right after create. */
  async build(): Promise<void> {
    const release = this.store.blockCompaction();
    try {
      const ids = Array.from(this.store.ids());
      const rows = ids.map((id) => this.store.rowOf(id) as number);
      if (!this.faiss.isTrained) {
        const perList = (this.options.nlist ?? 1) * (this.options.trainPerList ?? TRAIN_PER_LIST);
        const want = Math.min(rows.length, this.options.trainPerList === undefined ? Math.min(perList, Math.ceil(TRAIN_PER_ROOT * Math.sqrt(rows.length))) : perList);
        const step = rows.length / Math.max(1, want);
        const sampleRows: number[] = [];
        for (let i = 0; i < want; i++) sampleRows.push(rows[Math.floor(i * step)]);
        await this.faiss.train(this.copyRows(sampleRows));
      }
      for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
        const chunkRows = rows.slice(start, start + CHUNK_ROWS);
        const labels = new BigInt64Array(chunkRows.length);
        for (let i = 0; i < chunkRows.length; i++) {
          const id = ids[start + i];
          const label = this.nextLabel++;
          labels[i] = BigInt(label);
          this.link(label, chunkRows[i]);
          this.idToLabel.set(id, label);
        }
        await this.faiss.add(this.copyRows(chunkRows), labels);
      }
    } finally {
      release();
    }
    this.ready = true;
    await this.flush();
  }

  private copyRows(rows: number[]): Float32Array {
    const dim = this.store.dim;
    const out = new Float32Array(rows.length * dim);
    const f32 = this.store.f32();
    for (let i = 0; i < rows.length; i++) {
      const start = this.store.rowOffset(rows[i]) >> 2;
      out.set(f32.subarray(start, start + dim), i * dim);
    }
    return out;
  }

  /** Ids changed in the store that FAISS does not reflect yet: searches score them exactly. */
  *unapplied(): Iterable<string> {
    yield* this.applying;
    yield* this.dirty;
  }

  /** Marks `id` as changed (upserted or removed) in the store. */
  noteChange(id: string): void {
    this.dirty.add(id);
    if (this.ready && !this.flushTimer) {
      this.flushTimer = setTimeout(() => {
        this.flushTimer = undefined;
        this.flush().catch((err: unknown) => {
          this.lastError = err;
        });
      }, 20);
      this.flushTimer.unref();
    }
  }

  /** Applies every noted change to the FAISS index. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.dirty.size > 0 ? this.flush() : undefined));
    if (!this.ready || this.paused > 0 || this.dirty.size === 0) return Promise.resolve();
    this.flushing = this.applyDirty().finally(() => {
      // After a failure the batch's ids stay unapplied: searches keep scoring them exactly.
      for (const id of this.applying) this.dirty.add(id);
      this.applying = new Set();
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async applyDirty(): Promise<void> {
    while (this.dirty.size > 0) {
      const batch = this.dirty;
      this.applying = batch;
      this.dirty = new Set();
      const removed: number[] = [];
      const addIds: string[] = [];
      for (const id of batch) {
        const old = this.idToLabel.get(id);
        if (old !== undefined) {
          removed.push(old);
          this.idToLabel.delete(id);
          this.unlink(old);
        }
        if (this.store.rowOf(id) !== undefined) addIds.push(id);
      }
      if (removed.length > 0 && this.removeSupported) {
        try {
          await this.faiss.remove(BigInt64Array.from(removed, (l) => BigInt(l)));
        } catch (err) {
          if (!/not implemented/.test(String(err))) throw err;
          this.removeSupported = false;
        }
      }
      for (let start = 0; start < addIds.length; start += CHUNK_ROWS) {
        const chunk = addIds.slice(start, start + CHUNK_ROWS).filter((id) => this.store.rowOf(id) !== undefined);
        const rows = chunk.map((id) => this.store.rowOf(id) as number);
        // copy synchronously, right after reading the rows: compaction runs only between ticks (and moves are followed)
        const vectors = this.copyRows(rows);
        const labels = new BigInt64Array(chunk.length);
        chunk.forEach((id, i) => {
          const label = this.nextLabel++;
          labels[i] = BigInt(label);
          this.link(label, rows[i]!);
          this.idToLabel.set(id, label);
        });
        await this.faiss.add(vectors, labels);
      }
      this.applying = new Set();
    }
  }

  /**
   * Top `k` rows by approximate inner product. `allow` restricts the labels FAISS may return (IVF only).
   * Rows no longer alive (their id removed or replaced since) are dropped, so fewer than k may come back.
   */
  async search(query: Float32Array, k: number, allow?: Iterable<string>, nprobe = this.options.nprobe): Promise<RowScores> {
    let allowLabels: BigInt64Array | undefined;
    if (allow) {
      const labels: bigint[] = [];
      for (const id of allow) {
        const l = this.idToLabel.get(id);
        if (l !== undefined) labels.push(BigInt(l));
      }
      allowLabels = BigInt64Array.from(labels);
    }
    const result = await this.faiss.search(Float32Array.from(query), k, {
      nprobe,
      efSearch: this.options.efSearch,
      allow: allowLabels,
    });
    const rows = new Int32Array(result.labels.length);
    const scores = new Float32Array(result.labels.length);
    const alive = this.store.aliveBits();
    // Labels read as two 32-bit words (little endian): reading the int64s would make a BigInt each.
    const words = new Int32Array(result.labels.buffer, result.labels.byteOffset, result.labels.length * 2);
    let n = 0;
    for (let i = 0; i < result.labels.length; i++) {
      const high = words[2 * i + 1]!;
      const label = high === 0 ? words[2 * i]! >>> 0 : high < 0 ? -1 : (words[2 * i]! >>> 0) + high * 2 ** 32;
      const row = label > 0 && label < this.labelRow.length ? this.labelRow[label]! - 1 : -1;
      if (row < 0 || !alive(row)) continue;
      rows[n] = row;
      scores[n++] = result.distances[i]!;
    }
    return { rows: rows.subarray(0, n), scores: scores.subarray(0, n) };
  }

  /** Stops applying changes (they keep accumulating) until the returned resume is called. */
  async pause(): Promise<() => void> {
    this.paused++;
    while (this.flushing) await this.flushing.catch(() => undefined);
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      this.paused--;
      if (this.paused === 0 && this.dirty.size > 0) {
        this.flush().catch((err: unknown) => {
          this.lastError = err;
        });
      }
    };
  }

  /**
   * What a snapshot needs to restore this index (call while paused: labels do not change then): the label of each
   * of `ids` (-1: none) and the ids whose changes are pending, taken last, so an id changed after `ids` were
   * captured is among them. Awaits `pause` every SNAPSHOT_SLICE ids.
   */
  async persistedState(ids: string[], pause: () => Promise<void>): Promise<PersistedApproximate> {
    const labels = new Array<number>(ids.length);
    for (let i = 0; i < ids.length; i++) {
      labels[i] = this.idToLabel.get(ids[i]!) ?? -1;
      if ((i + 1) % SNAPSHOT_SLICE === 0) await pause();
    }
    return {
      description: this.description,
      nlist: this.options.nlist ?? 0,
      nprobe: this.options.nprobe ?? 0,
      tunedRows: this.tunedRows,
      ...(this.overfetch !== undefined ? { overfetch: this.overfetch } : {}),
      nextLabel: this.nextLabel,
      labels,
      dirty: Array.from(this.dirty).filter((id) => this.store.rowOf(id) !== undefined),
    };
  }

  /** Writes the FAISS index (call while paused). */
  write(file: string): Promise<void> {
    return this.faiss.write(file);
  }

  /** Restores an index written by `write` with the label state from `persistedState`. */
  static async restore(
    store: SharedVectorStore, addon: FaissAddon, file: string, ids: string[], state: PersistedApproximate, options: ApproximateOptions,
  ): Promise<ApproximateIndex> {
    const faiss = await addon.readIndex(file);
    const index = new ApproximateIndex(store, addon, faiss, state.description, { ...options, nlist: state.nlist, nprobe: options.nprobe ?? state.nprobe });
    index.nextLabel = state.nextLabel;
    index.tunedRows = options.nprobe === undefined ? state.tunedRows ?? 0 : 0;
    if (index.tunedRows > 0) index.overfetch = state.overfetch;
    index.labelRows = growableLabels(state.nextLabel + 1);
    index.labelRow = i32View(index.labelRows);
    index.rowLabel = new Int32Array(Math.max(1024, store.count));
    ids.forEach((id, i) => {
      const label = state.labels[i];
      if (label >= 0) {
        // a loaded snapshot's ids sit in rows 0, 1, … in their order
        index.link(label, store.idOf(i) === id ? i : store.rowOf(id) as number);
        index.idToLabel.set(id, label);
      } else {
        index.dirty.add(id);
      }
    });
    for (const id of state.dirty) index.dirty.add(id);
    index.ready = true;
    await index.flush();
    return index;
  }

  setSearchParams(params: { nprobe?: number; efSearch?: number }): void {
    if (params.nprobe !== undefined) this.options.nprobe = params.nprobe;
    if (params.efSearch !== undefined) this.options.efSearch = params.efSearch;
  }

  /**
   * What a pool thread needs to search this index itself (src/vector/query-task.ts): the FAISS index's number
   * in the process (searchShared) and the label → row table. Undefined until ready.
   */
  shared(): SharedApproximate | undefined {
    if (!this.ready) return undefined;
    this.sharedHandle ??= this.faiss.share();
    return { handle: this.sharedHandle, labelRows: this.labelRows, nprobe: this.options.nprobe ?? 0, scoresRows: this.scoresRows };
  }

  close(): void {
    if (this.sharedHandle !== undefined) this.addon.unshare(this.sharedHandle);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.store.moveListeners.delete(this.onMove);
    this.ready = false;
  }
}
