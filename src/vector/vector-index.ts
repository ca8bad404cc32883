import type { WorkerPool } from '../pool';
import fs from 'node:fs';
import path from 'node:path';
import { ApproximateIndex, ApproximateOptions, Hit, isPersistedApproximate, MAX_AUTO_NLIST, PersistedApproximate, rowsSizedFor } from './approximate';
import { loadFaissAddon } from './faiss-addon';
import { normaliseInPlace } from '../embedding/embed';
import type { PackedSparse, SparseVector } from '../embedding/sparse';
import { rankDescending } from './rank';
import { SparseRows } from './sparse-rows';
import type { ApproximateSearch, QueryResult, QueryTask, SecondStage } from './query-task';
import type { SerializedModel } from '../embedding/serialize';
import { byScoreDesc, EXACT_MASK_SLOTS, EXCLUDE_OVERFETCH_MAX, ExactSearch } from './exact-search';
import { CLOSED_FLAG_OFFSET } from './kernel';
import { SharedVectorStore } from './shared-store';
import { pauseForEventLoop, readSnapshot, writeSnapshot, writeTermsFile, type TermsFile } from './snapshot';

/** The approximate index is rebuilt with more lists once the rows pass this many times the rows its lists were sized for. */
const APPROX_REBUILD_GROWTH = 4;
/** The fewest lists probe tuning tries. */
const TUNE_MIN_PROBES = 4;
/** Probe tuning halves the gap between the probes that fell short and those that reached the target down to this share of the former. */
const TUNE_BISECT_SHARE = 8;
/** Probes are tuned again once the rows pass this many times the rows they were tuned on. */
const RETUNE_GROWTH = 1.5;
/**
 * A quantized approximate index shortlists this many times the hits wanted (at least RESCORE_MIN_EXTRA more),
 * re-scored exactly; probe tuning tries the smaller TUNE_OVERFETCH too, smallest first.
 */
const RESCORE_OVERFETCH = 2;
const TUNE_OVERFETCH = [1.25, 1.5];
const RESCORE_MIN_EXTRA = 20;
/**
 * A pool thread scans up to this many local-scan lengths per pool thread alone (a length ≈ 0.4 ms at dim 256: 65,536
 * rows on 2 threads, ≈ 3 ms); a longer exact scan is split over the pool's threads first.
 */
const POOL_SCAN_SHARDS = 4;

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
  /** Hard cap on rows (default 4,194,304, lowered to what fits in 4 GiB of wasm32 memory). */
  maxRows?: number;
  /** Scans of at most this many rows run on the calling thread, not in workers (default 2^21 / dim, measured). */
  localScanRows?: number;
  /** Allow-lists up to this size are scored row by row instead of scanning (default 4096). */
  directMax?: number;
  /** Searches holding memory at once; more wait (default 64). */
  concurrentSearches?: number;
  /** Approximate (FAISS) search for large indexes; false turns it off. */
  approximate?: false | (ApproximateOptions & {
    /** Build the ANN index once the index holds this many ids (default APPROXIMATE_FROM). */
    minRows?: number;
  });
  /** Compact once holes exceed this share of rows (default 0.1). */
  compactRatio?: number;
  /** Each row carries a sparse vector (the second stage's TF-IDF terms), given to `upsert`. */
  terms?: boolean;
  /** Serve concurrent worker scans without masks as one batched scan (default true). */
  batchScans?: boolean;
}

/** Rows from which an index builds its approximate (FAISS) search by default: below, an exact scan is cheap enough. */
const APPROXIMATE_FROM = 50_000;

/** Texts the pool thread embeds with a (corpus) model into the query vector (see `VectorIndex.searchesInPool`). */
export interface TextQuery {
  model: SerializedModel;
  texts: string[];
}

/** Indexed documents whose vectors' normalised mean, taken by the pool thread, is the query (see `searchesInPool`). */
export interface StoredQuery {
  ids: readonly string[];
}

/** Where a query's candidates come from (VectorIndex.plan): rows given, the approximate index searched by the pool thread, or a scan. */
interface Plan {
  shortlist?: Int32Array;
  /** The shortlist came from the approximate index searched here: too few results mean a scan instead. */
  approximate?: boolean;
  inPool?: ApproximateSearch;
}

/** What a second stage's query is made of: texts, or stored documents (their terms as stored). */
export type QueryTerms = { texts: string[] } | { ids: string[] };

