import type { ModelShape } from '../embedding';
import { WORD_VECTOR_DIM } from '../embedding/word-vectors';
import { HYBRID_MODEL_BLOB } from '../index/hybrid';
import type { Indexes, TenantIndexes } from '../index/indexes';
import { isJobRecord, JOBS_NAMESPACE, type JobRecord } from '../jobs/runner';
import { storedClusterModels } from '../services/clusters';
import type { Storage, TenantStore } from '../storage';

export interface TenantIndexFigures {
  /** Whether this process has built the key's in-memory indexes (they are built on first use). */
  loaded: boolean;
  /** Embedding model of the content index: 'lsa' (fitted on the key's corpus) or 'word-vectors'. */
  kind?: 'lsa' | 'word-vectors';
  /** Documents in the vector index. */
  size: number;
  /** Dimension of its vectors (float32). */
  dimensions?: number;
  /** Whether the TF-IDF second stage reranks its candidates. */
  reranks?: boolean;
  /** The content model's shape, chosen at fit time by the key's own documents, with its check's figures (issue 32). */
  shape?: ModelShape;
  hybridModel?: string;
  /** Vectors, ids and the TF-IDF terms kept for reranking, roughly (see docs/decisions/dashboard.md). */
  memoryBytes: number;
}

export interface TenantFigures {
  /** The key's tenant id (a prefix of the key's hash); the key itself is never stored or shown. */
  tenant: string;
  name: string;
  revoked: boolean;
  documents: number;
  users: number;
  preferences: number;
  tags: number;
  /** The key's stored hybrid model (written by training), if any. */
  hybridModel?: { version: string; bytes: number; savedAt: string; loaded: boolean };
  index: TenantIndexFigures;
}

export interface ClusterModelFigures {
  tenant: string;
  id: number;
  number_clusters: number;
  status: string;
  created_at: string;
  trained_at?: string;
  documents?: number;
}

export type JobFigures = Pick<JobRecord, 'id' | 'kind' | 'tenant' | 'status' | 'attempts' | 'created_at' | 'updated_at' | 'error'>;

export interface StoredFigures {
  /** When these were read from storage. */
  at: string;
  tenants: TenantFigures[];
  jobs: JobFigures[];
  clusterModels: ClusterModelFigures[];
}

/** A read of the stored figures is reused for at least this many times its own duration. */
const READ_TIME_FACTOR = 50;
/** Per-document bytes beyond the vector: id map entries and the slot bookkeeping (measured order of size). */
const ID_OVERHEAD_BYTES = 120;
/** Sparse TF-IDF terms kept per document for the rerank stage: ~60 terms of (u32 id, f32 weight). */
const RERANK_TERM_BYTES = 60 * 8 + 64;

export function indexFigures(indexes: TenantIndexes | undefined): TenantIndexFigures {
  if (!indexes) return { loaded: false, size: 0, memoryBytes: 0 };
  const { content } = indexes;
  const size = content.size;
  const kind = content.modelId === undefined ? undefined : content.modelKind;
  const dim = content.dimensions || WORD_VECTOR_DIM;
  const perDocument = dim * 4 + ID_OVERHEAD_BYTES + (content.reranks ? RERANK_TERM_BYTES : 0);
  return {
    loaded: true, kind, size, reranks: content.reranks, ...(content.dimensions ? { dimensions: content.dimensions } : {}),
    ...(content.model ? { shape: content.model.shape } : {}),
    ...(indexes.hybrid.modelVersion ? { hybridModel: indexes.hybrid.modelVersion } : {}),
    memoryBytes: size * perDocument,
  };
}

async function clusterModels(store: TenantStore): Promise<ClusterModelFigures[]> {
  return (await storedClusterModels(store)).map((m) => ({
    tenant: store.tenant, id: m.id, number_clusters: m.number_clusters, status: m.status, created_at: m.created_at,
    ...(m.trained_at ? { trained_at: m.trained_at } : {}), ...(m.documents !== undefined ? { documents: m.documents } : {}),
  }));
}

