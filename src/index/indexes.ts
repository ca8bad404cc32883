import type { EventLoopUtilization } from 'node:perf_hooks';
import path from 'node:path';
import type { DocumentRecord } from '../domain';
import type { Logger } from '../log';
import type { WorkerPool } from '../pool';
import type { ManyTermCounts, TermCounts, TermCountsTask } from '../text/term-counts-task';
import type { Change, ChangeBus } from '../storage/changes';
import type { Storage, TenantStore } from '../storage';
import { TenantContent, type ContentSettings } from './content';
import { DocumentFacts } from './facts';
import { TenantHybrid } from './hybrid';
import type { HybridRecommender } from '../models/hybrid/recommender';
import type { KeywordDocument, KeywordHit, SearchOptions, SearchResponse } from '../keyword';
import { KeywordWorkerHost } from '../keyword/host';
import type { StoredVersions } from '../keyword/protocol';
import { KeywordSnapshot } from './keyword-snapshot';
import { TagModel } from './tag-model';
import { TagLearner, type TaggedText } from './tag-learner';
import { trimAllocator } from '../runtime/memory-addon';
import type { IndexMemoryUse } from '../runtime/memory';
import type { ModelInfo } from '../embedding';

/** A key's content index against its stored documents (GET /healthz, the dashboard). */
export interface IndexingProgress {
  tenant: string;
  indexed: number;
  stored: number;
  /** Whether the corpus model is being refitted (the next generation is built beside the serving one). */
  refitting: boolean;
  /** Whether it will be refitted on every document once the key's writes pause (its model has seen fewer than 95 % of them). */
  refitDue: boolean;
  /** Content search: exact scans only ('off'), an approximate index being built, its probes being tuned, or ready. */
  approximate: 'off' | 'building' | 'tuning' | 'ready';
  /** The serving content model: kind, dimensions, documents fitted on, and the shape its check chose (issue 32). */
  model?: ModelInfo;
}

const PROGRESS_TTL_MS = 2000;
/** Tagged documents read whole per request of storage, at a restart (their texts teach the tag model). */
const TAGGED_BATCH = 500;
const NO_TAGS: readonly string[] = [];
/**
 * Resident bytes a key's indexes are counted as per document besides its vector, on the safe side: bench:scale
 * measured 6.4 KB idle per document for 82k real texts (hundreds of words each) and 2.7 KB for 1M short
 * generated ones (bench/RESULTS.md, fifth part).
 */
const BYTES_PER_DOCUMENT = 8_400;
/** What `documents` documents of `dimensions`-dimension vectors are counted as against the memory budget. */
const estimateBytes = (documents: number, dimensions: number): number => documents * (BYTES_PER_DOCUMENT + dimensions * 4);
/** How often the memory budget is checked (besides after each key's load). */
const BUDGET_CHECK_MS = 1000;
const TRIM_INTERVAL_MS = 10_000;
/** Idle pool threads free the buffers of their last tasks when V8's memory reducer runs, 30–45 s after the work stops. */
const TRIMS_AFTER_INDEXING = 6;
/** A full collection in every pool thread holds each for ~10–50 ms: under a trickle of writes, at most this often. */
const TIDY_INTERVAL_MS = 60_000;
/** Documents read from storage and sent to the keyword worker at once. */
const REFRESH_BATCH = 1000;
/** Documents waiting for their keyword and facts refresh beyond which writers wait (as the content index's). */
const MAX_DOCUMENT_BACKLOG = 1024;

/**
 * Everything derived in memory for one key: filter facts, the content recommender and the
 * keyword index. Built from storage at the key's first write through this process (or first use, or at
 * start-up), then kept current from the change bus.
 */