/** A query's second stage (see SecondStage): the model, the query's terms, and the dense candidates it rescores. */
export type SecondStageQuery = Pick<SecondStage, 'model' | 'candidates'> & QueryTerms;

/** How an approximate search is made: lists probed, and the shortlist re-scored exactly (in hits wanted). */
export interface ApproximateTrial {
  nprobe: number;
  overfetch: number;
}

/** `nprobe` and `overfetch`, when given, override the tuned ones for this search (probe tuning). */
export interface SearchOptions extends Partial<ApproximateTrial> {
  /** Ids never returned. */
  exclude?: ReadonlySet<string>;
  /** Only these ids (a set) or ids passing this test may be returned. */
  allow?: ReadonlySet<string> | ((id: string) => boolean);
  /** Force the exact scan even when an approximate index is ready. */
  exact?: boolean;
}


let nextStoreNumber = 1;


/** A unit-length copy of `vec` (a zero vector stays zero); non-finite components are refused. */
function normalised(vec: Float32Array): Float32Array {
  if (!vec.every(Number.isFinite)) throw new RangeError('vector has non-finite components');
  const out = Float32Array.from(vec);
  normaliseInPlace(out);
  return out;
}

/**
 * Exact (WASM SIMD, optionally parallel) and approximate (FAISS IVF) cosine search over
 * L2-normalised float32 vectors keyed by string id. See docs/decisions/vector.md.
 */
export class VectorIndex {
  readonly dim: number;
  readonly store: SharedVectorStore;
  private readonly exact: ExactSearch;
  private readonly pool: WorkerPool | undefined;
  private readonly compactRatio: number;
  private readonly approxOptions: (ApproximateOptions & { minRows?: number }) | undefined;
  private approx: ApproximateIndex | undefined;
  private approxBuilding: Promise<void> | undefined;
  /** Approximate indexes built and swapped in, or tuned, so far (a snapshot taken before the last one lacks it). */
  approximateBuilds = 0;
  /** Told when an approximate index built here starts serving with untuned probes (its owner calls `tuneProbes`). */
  onUntunedProbes?: () => void;
  private building: ApproximateIndex | undefined;
  /** Each row's sparse vector (an index made with `terms`), kept in step with the store's rows. */
  private terms: SparseRows | undefined;
  /** Why the last automatic ANN build failed, if it did. */
  approxError: unknown;
  private compactTimer: NodeJS.Timeout | undefined;
  private compactScheduled = false;
  private closed = false;
  private mutationCount = 0;

  constructor(dim: number, opts: VectorIndexOptions = {}) {
    this.dim = dim;
    const shards = Math.max(1, Math.min(16, opts.shards ?? opts.pool?.threads ?? 1));
    const concurrentSearches = opts.concurrentSearches ?? 64;
    this.store = new SharedVectorStore({
      dim,
      kMax: opts.kMax ?? 1024,
      shardsMax: shards,
      slots: concurrentSearches,
      maskSlots: EXACT_MASK_SLOTS,
      directMax: opts.directMax ?? 4096,
      batchMax: 8,
      maxRows: opts.maxRows,
    }, opts.initialRows);
    this.exact = new ExactSearch(this.store, nextStoreNumber++, {
      pool: opts.pool, shards, localScanRows: opts.localScanRows, concurrentSearches, batchScans: opts.batchScans ?? true,
    });
    this.pool = opts.pool;
    this.compactRatio = opts.compactRatio ?? 0.1;
    this.approxOptions = opts.approximate === false ? undefined : (opts.approximate ?? {});
    if (opts.terms) this.attachTerms(new SparseRows());
  }

  private attachTerms(terms: SparseRows): void {
    this.terms = terms;
    this.store.moveListeners.add((from, to) => terms.move(from, to));
  }

  /** Whether rows carry terms (made with `terms`, or loaded from a snapshot that had them). */
  get hasTerms(): boolean {
    return this.terms !== undefined;
  }