/** The manifest saveBlob (src/storage/blobs.ts) writes under the blob's name: version, size, time. */
async function storedHybridModel(store: TenantStore): Promise<TenantFigures['hybridModel']> {
  const manifest = await store.values('models').get(HYBRID_MODEL_BLOB);
  if (typeof manifest !== 'object' || manifest === null) return undefined;
  const { version, bytes, savedAt } = manifest as Record<string, unknown>;
  if (typeof version !== 'string') return undefined;
  return { version, bytes: typeof bytes === 'number' ? bytes : 0, savedAt: typeof savedAt === 'string' ? savedAt : '', loaded: false };
}

/**
 * Per-key figures from storage (counts, unfinished jobs, cluster models, hybrid model) plus the in-memory
 * index figures, read at most once per `ttlMs` (longer when reading is slow): polling the dashboard every
 * 2 s costs a handful of count queries per key every few seconds, not per poll. Concurrent readers share one read.
 */
export class TenantFiguresCache {
  private cached: { until: number; figures: StoredFigures } | undefined;
  private reading: Promise<StoredFigures> | undefined;

  constructor(
    private readonly storage: Storage,
    private readonly indexes: Indexes,
    private readonly ttlMs = 3000,
  ) {}

  async figures(): Promise<StoredFigures> {
    if (this.cached && this.cached.until > Date.now()) return this.withLiveIndexes(this.cached.figures);
    const started = Date.now();
    this.reading ??= this.read().then((figures) => {
      // Some counts scan (the embedded store counts pairs by walking their keys, ~90 ns each), so a slow
      // read is repeated less often: reading takes at most ~2% of the time while someone is watching.
      const took = Date.now() - started;
      this.cached = { until: Date.now() + Math.max(this.ttlMs, took * READ_TIME_FACTOR), figures };
      return figures;
    }).finally(() => {
      this.reading = undefined;
    });
    return this.withLiveIndexes(await this.reading);
  }

  /** Index figures are in memory, so they are always current. */
  private withLiveIndexes(figures: StoredFigures): StoredFigures {
    const loaded = new Map(this.indexes.list());
    return {
      ...figures,
      tenants: figures.tenants.map((t) => {
        const index = indexFigures(loaded.get(t.tenant));
        if (!t.hybridModel) return { ...t, index };
        const inMemory = index.hybridModel === t.hybridModel.version;
        return {
          ...t,
          hybridModel: { ...t.hybridModel, loaded: inMemory },
          index: inMemory ? { ...index, memoryBytes: index.memoryBytes + t.hybridModel.bytes } : index,
        };
      }),
    };
  }

  private async read(): Promise<StoredFigures> {
    const at = new Date().toISOString();
    const keys = await this.storage.keys.list();
    const byTenant = new Map<string, { name: string; revoked: boolean }>();
    for (const key of keys) {
      const seen = byTenant.get(key.tenant);
      // A tenant is live while any of its keys is.
      byTenant.set(key.tenant, { name: seen?.name || key.name, revoked: (seen?.revoked ?? true) && key.revoked_at !== null });
    }
    const tenants: TenantFigures[] = [];
    const jobs: JobFigures[] = [];
    const models: ClusterModelFigures[] = [];
    for (const [tenant, { name, revoked }] of byTenant) {
      const store = this.storage.tenant(tenant);
      const [documents, users, preferences, tags, jobValues, tenantModels, hybridModel] = await Promise.all([
        store.documents.count(), store.users.count(), store.preferences.count(), store.tags.count(),
        store.values(JOBS_NAMESPACE).list(), clusterModels(store), storedHybridModel(store),
      ]);
      tenants.push({
        tenant, name, revoked, documents, users, preferences, tags, ...(hybridModel ? { hybridModel } : {}),
        index: { loaded: false, size: 0, memoryBytes: 0 },
      });
      for (const { value } of jobValues) {
        if (!isJobRecord(value)) continue;
        const { id, kind, status, attempts, created_at, updated_at, error } = value;
        jobs.push({ id, kind, tenant, status, attempts, created_at, updated_at, ...(error ? { error } : {}) });
      }
      models.push(...tenantModels);
    }
    tenants.sort((a, b) => b.documents - a.documents || (a.tenant < b.tenant ? -1 : 1));
    return { at, tenants, jobs, clusterModels: models };
  }
}