export class TenantIndexes {
  readonly facts = new DocumentFacts();
  /** Tag suggestion model over the key's taggings, synced with every document refresh. */
  readonly tagModel = new TagModel();
  /** Feeds the tag model documents, their texts analysed in the pool. */
  private readonly tagLearner = new TagLearner(this.tagModel, (task) => this.pool.run<ManyTermCounts>('term-counts-many', task));
  readonly content: TenantContent;
  readonly hybrid: TenantHybrid;
  readonly ready: Promise<void>;
  /** The facts and the keyword index alone: searches need not wait for the content model. */
  private readonly documentsLoaded: Promise<void>;
  private readonly taggingsLoaded: Promise<void>;
  /** One scan of storage at start-up, for both snapshots' reconciliation (dropped once used). */
  private versions: Promise<StoredVersions> | undefined;
  /** Applies document-level updates in arrival order. */
  private queue: Promise<void> = Promise.resolve();
  private stored = 0;
  private storedAt = 0;
  /** Documents written since the queued refresh was taken (see touchDocument). */
  private readonly dirtyDocuments = new Set<string>();
  private refreshQueued = false;
  private isReady = false;
  /** The keyword index on disk, when snapshots are on. */
  private readonly keywordSnapshot: KeywordSnapshot | undefined;

  constructor(
    private readonly store: TenantStore,
    private readonly pool: WorkerPool,
    settings: ContentSettings,
    private readonly logger: Logger,
    /** The keyword indexes of every key live in one worker thread, each under its tenant id. */
    private readonly keywords: KeywordWorkerHost,
    /** Resolves once the key's previous indexes in this process are unloaded (memory budget). */
    private readonly after: Promise<void> = Promise.resolve(),
  ) {
    this.content = new TenantContent(store, pool, settings, logger, { after, storedVersions: () => this.storedVersions() });
    this.hybrid = new TenantHybrid(store, pool, this.content, logger);
    this.keywordSnapshot = settings.snapshotDir === undefined ? undefined : new KeywordSnapshot(
      path.join(settings.snapshotDir, `${store.tenant}.keyword`), store.tenant, keywords, logger, settings.snapshotEveryMs, () => this.documentsLoaded,
    );
    this.taggingsLoaded = this.loadTaggings();
    this.documentsLoaded = this.loadDocuments();
    this.ready = Promise.all([this.documentsLoaded, this.content.ready]).then(() => undefined);
    this.ready.then(() => (this.isReady = true), () => undefined);
    this.ready.finally(() => (this.versions = undefined)).catch(() => undefined);
  }

  /** A text's terms and their counts, analysed in a pool thread (in `hint`'s language when too short to tell). */
  termCountsOf(text: string, hint?: string): Promise<TermCounts> {
    const task: TermCountsTask = hint === undefined ? { text } : { text, hint };
    return this.pool.run<TermCounts>('term-counts', task);
  }

  /** The taggings, into the facts (before any document is read). */
  private async loadTaggings(): Promise<void> {
    await this.after;
    for await (const batch of this.store.taggings.scan(5000)) {
      for (const t of batch) this.facts.tag(t.document_id, t.tag_id);
    }
  }

  /** Brings a stored document's facts up to date; its tags. */
  private noteFacts(id: string, publishedAt: string | null): string[] {
    this.facts.setPublished(id, publishedAt);
    return this.facts.tags(id);
  }

  /** Every stored document, its facts noted and, when tagged, learnt by the tag model: what the keyword index is built from. */
  private async *documents(): AsyncGenerator<KeywordDocument> {
    await this.taggingsLoaded;
    for await (const batch of this.store.documents.scan(2000)) {
      const tagged: TaggedText[] = [];
      const keywordDocuments = batch.map((doc) => {
        const tags = this.noteFacts(doc.id, doc.published_at);
        if (tags.length > 0) tagged.push({ id: doc.id, text: doc.text, tags });
        return this.keywordDocument(doc, tags);
      });
      // The batch's texts are analysed in the pool while the keyword index takes the batch.
      const learnt = this.tagLearner.sync(tagged);
      learnt.catch(() => undefined);
      yield* keywordDocuments;
      await learnt;
    }
  }