  /** Terms by id (a snapshot of an older format, where they were kept apart): each stored id's row gets its own. */
  adoptTerms(ids: readonly string[], packed: PackedSparse): void {
    if (!this.terms) this.attachTerms(new SparseRows());
    const terms = this.terms as SparseRows;
    ids.forEach((id, i) => {
      const row = this.store.rowOf(id);
      const [from, to] = [packed.offsets[i]!, packed.offsets[i + 1]!];
      if (row !== undefined) terms.set(row, { ids: packed.ids.subarray(from, to), weights: packed.weights.subarray(from, to) });
    });
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

  /** Up to `n` ids spread evenly over the rows (a sample without walking every id). */
  sampleIds(n: number): string[] {
    const { count } = this.store;
    const ids = new Set<string>();
    for (let i = 0; i < n && count > 0; i++) {
      const row = Math.floor((i + 0.5) * count / n);
      const id = this.store.isAlive(row) ? this.store.idOf(row) : undefined;
      if (id !== undefined) ids.add(id);
    }
    return [...ids];
  }

  /** Whether `id` is stored with terms (an index made with `terms`). */
  hasTermsOf(id: string): boolean {
    const row = this.store.rowOf(id);
    return row !== undefined && this.terms?.has(row) === true;
  }

  /** A copy of the terms stored with `id` (an index made with `terms`). */
  termsOf(id: string): SparseVector | undefined {
    const row = this.store.rowOf(id);
    if (row === undefined || !this.terms?.has(row)) return undefined;
    const { packed } = this.terms.pack([row]);
    return { ids: packed.ids, weights: packed.weights };
  }

  /** A copy of the stored (normalised) vector. */
  vectorOf(id: string): Float32Array | undefined {
    return this.store.vectorOf(id);
  }

  /**
   * Adds or replaces `id`; the vector is L2-normalised on the way in (a zero vector stays zero). `terms` (an index
   * made with `terms`) travel with the row.
   */
  upsert(id: string, vec: Float32Array, terms?: SparseVector): void {
    const replaced = this.terms ? this.store.rowOf(id) : undefined;
    this.store.put(id, normalised(vec));
    if (this.terms) {
      if (replaced !== undefined) this.terms.delete(replaced);
      if (terms) this.terms.set(this.store.rowOf(id) as number, terms);
    }
    this.approx?.noteChange(id);
    this.building?.noteChange(id);
    this.afterMutation();
  }

  remove(id: string): boolean {
    const row = this.terms ? this.store.rowOf(id) : undefined;
    if (row !== undefined) this.terms?.delete(row);
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

  /** FAISS factory string of the serving approximate index, if one serves. */
  get approximateDescription(): string | undefined {
    return this.approx?.isReady ? this.approx.description : undefined;
  }

  /** Inverted lists of the serving approximate index (IVF), if one serves. */
  get approximateLists(): number | undefined {
    return this.approx?.isReady ? this.approx.nlist : undefined;
  }

  /** Whether the FAISS addon is built and loadable here. */
  static approximateAvailable(): boolean {
    return loadFaissAddon() !== null;
  }

  /** Rows added, replaced or removed since the index was made: an answer computed at one count may not hold at another. */
  get mutations(): number {
    return this.mutationCount;
  }

  private afterMutation(): void {
    this.mutationCount++;
    const a = this.approxOptions;
    if (a && !this.approxBuilding && this.approxError === undefined && (this.approx ? this.outgrewLists(a) || this.approx.outdatedCodec(a) : this.store.size >= (a.minRows ?? APPROXIMATE_FROM))
      && loadFaissAddon() !== null) {
      this.rebuildApproximate().catch((err: unknown) => {
        this.approxError = err; // no automatic retry; rebuildApproximate() may be called again
      });
    }
    const holes = this.store.holeCount;
    if (holes > 1024 && holes > this.compactRatio * this.store.count) this.scheduleCompaction();
  }

  /**
   * Whether the IVF lists were sized for a much smaller index: nlist is chosen from the rows at build
   * (automaticLists), so an index built at 50k rows and grown to 1M scans twenty times the rows per probe it was
   * meant to (a probe measured 26 ms instead of 4). Rebuilt aside when rows pass APPROX_REBUILD_GROWTH times the
   * rows its lists were sized for.
   */
  private outgrewLists(a: ApproximateOptions): boolean {
    const nlist = this.approx?.nlist;
    return a.nlist === undefined && nlist !== undefined && nlist < MAX_AUTO_NLIST && this.store.size > APPROX_REBUILD_GROWTH * rowsSizedFor(nlist);
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
      this.approxError = undefined;
      if (this.closed) {
        next.close();
        return;
      }
      const old = this.approx;
      this.approx = next;
      this.approximateBuilds++;
      old?.close();
      if (this.untunedProbes) this.onUntunedProbes?.();
    }, (err: unknown) => {
      this.building = undefined;
      next.close();
      throw err;
    }).finally(() => {
      this.approxBuilding = undefined;
    });
    return this.approxBuilding;
  }

  /**
   * Whether the serving approximate index's probes are to be tuned (`tuneProbes`): not set by the caller, and not
   * tuned yet or tuned on fewer than 1 / RETUNE_GROWTH of today's rows (a key's later documents may crowd other
   * lists: 82k real texts imported Debian first kept 0.90 of the exact answers with probes tuned at 50k).
   */
  get untunedProbes(): boolean {
    const approx = this.approx;
    if (!approx || approx.nlist === undefined || this.approxOptions?.nprobe !== undefined) return false;
    return approx.tunedRows === 0 || this.store.size > RETUNE_GROWTH * approx.tunedRows;
  }

  /**
   * Tunes the serving approximate index's probes: the fewest lists (4, 8, 16, … up to all, then halving the gap
   * between the last short of it and the first reaching it) at which `recallAt` (searches made with those options,
   * compared with exact ones by the caller) reaches `target`; then, for
   * quantized codes, the shortest shortlist that loses nothing of that recall at those lists. How many lists
   * that takes depends on the vectors: generated texts of 2,000 topics kept 0.975 of the answers at 4 probes of
   * 1,000 lists, real texts (82k Debian + 20NG) 0.86 at 16 of 224 and 0.96 at 64 (bench:scale). The shortlist
   * of 800 candidates costs its re-scoring (a probe, 1M generated, 4 probes: 0.975 kept with 1.25, 1.5 or 2 times).
   */
  async tuneProbes(recallAt: (trial: ApproximateTrial) => Promise<number>, target: number): Promise<{ chosen?: ApproximateTrial; tried: Array<ApproximateTrial & { recall: number }> }> {
    const approx = this.approx;
    const nlist = approx?.nlist;
    const tried: Array<ApproximateTrial & { recall: number }> = [];
    if (!approx || nlist === undefined) return { tried };
    const stale = (): boolean => this.closed || this.approx !== approx;
    const trial = async (nprobe: number, overfetch: number): Promise<ApproximateTrial & { recall: number }> => {
      const made = { nprobe, overfetch, recall: await recallAt({ nprobe, overfetch }) };
      tried.push(made);
      return made;
    };
    let chosen = await trial(Math.min(nlist, TUNE_MIN_PROBES), RESCORE_OVERFETCH);
    let short = 0;
    while (chosen.recall < target && chosen.nprobe < nlist && !stale()) {
      short = chosen.nprobe;
      chosen = await trial(Math.min(nlist, chosen.nprobe * 2), RESCORE_OVERFETCH);
    }
    // Between the last doubling that fell short and the first that reached the target: the cost of a search grows
    // with the lists it scores, and 96 of 287 lists cost two thirds of 128 (docs/decisions/throughput.md).
    while (chosen.recall >= target && short > 0 && chosen.nprobe - short > Math.max(1, short / TUNE_BISECT_SHARE) && !stale()) {
      const between = await trial(Math.round((short + chosen.nprobe) / 2), RESCORE_OVERFETCH);
      if (between.recall >= target) chosen = between;
      else short = between.nprobe;
    }
    // A shorter shortlist matters only where FAISS's own scan of quantized codes shortlists (a pool thread's search
    // scores the lists from the rows: the tuner's searches are such).
    if (approx.quantized && !approx.scoresRows && chosen.recall >= target) {
      for (const overfetch of TUNE_OVERFETCH) {
        if (stale()) break;
        const shorter = await trial(chosen.nprobe, overfetch);
        if (shorter.recall >= chosen.recall) {
          chosen = shorter;
          break;
        }
      }
    }
    if (stale()) return { tried };
    approx.setSearchParams({ nprobe: chosen.nprobe });
    approx.overfetch = chosen.overfetch;
    approx.tunedRows = Math.max(1, this.store.size);
    // a snapshot taken before lacks the tuned probes: counted as a change worth saving
    this.approximateBuilds++;
    return { chosen: { nprobe: chosen.nprobe, overfetch: chosen.overfetch }, tried };
  }

  /** Changes how exact scans run: shards (at most the constructor's), the local-scan threshold, batching. */
  setScan(opts: { shards?: number; localScanRows?: number; batchScans?: boolean }): void {
    if (opts.batchScans !== undefined) this.exact.batchScans = opts.batchScans;
    if (opts.shards !== undefined) this.exact.shards = Math.max(1, Math.min(this.store.layout.shardsMax, opts.shards));
    if (opts.localScanRows !== undefined) this.exact.localScanRows = Math.max(0, opts.localScanRows);
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
    return (await this.searchRows(query, k, opts)).map(({ id, score }) => ({ id, score }));
  }