  /**
   * Every stored document's id, updated_at and tags, noted on the way: from one scan of the documents' version
   * fields (not the whole documents), shared by the keyword and content restores; the tag model reads the texts
   * of the tagged documents only.
   */
  private storedVersions(): Promise<StoredVersions> {
    this.versions ??= (async () => {
      await this.taggingsLoaded;
      const ids: string[] = [];
      const times: number[] = [];
      const tags: Array<readonly string[]> = [];
      const tagged: string[] = [];
      for await (const batch of this.store.documents.scanFields(4000)) {
        for (const doc of batch) {
          const docTags = this.noteFacts(doc.id, doc.published_at);
          ids.push(doc.id);
          times.push(Date.parse(doc.updated_at));
          if (docTags.length > 0) tagged.push(doc.id);
          tags.push(docTags.length > 0 ? docTags : NO_TAGS);
        }
      }
      for (let i = 0; i < tagged.length; i += TAGGED_BATCH) {
        const docs = await this.store.documents.getMany(tagged.slice(i, i + TAGGED_BATCH));
        await this.tagLearner.sync(docs.filter((d): d is DocumentRecord => d !== undefined).map((d) => ({ id: d.id, text: d.text, tags: this.facts.tags(d.id) })));
      }
      return { ids, updatedAt: Float64Array.from(times), tags };
    })();
    return this.versions;
  }

  private async loadDocuments(): Promise<void> {
    await this.taggingsLoaded;
    const started = Date.now();
    // The scan runs beside the snapshots' loading (the content index waits for it too).
    if (this.keywordSnapshot?.exists()) this.storedVersions().catch(() => undefined);
    if (!await this.keywordSnapshot?.restore()) {
      await this.keywords.build(this.store.tenant, this.documents());
      this.keywordSnapshot?.touch();
      return;
    }
    // Restored: storage decides what is current. Documents changed, retagged or written since the snapshot are
    // refreshed, those deleted since are dropped.
    const restoreMs = Date.now() - started;
    const current = await this.storedVersions();
    const scanMs = Date.now() - started - restoreMs;
    const stale = await this.keywords.reconcile(this.store.tenant, current);
    await this.refreshDocuments(stale);
    this.logger.info({ tenant: this.store.tenant, documents: current.ids.length, refreshed: stale.length, restoreMs, scanMs, ms: Date.now() - started }, 'keyword index restored');
  }

  /** Runs an Elasticsearch request body on the key's keyword index (after every write told so far). */
  async search(esQuery: unknown, options: SearchOptions): Promise<SearchResponse> {
    await this.documentsSettled();
    const result = await this.keywords.search(this.store.tenant, esQuery, options);
    const fields = [...options.fields ?? []];
    const { hits } = result.response.hits;
    if ((fields.length === 0 && !result.highlight) || hits.length === 0) return result.response;
    // The keyword index keeps no copy of the documents: hits' fields and highlights come from storage.
    const docs = await this.store.documents.getMany(hits.map((h) => h.id));
    return this.keywords.decorate(result, docs.map((d) => d && this.keywordDocument(d, this.facts.tags(d.id))), fields);
  }

  async topByKeywords(text: string, fields: string[], n: number): Promise<KeywordHit[]> {
    await this.documentsSettled();
    return this.keywords.topByKeywords(this.store.tenant, text, fields, n);
  }

  private keywordDocument(doc: DocumentRecord, tags: string[]) {
    return { id: doc.id, text: doc.text, meta: doc.meta, tags, published_at: doc.published_at, created_at: doc.created_at, updated_at: doc.updated_at };
  }