  /**
   * The k ids nearest `query`, best first (ties by id), answered whole by one pool task (src/vector/query-task.ts):
   * the scan or the approximate shortlist's re-scoring, and with `second` the candidates' second stage, all read from
   * shared memory in the pool thread. This thread only turns ids into rows before and rows into ids after (and asks
   * FAISS for a shortlist, which runs off the event loop). Needs the index's pool; `second` needs its terms.
   */
  async query(query: Float32Array | TextQuery | StoredQuery, k: number, opts: SearchOptions = {}, second?: SecondStageQuery): Promise<Hit[]> {
    if (second && !this.terms) throw new Error('an index made without terms has no candidates for a second stage');
    const pool = this.pool;
    if (!pool) throw new Error('an index made without a pool answers queries with search()');
    const q = query instanceof Float32Array ? normalised(this.checkQuery(query, k)) : undefined;
    if (!q && !this.searchesInPool(opts)) throw new Error('this query needs its vector: the approximate index or a sharded scan shortlists it here');
    const { allow, exclude } = opts;
    const wanted = second ? Math.min(this.kMax, Math.max(k, second.candidates)) : k;
    const slot = await this.exact.slots.acquire();
    const token = this.store.beginRead();
    let mask: number | undefined;
    try {
      const bigExclude = exclude !== undefined && exclude.size > EXCLUDE_OVERFETCH_MAX;
      const excludeRows = bigExclude || !exclude ? new Int32Array(0) : this.rowsOf(exclude);
      const plan = this.approximateInPool(wanted, opts, excludeRows.length) ?? await this.plan(q, wanted, opts, excludeRows.length);
      const needsMask = plan.shortlist === undefined && (allow !== undefined || bigExclude);
      if (needsMask) {
        mask = await this.exact.masks.acquire();
        this.exact.fillMask(this.maskAt(mask), this.store.count, allow, exclude);
      }
      const { layout } = this.store;
      const centroidOf = 'ids' in query ? this.rowsOf(query.ids) : undefined;
      const slotBase = layout.slotsBase + slot * layout.slotBytes;
      const secondStage: SecondStage | undefined = second && {
        model: second.model, candidates: wanted, terms: (this.terms as SparseRows).shared,
        queryRows: 'ids' in second ? this.rowsOf(second.ids) : undefined, texts: 'ids' in second ? undefined : second.texts,
      };
      // one literal (spreading a base object into each task was 4 % of the event loop)
      const task = (shortlist: Int32Array | undefined): QueryTask => ({
        store: this.exact.storeNumber, memory: this.store.memory, dim: this.dim, stride: layout.stride,
        vectorsBase: layout.vectorsBase, aliveBase: layout.aliveBase, queryAt: slotBase + layout.slotQuery,
        outAt: slotBase + layout.slotOut, outPairs: layout.outPairs, count: this.store.count,
        vector: q, embed: 'texts' in query ? query : undefined, centroidOf, excludeRows: bigExclude ? this.rowsOf(exclude) : excludeRows,
        mask: mask === undefined ? 0 : this.maskAt(mask), shortlist, approximate: shortlist ? undefined : plan.inPool, k,
        kMax: this.kMax, second: secondStage,
      });
      let result = await pool.runBatched<QueryResult>('content-search', task(plan.shortlist));
      const eligible = (allow instanceof Set ? allow.size : this.size) - (exclude?.size ?? 0);
      if (plan.approximate && result.rows.length < Math.min(k, eligible)) {
        // Too few results (a filter the probed lists barely cover): answer exactly instead.
        if (allow !== undefined || bigExclude) {
          mask ??= await this.exact.masks.acquire();
          this.exact.fillMask(this.maskAt(mask), this.store.count, allow, exclude);
        }
        result = await pool.runBatched<QueryResult>('content-search', task(undefined));
      }
      return this.hitsOf(result, k);
    } finally {
      this.store.endRead(token);
      if (mask !== undefined) this.exact.masks.release(mask);
      this.exact.slots.release(slot);
    }
  }

  /**
   * Where a query's candidates come from: a short allow-list's rows, the approximate index's shortlist, the worker
   * shards' exact scan of a large index, or (no shortlist) the pool thread's own scan.
   */
  /**
   * Whether a query with these options is searched by the pool thread alone (no shortlist made on this thread from
   * its vector), so that it may be given as texts the pool thread embeds.
   */
  searchesInPool(opts: SearchOptions): boolean {
    const { allow } = opts;
    if (allow instanceof Set && allow.size <= this.store.layout.directMax) return true;
    if (!opts.exact && this.approx?.isReady && typeof allow !== 'function') return this.approximateServesInPool(opts);
    return this.store.count <= this.poolScanRows;
  }

  /** Whether the pool thread searches the approximate index itself: no allow-list, a short exclude list. */
  private approximateServesInPool(opts: SearchOptions): boolean {
    return !opts.exact && this.approx?.isReady === true && opts.allow === undefined && (opts.exclude?.size ?? 0) <= EXCLUDE_OVERFETCH_MAX;
  }

  private get poolScanRows(): number {
    return this.exact.localScanRows * this.exact.shards * POOL_SCAN_SHARDS;
  }

  /**
   * The approximate search made by the pool thread itself (the FAISS index shared with it): for queries with no
   * allow-list and a short exclude list, the common case. Rows written since FAISS last took changes go along.
   */
  private approximateInPool(wanted: number, opts: SearchOptions, excluded: number): Plan | undefined {
    const approx = this.approx as ApproximateIndex;
    if (!this.approximateServesInPool(opts)) return undefined;
    const index = approx.shared();
    if (!index) return undefined;
    // Scored from the key's rows in the pool thread (exact scores): no more than wanted.
    const fetch = approx.scoresRows ? Math.min(this.kMax + EXCLUDE_OVERFETCH_MAX, wanted + excluded) : this.shortlistLength(approx, wanted + excluded, opts);
    const extraRows = this.rowsOf(approx.unapplied());
    // At most directMax rows are scored one by one (as an allow-list is): a burst of writes beyond that is scanned.
    if (fetch + extraRows.length > this.store.layout.directMax) return undefined;
    return { inPool: { index, fetch, nprobe: opts.nprobe ?? index.nprobe, extraRows, eligible: this.size - (opts.exclude?.size ?? 0) } };
  }

  private async plan(q: Float32Array | undefined, wanted: number, opts: SearchOptions, excluded: number): Promise<Plan> {
    const { allow, exclude } = opts;
    const directMax = this.store.layout.directMax;
    if (allow instanceof Set && allow.size <= directMax) {
      return { shortlist: this.rowsOf([...allow].filter((id) => !exclude?.has(id))) };
    }
    if (!q) return {};
    if (!opts.exact && this.approx?.isReady && typeof allow !== 'function') {
      const shortlist = await this.approximateShortlist(q, wanted + excluded, allow, exclude, opts);
      if (shortlist.length <= directMax) return { shortlist, approximate: true };
    }
    if (this.store.count > this.poolScanRows) {
      // A scan longer than a pool thread should take alone: split over the pool (worker shards), then re-scored there.
      const hits = await this.exact.search(q, Math.min(this.kMax, wanted), allow, exclude);
      return { shortlist: this.rowsOf(hits.map((h) => h.id)) };
    }
    return {};
  }

  /** The approximate index's shortlist for `wanted` hits, with the rows it does not reflect yet (read your writes). */
  private async approximateShortlist(
    q: Float32Array, wanted: number, allow: ReadonlySet<string> | undefined, exclude: ReadonlySet<string> | undefined, trial: Partial<ApproximateTrial>,
  ): Promise<Int32Array> {
    const approx = this.approx as ApproximateIndex;
    const fetch = this.shortlistLength(approx, wanted, trial);
    // The changes FAISS lacks when the search starts: one applied while it runs may be missing from its answer.
    const unapplied = new Set(approx.unapplied());
    const { rows } = await approx.search(q, fetch, allow, trial.nprobe);
    if (unapplied.size === 0) return rows;
    const kept = Array.from(rows).filter((row) => !unapplied.has(this.store.idOf(row) as string));
    for (const id of unapplied) {
      const row = exclude?.has(id) || (allow && !allow.has(id)) ? undefined : this.store.rowOf(id);
      if (row !== undefined) kept.push(row);
    }
    return Int32Array.from(kept);
  }

  /**
   * How many labels to ask the approximate index for `wanted` hits: lossy codes (SQ8) only shortlist, so more than
   * wanted (the tuned overfetch), re-scored exactly from the float32 rows.
   */
  private shortlistLength(approx: ApproximateIndex, wanted: number, trial: Partial<ApproximateTrial>): number {
    const capped = Math.min(this.kMax + EXCLUDE_OVERFETCH_MAX, wanted);
    const overfetch = trial.overfetch ?? approx.overfetch ?? RESCORE_OVERFETCH;
    return approx.quantized ? Math.max(Math.ceil(capped * overfetch), capped + RESCORE_MIN_EXTRA) : capped;
  }