  /** Brings documents' facts, tag-model entries and keyword entries to what storage holds (in batches). */
  private async refreshDocuments(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) this.keywordSnapshot?.touch();
    for (let i = 0; i < ids.length; i += REFRESH_BATCH) {
      const batch = ids.slice(i, i + REFRESH_BATCH);
      const docs = await this.store.documents.getMany(batch);
      const gone = batch.filter((_, j) => docs[j] === undefined);
      const present = docs.filter((d): d is DocumentRecord => d !== undefined);
      for (const id of gone) this.facts.removeDocument(id);
      this.tagLearner.remove(gone);
      for (const doc of present) this.facts.setPublished(doc.id, doc.published_at);
      // Their texts are analysed in the pool, not waited for here: searches and filters wait for this queue, tag
      // suggestions for the learning as well (tagModelSettled).
      this.tagLearner.sync(present.map((d) => ({ id: d.id, text: d.text, tags: this.facts.tags(d.id) }))).catch((error: unknown) => {
        this.logger.error({ err: error, tenant: this.store.tenant }, 'tag model update failed');
      });
      if (gone.length) await this.keywords.remove(this.store.tenant, gone);
      if (present.length) await this.keywords.upsert(this.store.tenant, present.map((d) => this.keywordDocument(d, this.facts.tags(d.id))));
    }
  }

  private refreshDocument(id: string): Promise<void> {
    return this.refreshDocuments([id]);
  }

  /**
   * Queues a document's refresh. Documents written one after another share one queued refresh (read from
   * storage in batches): one task per write kept a bulk import's keyword index seconds behind it.
   */
  private touchDocument(id: string): void {
    this.dirtyDocuments.add(id);
    if (this.refreshQueued) return;
    this.refreshQueued = true;
    this.enqueue(async () => {
      this.refreshQueued = false;
      const ids = [...this.dirtyDocuments];
      this.dirtyDocuments.clear();
      await this.refreshDocuments(ids);
    });
  }

  private async refreshTagging(documentId: string, tagId: string): Promise<void> {
    if (await this.store.taggings.get(documentId, tagId)) this.facts.tag(documentId, tagId);
    else this.facts.untag(documentId, tagId);
    await this.refreshDocument(documentId);
  }

  private async reloadAfterClear(): Promise<void> {
    for await (const batch of this.store.taggings.scan(5000)) {
      for (const t of batch) this.facts.tag(t.document_id, t.tag_id);
    }
    for await (const batch of this.store.documents.scan(2000)) {
      for (const doc of batch) {
        this.content.touch(doc.id);
        await this.refreshDocument(doc.id);
      }
    }
  }

  apply(change: Change): void {
    const [first, second] = change.id.split('/');
    switch (change.entity) {
      case 'document':
        this.content.touch(change.id);
        this.touchDocument(change.id);
        break;
      case 'tagging':
        if (change.remote) {
          // Another process's changes may arrive out of order: storage says which is current.
          this.enqueue(() => this.refreshTagging(first, second));
          break;
        }
        if (change.op === 'put') this.facts.tag(first, second);
        else this.facts.untag(first, second);
        this.touchDocument(first);
        break;
      case 'tag':
        if (change.op === 'delete') {
          const docs = [...(this.facts.documentsTagged(change.id) ?? [])];
          this.facts.removeTag(change.id);
          for (const id of docs) this.touchDocument(id);
        }
        break;
      case 'all':
        this.facts.clear();
        this.tagLearner.clear();
        this.enqueue(() => this.keywords.build(this.store.tenant, []).then(() => this.keywordSnapshot?.touch()));
        this.content.clear();
        this.hybrid.reset();
        // Another process's writes that came after its delete may have been told before it.
        if (change.remote) this.enqueue(() => this.reloadAfterClear());
        break;
      default:
        break;
    }
  }

  private enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(() => this.documentsLoaded).then(task).catch((error: unknown) => {
      this.logger.error({ err: error, tenant: this.store.tenant }, 'index update failed');
    });
  }

  /** Back-pressure for writers: resolves once the key's content and keyword indexes are near enough its writes. */
  async keepUp(): Promise<void> {
    await this.content.keepUp();
    while (this.dirtyDocuments.size > MAX_DOCUMENT_BACKLOG) await this.queue;
  }

  /**
   * Read your writes: resolves once every change told so far is in the content index and, unless `facts` is
   * false (no filter to evaluate), in the facts and the keyword index (docs/decisions.md).
   */
  async caughtUp(options: { facts?: boolean } = {}): Promise<void> {
    await this.ready;
    await Promise.all([options.facts === false ? undefined : this.documentsSettled(), this.content.caughtUp()]);
  }

  /** How far the content index is: documents in it, and documents stored (read at most every PROGRESS_TTL_MS). */
  async progress(): Promise<IndexingProgress> {
    const now = Date.now();
    if (now - this.storedAt > PROGRESS_TTL_MS) {
      this.storedAt = now;
      this.stored = await this.store.documents.count();
    }
    return {
      tenant: this.store.tenant, indexed: this.content.size, stored: this.stored, refitting: this.content.isRefitting,
      refitDue: this.content.refitDueAtRest, approximate: this.content.approximateState, ...(this.content.model ? { model: this.content.model } : {}),
    };
  }

  /** Every document's content vector, once every write told so far is in them. */
  async contentVectors(): Promise<{ ids: string[]; vectors: Float32Array; dim: number }> {
    await this.caughtUp();
    return this.content.vectors();
  }

  /** The key's hybrid recommender, loaded with the current content vectors. */
  async hybridRecommender(): Promise<HybridRecommender> {
    await this.ready;
    return this.hybrid.recommender();
  }

  /** Resolves once every change told so far is reflected in the facts and the keyword index. */
  async documentsSettled(): Promise<void> {
    await this.documentsLoaded;
    await this.queue;
  }

  /** Resolves once every change told so far is reflected in the facts and the tag model (its texts analysed in the pool). */
  async tagModelSettled(): Promise<void> {
    await this.documentsSettled();
    await this.tagLearner.settled();
  }

  /** Resident bytes these indexes are counted as against the memory budget (BYTES_PER_DOCUMENT). */
  get memoryEstimate(): number {
    return estimateBytes(this.content.size, this.content.dimensions);
  }

  /** Whether unloading now would lose nothing and interrupt nothing: built, no refit, no write waiting. */
  get settled(): boolean {
    return this.isReady && !this.content.isRefitting && this.dirtyDocuments.size === 0 && !this.refreshQueued;
  }

  /** Whether any of the key's indexes has work under way or waiting. */
  get indexing(): boolean {
    return !this.isReady || this.content.isBusy || this.dirtyDocuments.size > 0 || this.refreshQueued;
  }

  async close(): Promise<void> {
    await Promise.all([this.content.close(), this.keywordSnapshot?.close()]);
  }

  /** Snapshots what changed and frees the key's indexes here (memory budget); the next use loads them again. */
  async unload(): Promise<void> {
    await this.documentsSettled().catch(() => undefined);
    await this.close();
    await this.keywords.drop(this.store.tenant);
  }
}