  private rowsOf(ids: Iterable<string>): Int32Array {
    const rows: number[] = [];
    for (const id of ids) {
      const row = this.store.rowOf(id);
      if (row !== undefined) rows.push(row);
    }
    return Int32Array.from(rows);
  }

  private maskAt(mask: number): number {
    return this.store.layout.maskBase + mask * this.store.layout.maskBytes;
  }

  /** A pool thread's rows as hits (called before the read ends: the rows still name what was scored), ties by id. */
  private hitsOf(result: QueryResult, k: number): Hit[] {
    const best = new Map<string, number>();
    for (let i = 0; i < result.rows.length; i++) {
      const id = this.store.idOf(result.rows[i]!);
      if (id === undefined) continue;
      const score = result.scores[i]!;
      const prev = best.get(id);
      if (prev === undefined || score > prev) best.set(id, score);
    }
    const hits: Hit[] = [];
    for (const [id, score] of best) hits.push({ id, score });
    return hits.sort(byScoreDesc).slice(0, k);
  }

  private checkQuery(query: Float32Array, k: number): Float32Array {
    if (query.length !== this.dim) throw new RangeError(`query has ${query.length} dims, index has ${this.dim}`);
    if (!Number.isInteger(k) || k < 1) throw new RangeError('k must be a positive integer');
    if (k > this.kMax) throw new RangeError(`k must be at most ${this.kMax}`);
    return query;
  }

  private async searchRows(query: Float32Array, k: number, opts: SearchOptions): Promise<Array<Hit & { row?: number }>> {
    const q = normalised(this.checkQuery(query, k));
    const { allow, exclude } = opts;
    if (allow instanceof Set && allow.size <= this.store.layout.directMax) {
      return this.exact.scoreDirect(q, k, allow, exclude);
    }
    if (!opts.exact && this.approx?.isReady && typeof allow !== 'function') {
      const hits = await this.searchApproximate(q, k, allow, exclude, opts);
      if (hits) return hits;
    }
    return this.exact.search(q, k, allow, exclude);
  }