export class Indexes {
  /** Loaded keys, least recently used first. */
  private readonly tenants = new Map<string, TenantIndexes>();
  /** Service calls running per key: a key is never unloaded under one. */
  private readonly leases = new Map<string, number>();
  /** Keys being unloaded: loading one again waits for its snapshot. */
  private readonly unloading = new Map<string, Promise<void>>();
  private readonly keywords = new KeywordWorkerHost();
  /** The keyword thread, as the dashboard watches it. */
  readonly keywordThread = { name: 'keyword', utilization: (previous?: EventLoopUtilization) => this.keywords.utilization(previous) };
  private readonly unsubscribe: () => void;
  private readonly budgetTimer: NodeJS.Timeout;
  private enforcing: Promise<void> | undefined;
  private unloads = 0;
  /** Trims still to do since a key last indexed. */
  private trimsDue = 0;
  /** A key indexed since the pool threads last collected: they collect once TIDY_INTERVAL_MS allows. */
  private tidyDue = false;
  private tidying: Promise<void> | undefined;
  private trimmedAt = 0;
  private tidiedAt = -Infinity;

  constructor(
    private readonly storage: Storage,
    private readonly pool: WorkerPool,
    changes: ChangeBus,
    private readonly settings: ContentSettings,
    private readonly logger: Logger,
    /** Bytes the indexes of all keys may hold (KINDRED_INDEX_MEMORY); beyond, the least recently used are unloaded. */
    private readonly budget = Infinity,
  ) {
    // Indexes follow writes: a key written through this process gets its indexes at its first write, not its
    // first query. Other processes' writes reach only keys loaded here (a balancer routes each key to one node).
    this.unsubscribe = changes.subscribe((change) => {
      const indexes = change.remote ? this.tenants.get(change.tenant) : this.of(change.tenant);
      if (!indexes) return;
      indexes.apply(change);
      this.trimsDue = TRIMS_AFTER_INDEXING;
      this.tidyDue = true;
    });
    this.budgetTimer = setInterval(() => {
      void this.enforceBudget();
      this.trimAfterIndexing();
    }, BUDGET_CHECK_MS);
    this.budgetTimer.unref();
  }

  /** The key's indexes, loading them on first use (or after an unload); await `.ready` before reading them. */
  of(tenant: string): TenantIndexes {
    let indexes = this.tenants.get(tenant);
    if (indexes) {
      this.tenants.delete(tenant);
    } else {
      indexes = new TenantIndexes(this.storage.tenant(tenant), this.pool, this.settings, this.logger, this.keywords, this.unloading.get(tenant));
      indexes.ready.then(() => this.enforceBudget(), () => undefined);
    }
    this.tenants.set(tenant, indexes);
    return indexes;
  }

  /** Runs a service call on `tenant` with its indexes held: the memory budget does not unload them meanwhile. */
  hold<T>(tenant: string, call: () => T): T {
    this.leases.set(tenant, (this.leases.get(tenant) ?? 0) + 1);
    const release = (): void => {
      const left = (this.leases.get(tenant) ?? 1) - 1;
      if (left > 0) this.leases.set(tenant, left);
      else this.leases.delete(tenant);
    };
    let result: T;
    try {
      result = call();
    } catch (error) {
      release();
      throw error;
    }
    if (result instanceof Promise) result.then(release, release);
    else release();
    return result;
  }

  /** Unloads the least recently used keys that are idle until the loaded ones fit the budget (the most recent always stays). */
  private enforceBudget(): Promise<void> {
    this.enforcing ??= (async () => {
      for (;;) {
        if (this.held() <= this.budget) return;
        // Least recently used first; the most recent stays. Taken afresh after each unload: a request may have
        // come for a key meanwhile.
        const victim = [...this.tenants].slice(0, -1).find(([tenant, indexes]) => !this.leases.has(tenant) && indexes.settled);
        if (!victim) return;
        await this.unload(...victim);
      }
    })().finally(() => {
      this.enforcing = undefined;
    });
    return this.enforcing;
  }

  private async unload(tenant: string, indexes: TenantIndexes): Promise<void> {
    const started = Date.now();
    const documents = indexes.content.size;
    this.tenants.delete(tenant);
    const done = indexes.unload().catch((error: unknown) => {
      this.logger.error({ err: error, tenant }, 'unloading indexes failed');
    }).finally(() => {
      if (this.unloading.get(tenant) === done) this.unloading.delete(tenant);
    });
    this.unloading.set(tenant, done);
    await done;
    this.handBackMemory();
    this.unloads++;
    this.logger.info({ tenant, documents, ms: Date.now() - started }, 'indexes unloaded (memory budget)');
  }