  private async searchApproximate(
    q: Float32Array, k: number, allow: ReadonlySet<string> | undefined, exclude: ReadonlySet<string> | undefined, trial: Partial<ApproximateTrial>,
  ): Promise<Array<Hit & { row: number }> | undefined> {
    const approx = this.approx as ApproximateIndex;
    // Excluded documents by row: the shortlist is checked without reading its ids' strings.
    const excludedRows = new Set<number>();
    if (exclude) {
      for (const id of exclude) {
        const row = this.store.rowOf(id);
        if (row !== undefined) excludedRows.add(row);
      }
    }
    const excluded = excludedRows.size;
    const fetch = this.shortlistLength(approx, k + excluded, trial);
    // The changes FAISS lacks when the search starts: one applied while it runs may be missing from its answer.
    const unapplied = new Set(approx.unapplied());
    const shortlist = await approx.search(q, fetch, allow, trial.nprobe);
    const { rows } = shortlist;
    const scores = approx.quantized ? this.store.scoreRows(rows, q) : shortlist.scores;
    const idOf = (i: number): string => this.store.idOf(rows[i]!) as string;
    const order = rankDescending(scores, idOf);
    // Rows changed since FAISS last took changes (a write a moment ago) are scored exactly: read your writes.
    let hits: Array<Hit & { row: number }> = [];
    for (const i of order) {
      if (hits.length === k && unapplied.size === 0) break;
      if (excludedRows.has(rows[i]!)) continue;
      const id = idOf(i);
      if (unapplied.size > 0 && unapplied.has(id)) continue;
      hits.push({ id, row: rows[i]!, score: scores[i]! });
    }
    if (unapplied.size > 0) {
      const fresh: Array<{ id: string; row: number }> = [];
      for (const id of unapplied) {
        const row = exclude?.has(id) || (allow && !allow.has(id)) ? undefined : this.store.rowOf(id);
        if (row !== undefined) fresh.push({ id, row });
      }
      const freshScores = this.store.scoreRows(Int32Array.from(fresh, (f) => f.row), q);
      fresh.forEach((f, i) => hits.push({ ...f, score: freshScores[i]! }));
      hits.sort(byScoreDesc);
    }
    hits = hits.slice(0, k);
    const eligible = (allow ? allow.size : this.size) - excluded;
    // too few results (a filter the probed lists barely cover): answer exactly instead
    if (hits.length < Math.min(k, eligible)) return undefined;
    return hits;
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

  /**
   * Writes the live vectors and `meta` (e.g. the change-feed sequence they reflect) to
   * `file`; a ready approximate index goes to `<file>.ann-<n>.faiss` alongside, with its
   * label state in the header, so `load` need not rebuild it.
   */
  async snapshot(file: string, meta: unknown = null): Promise<void> {
    const approx = this.approx?.isReady ? this.approx : undefined;
    const resume = approx ? await approx.pause() : undefined;
    try {
      let annFile: string | undefined;
      let annState: PersistedApproximate | undefined;
      let terms: TermsFile | undefined;
      await writeSnapshot(this.store, file, meta, async (ids, rows) => {
        terms = await this.terms?.packFile(rows, pauseForEventLoop);
        if (!approx) return {};
        annFile = `${path.basename(file)}.ann-${Date.now().toString(36)}.faiss`;
        annState = await approx.persistedState(ids, pauseForEventLoop);
        return { annFile, ann: annState };
      }).then(async () => {
        if (!approx || !annFile) return;
        // the header now names annFile: write it, then drop older ones
        const full = path.join(path.dirname(file), annFile);
        await approx.write(`${full}.tmp`);
        await fs.promises.rename(`${full}.tmp`, full);
      });
      // Beside the vectors, in their row order (no ids: row i of the snapshot is row i of the terms).
      if (terms) await writeTermsFile(`${file}.terms`, terms);
      else await fs.promises.rm(`${file}.terms`, { force: true });
      const keep = annFile;
      const prefix = `${path.basename(file)}.ann-`;
      for (const name of await fs.promises.readdir(path.dirname(file))) {
        if (name.startsWith(prefix) && name !== keep) await fs.promises.rm(path.join(path.dirname(file), name), { force: true });
      }
    } finally {
      resume?.();
    }
  }

  /**
   * Loads a snapshot written by `snapshot`. A saved approximate index is read back when
   * the addon is available; otherwise it is rebuilt in the background once large enough
   * (exact search serves meanwhile).
   */
  static async load(file: string, opts: VectorIndexOptions = {}): Promise<{ index: VectorIndex; meta: unknown }> {
    let index: VectorIndex | undefined;
    let ids: string[] = [];
    let meta: unknown = null;
    let extra: Record<string, unknown> | undefined;
    await readSnapshot(file, (header) => {
      index = new VectorIndex(header.dim, { ...opts, initialRows: Math.max(opts.initialRows ?? 0, header.ids.length) });
      ids = header.ids;
      meta = header.meta;
      extra = header.extra;
    }, (_first, count) => (index as VectorIndex).store.roomFor(count), (first, rows) => {
      const ix = index as VectorIndex;
      ix.store.putMany(ids.slice(first, first + rows.length / ix.dim), rows);
    });
    const loaded = index as VectorIndex;
    if (fs.existsSync(`${file}.terms`)) {
      const { rows, count } = await SparseRows.readFile(`${file}.terms`);
      if (count !== ids.length) throw new Error(`${file}.terms: ${count} rows for ${ids.length} vectors`);
      loaded.attachTerms(rows);
    } else if (opts.terms) {
      loaded.attachTerms(new SparseRows());
    }
    const addon = loadFaissAddon();
    if (addon && loaded.approxOptions && extra && typeof extra.annFile === 'string' && isPersistedApproximate(extra.ann)) {
      const annPath = path.join(path.dirname(file), extra.annFile);
      if (fs.existsSync(annPath)) {
        loaded.approx = await ApproximateIndex.restore(loaded.store, addon, annPath, ids, extra.ann, loaded.approxOptions);
      }
    }
    loaded.afterMutation();
    return { index: loaded, meta };
  }

  /**
   * Stops background work (compaction, ANN upkeep) and lets workers drop their kernel
   * instance. Searches in flight or queued still complete (swap a generation, then close
   * the old one); drop the index afterwards.
   */
  close(): void {
    this.closed = true;
    // workers drop their cached kernel instance (and so the memory) at their next task
    Atomics.store(new Int32Array(this.store.memory.buffer, CLOSED_FLAG_OFFSET, 1), 0, 1);
    if (this.compactTimer) clearTimeout(this.compactTimer);
    this.approx?.close();
    this.building?.close();
  }
}