  /**
   * Indexing allocates and frees large buffers (embedding batches, rows handed between threads, index builds),
   * and malloc keeps the freed room in its arenas: ~100 MB after an 82k-document import; the writes and the
   * catch-up reads leave every page of the store mapped. Once no key is indexing, each pool thread collects its
   * garbage (`WorkerPool.tidy`, at most every TIDY_INTERVAL_MS, and once more after the last indexing), malloc is
   * trimmed and the store's pages unmapped, then both again every TRIM_INTERVAL_MS for a minute (a trim walks
   * every arena).
   */
  private trimAfterIndexing(): void {
    // Writes set trimsDue as they are applied (a burst may come and go between two checks); refits, builds and
    // catch-ups are seen here.
    if ([...this.tenants.values()].some((indexes) => indexes.indexing)) {
      this.trimsDue = TRIMS_AFTER_INDEXING;
      this.tidyDue = true;
      return;
    }
    const now = Date.now();
    if (this.tidying) return;
    // A collection put off by the interval (one ran at a pause during a bulk import) is due later, not dropped.
    if (this.tidyDue && now - this.tidiedAt >= TIDY_INTERVAL_MS) {
      this.tidyDue = false;
      this.tidiedAt = now;
      this.trimmedAt = now;
      if (this.trimsDue > 0) this.trimsDue--;
      this.tidying = this.pool.tidy().then((threads) => {
        const storeMappings = this.handBackMemory();
        this.logger.info({ threads: threads.length, storeMappings }, 'memory handed back after indexing');
        this.logger.flush();
      }).finally(() => {
        this.tidying = undefined;
      });
      return;
    }
    if (this.trimsDue === 0 || now - this.trimmedAt < TRIM_INTERVAL_MS) return;
    this.trimsDue--;
    this.trimmedAt = now;
    this.handBackMemory();
  }

  /** Malloc's free pages and the store's mapped pages go back to the system; the number of store mappings released. */
  private handBackMemory(): number {
    trimAllocator();
    return this.storage.releaseMappedPages?.() ?? 0;
  }

  /** The memory budget and what is held against it. */
  memoryUse(): IndexMemoryUse {
    return { budget: this.budget, held: this.held(), loadedKeys: this.tenants.size, unloads: this.unloads };
  }

  private held(): number {
    let held = 0;
    for (const indexes of this.tenants.values()) held += indexes.memoryEstimate;
    return held;
  }

  /** Builds the indexes of every key that has documents, as many as the budget holds, so the first requests find them ready. */
  async warm(): Promise<void> {
    const tenants = new Set((await this.storage.keys.list()).filter((k) => !k.revoked_at).map((k) => k.tenant));
    let planned = 0;
    for (const tenant of tenants) {
      const documents = await this.storage.tenant(tenant).documents.count();
      if (documents === 0) continue;
      // Dimensions are not known before loading: counted as the floor's 64.
      planned += estimateBytes(documents, 64);
      if (planned > this.budget && this.tenants.size > 0) break;
      await this.of(tenant).ready;
    }
  }

  /** Indexing progress of every key loaded here. */
  progress(): Promise<IndexingProgress[]> {
    return Promise.all([...this.tenants.values()].map((indexes) => indexes.progress()));
  }

  /** The keyword worker's JS heap in use (every key's keyword index). */
  keywordHeapUsed(): Promise<number> {
    return this.keywords.heapUsed();
  }

  async refitAll(): Promise<void> {
    for (const indexes of this.tenants.values()) await indexes.content.refit();
  }

  list(): Array<[string, TenantIndexes]> {
    return [...this.tenants];
  }

  async close(): Promise<void> {
    clearInterval(this.budgetTimer);
    this.unsubscribe();
    await Promise.all([...this.unloading.values()]);
    await Promise.all([...this.tenants.values()].map((indexes) => indexes.close()));
    await this.keywords.close();
  }
}
