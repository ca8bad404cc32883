import { invalidParameter, KindredError, notFound } from '../errors';
import { scopeRules, type IdScope } from './ids';
import type { Indexes } from '../index/indexes';
import type { TenantIndexes } from '../index/indexes';
import type { Logger } from '../log';
import type { WorkerPool } from '../pool';
import type { Page, Storage, TenantStore } from '../storage';
import type { AssignTask, TrainResult, TrainTask } from '../clustering/task';
import type { WeightedWord } from '../clustering/words';
import { DEFAULT_SEED } from '../clustering/kmeans';
import { JobRunner, type JobRecord } from '../jobs/runner';
import type { TenantContext } from './context';

export const CLUSTERS_NAMESPACE = 'clusters';
export const CLUSTER_TRAINING_JOB = 'cluster-training';
export const MIN_CLUSTERS = 2;
export const MAX_CLUSTERS = 1000;

export type ClusterModelStatus = 'training' | 'trained' | 'failed';

export interface ClusterModelRecord {
  id: number;
  number_clusters: number;
  created_at: string;
  status: ClusterModelStatus;
  /** Clusters actually formed: number_clusters, or fewer when the key held fewer documents. */
  clusters?: number;
  documents?: number;
  trained_at?: string;
}

/** What the API shows of a model. */
export interface ClusterModelView {
  id: number;
  number_clusters: number;
  created_at: string;
  status: ClusterModelStatus;
}

interface ClusterRecord {
  documents: string[];
  words: WeightedWord[];
  cloud: string;
}

interface ModelIndex {
  ids: number[];
}

const modelKey = (id: number) => `model:${id}`;
const clusterKey = (id: number, cluster: number) => `cluster:${id}:${cluster}`;
const INDEX_KEY = 'index';

function isModel(value: unknown): value is ClusterModelRecord {
  return typeof value === 'object' && value !== null && typeof (value as ClusterModelRecord).id === 'number'
    && typeof (value as ClusterModelRecord).status === 'string';
}

function isCluster(value: unknown): value is ClusterRecord {
  return typeof value === 'object' && value !== null && Array.isArray((value as ClusterRecord).documents);
}

/** Every cluster model of a key, in creation order (the dashboard's figures). */
export async function storedClusterModels(store: TenantStore): Promise<ClusterModelRecord[]> {
  const table = store.values(CLUSTERS_NAMESPACE);
  const index = (await table.get(INDEX_KEY)) as ModelIndex | undefined;
  return (await Promise.all((index?.ids ?? []).map((id) => table.get(modelKey(id))))).filter(isModel);
}

export const modelView = (m: ClusterModelRecord): ClusterModelView =>
  ({ id: m.id, number_clusters: m.number_clusters, created_at: m.created_at, status: m.status });

/** Document → cluster of one trained model: what training assigned, plus later documents assigned on read. */
interface Membership {
  createdAt: string;
  trained: Map<string, number>;
  later: Map<string, number>;
  /** Serialises assignment of later documents. */
  assigning: Promise<void>;
}

/**
 * Cluster models of a key (v2, v3): created in `training`, trained by a persisted job (k-means in the
 * `kmeans` worker), then read cluster by cluster. Models and clusters live in the key's `clusters` values,
 * jobs in its `jobs` values; both are wiped by delete-all-data.
 */
export class ClusterService {
  readonly jobs: JobRunner;
  private readonly memberships = new Map<string, Membership>();
  /** Per-tenant serialisation of the model index's read-modify-write. */
  private readonly indexLocks = new Map<string, Promise<unknown>>();

  constructor(
    storage: Storage,
    private readonly pool: WorkerPool,
    private readonly indexes: Indexes,
    private readonly logger: Logger,
  ) {
    this.jobs = new JobRunner(storage, logger);
    this.jobs.register(CLUSTER_TRAINING_JOB, (store, job) => this.train(store, job), (store, job) => this.trainingFailed(store, job));
  }

  /** Reruns the training jobs a previous process left unfinished. */
  resume(): Promise<number> {
    return this.jobs.resumeAll();
  }

  close(): void {
    this.jobs.close();
  }

  private withIndex<T>(tenant: string, work: () => Promise<T>): Promise<T> {
    const previous = this.indexLocks.get(tenant) ?? Promise.resolve();
    const next = previous.then(work, work);
    this.indexLocks.set(tenant, next.catch(() => undefined));
    return next;
  }

  private async updateIndex(store: TenantStore, change: (ids: number[]) => number[]): Promise<void> {
    await this.withIndex(store.tenant, async () => {
      const table = store.values(CLUSTERS_NAMESPACE);
      const current = (await table.get(INDEX_KEY)) as ModelIndex | undefined;
      await table.put(INDEX_KEY, { ids: change(current?.ids ?? []) });
    });
  }

  async create(ctx: TenantContext, numberClusters: number): Promise<ClusterModelView> {
    if (!Number.isInteger(numberClusters) || numberClusters < MIN_CLUSTERS || numberClusters > MAX_CLUSTERS) {
      throw invalidParameter('number_clusters');
    }
    const id = await ctx.store.nextSequence('cluster-models');
    const model: ClusterModelRecord = { id, number_clusters: numberClusters, created_at: new Date().toISOString(), status: 'training' };
    await ctx.store.values(CLUSTERS_NAMESPACE).put(modelKey(id), model);
    await this.updateIndex(ctx.store, (ids) => [...ids, id]);
    await this.jobs.submit(ctx.tenant, CLUSTER_TRAINING_JOB, { model: id, created_at: model.created_at });
    return modelView(model);
  }

  async list(ctx: TenantContext, page: Page): Promise<{ items: ClusterModelView[]; total: number }> {
    const index = (await ctx.store.values(CLUSTERS_NAMESPACE).get(INDEX_KEY)) as ModelIndex | undefined;
    const ids = index?.ids ?? [];
    const table = ctx.store.values(CLUSTERS_NAMESPACE);
    const records = await Promise.all(ids.slice(page.offset, page.offset + page.limit).map((id) => table.get(modelKey(id))));
    return { items: records.filter(isModel).map(modelView), total: ids.length };
  }

  private async model(store: TenantStore, id: number): Promise<ClusterModelRecord> {
    const model = await store.values(CLUSTERS_NAMESPACE).get(modelKey(id));
    if (!isModel(model)) throw notFound('DocumentClusterModel');
    return model;
  }

  async get(ctx: TenantContext, id: number): Promise<ClusterModelView> {
    return modelView(await this.model(ctx.store, id));
  }

  async delete(ctx: TenantContext, id: number): Promise<ClusterModelView> {
    const model = await this.model(ctx.store, id);
    const table = ctx.store.values(CLUSTERS_NAMESPACE);
    await table.remove(modelKey(id));
    await this.updateIndex(ctx.store, (ids) => ids.filter((x) => x !== id));
    for (let c = 0; c < (model.clusters ?? 0); c++) await table.remove(clusterKey(id, c));
    this.memberships.delete(`${ctx.tenant}:${id}`);
    return modelView(model);
  }

  private async trainedModel(store: TenantStore, id: number): Promise<ClusterModelRecord> {
    const model = await this.model(store, id);
    if (model.status === 'training') throw new KindredError('model_training', 'DocumentClusterModel is still training');
    if (model.status === 'failed') throw new KindredError('model_failed', 'DocumentClusterModel training failed');
    return model;
  }

  async clusters(ctx: TenantContext, id: number): Promise<number[]> {
    const model = await this.trainedModel(ctx.store, id);
    return Array.from({ length: model.clusters ?? 0 }, (_, c) => c);
  }

  private async cluster(store: TenantStore, id: number, cluster: number): Promise<{ model: ClusterModelRecord; record: ClusterRecord }> {
    const model = await this.trainedModel(store, id);
    if (cluster >= (model.clusters ?? 0)) throw new KindredError('cluster_not_found', "Couldn't find Cluster");
    const record = await store.values(CLUSTERS_NAMESPACE).get(clusterKey(id, cluster));
    // A model whose cluster records vanish under it was deleted meanwhile.
    if (!isCluster(record)) throw notFound('DocumentClusterModel');
    return { model, record };
  }

  async words(ctx: TenantContext, id: number, cluster: number): Promise<WeightedWord[]> {
    return (await this.cluster(ctx.store, id, cluster)).record.words;
  }

  async wordCloud(ctx: TenantContext, id: number, cluster: number): Promise<string> {
    return (await this.cluster(ctx.store, id, cluster)).record.cloud;
  }

  /** The cluster's documents: those training put there that still exist, then later documents nearest to it. */
  async documents(ctx: TenantContext, id: number, cluster: number, scope?: IdScope): Promise<string[]> {
    const shows = scopeRules(scope).shows;
    const { model } = await this.cluster(ctx.store, id, cluster);
    const membership = await this.membership(ctx.store, model);
    const indexes = ctx.indexes();
    const current = (await indexes.contentVectors()).ids;
    await this.assignLater(indexes, model, membership);
    const out: string[] = [];
    for (const docId of current) {
      if ((membership.trained.get(docId) ?? membership.later.get(docId)) === cluster && (!shows || shows(docId))) out.push(docId);
    }
    return out;
  }

  private async membership(store: TenantStore, model: ClusterModelRecord): Promise<Membership> {
    const key = `${store.tenant}:${model.id}`;
    const cached = this.memberships.get(key);
    if (cached && cached.createdAt === model.created_at) return cached;
    const trained = new Map<string, number>();
    const table = store.values(CLUSTERS_NAMESPACE);
    for (let c = 0; c < (model.clusters ?? 0); c++) {
      const record = await table.get(clusterKey(model.id, c));
      if (isCluster(record)) for (const docId of record.documents) trained.set(docId, c);
    }
    const membership: Membership = { createdAt: model.created_at, trained, later: new Map(), assigning: Promise.resolve() };
    this.memberships.set(key, membership);
    return membership;
  }

  /** Documents written after training go to the cluster whose members' mean vector is nearest (in a worker). */
  private assignLater(indexes: TenantIndexes, model: ClusterModelRecord, membership: Membership): Promise<void> {
    const run = async () => {
      const { ids, vectors, dim } = indexes.content.vectors();
      const unseen: number[] = [];
      const members: number[] = [];
      ids.forEach((docId, row) => {
        if (membership.trained.has(docId) || membership.later.has(docId)) members.push(row);
        else unseen.push(row);
      });
      if (unseen.length === 0 || members.length === 0) return;
      const rows = (list: number[]) => {
        const out = new Float32Array(list.length * dim);
        list.forEach((row, i) => out.set(vectors.subarray(row * dim, (row + 1) * dim), i * dim));
        return out;
      };
      const task: AssignTask = {
        op: 'assign', k: model.clusters ?? 0, dim,
        members: rows(members),
        memberClusters: Int32Array.from(members, (row) => membership.trained.get(ids[row]!) ?? membership.later.get(ids[row]!)!),
        unseen: rows(unseen),
      };
      const assigned = await this.pool.run<Int32Array>('kmeans', task, [task.members.buffer, task.unseen.buffer]);
      unseen.forEach((row, i) => membership.later.set(ids[row]!, assigned[i]!));
    };
    membership.assigning = membership.assigning.then(run, run);
    return membership.assigning;
  }

  /** The training job: k-means over the key's document embeddings, then the clusters are stored and the model marked trained. */
  private async train(store: TenantStore, job: JobRecord): Promise<void> {
    const id = Number(job.payload.model);
    const table = store.values(CLUSTERS_NAMESPACE);
    const stillThere = async () => {
      const current = await table.get(modelKey(id));
      return isModel(current) && current.created_at === job.payload.created_at ? current : undefined;
    };
    const model = await stillThere();
    if (!model || model.status === 'trained') return;
    const started = Date.now();
    const { ids, vectors, dim } = await this.indexes.hold(store.tenant, () => this.indexes.of(store.tenant).contentVectors());
    const texts: string[] = [];
    const keep: number[] = [];
    for (let i = 0; i < ids.length; i += 1000) {
      const docs = await store.documents.getMany(ids.slice(i, i + 1000));
      docs.forEach((doc, j) => {
        if (!doc) return;
        keep.push(i + j);
        texts.push(doc.text);
      });
    }
    const rows = new Float32Array(keep.length * dim);
    keep.forEach((row, i) => rows.set(vectors.subarray(row * dim, (row + 1) * dim), i * dim));
    const task: TrainTask = { op: 'train', vectors: rows, rows: keep.length, dim, k: model.number_clusters, seed: DEFAULT_SEED + id, texts };
    const result = await this.pool.run<TrainResult>('kmeans', task, [rows.buffer]);
    if (!(await stillThere())) return;
    const members: string[][] = Array.from({ length: result.k }, () => []);
    keep.forEach((row, i) => members[result.assignments[i]!]!.push(ids[row]!));
    for (let c = 0; c < result.k; c++) {
      const record: ClusterRecord = { documents: members[c]!, words: result.words[c]!, cloud: result.clouds[c]! };
      await table.put(clusterKey(id, c), record);
    }
    if (!(await stillThere())) {
      for (let c = 0; c < result.k; c++) await table.remove(clusterKey(id, c));
      return;
    }
    await table.put(modelKey(id), { ...model, status: 'trained', clusters: result.k, documents: keep.length, trained_at: new Date().toISOString() });
    this.logger.info({
      tenant: store.tenant, model: id, documents: keep.length, clusters: result.k, iterations: result.iterations, converged: result.converged, ms: Date.now() - started,
    }, 'cluster model trained');
  }

  private async trainingFailed(store: TenantStore, job: JobRecord): Promise<void> {
    const id = Number(job.payload.model);
    const table = store.values(CLUSTERS_NAMESPACE);
    const model = await table.get(modelKey(id));
    if (isModel(model) && model.created_at === job.payload.created_at) await table.put(modelKey(id), { ...model, status: 'failed' });
  }
}
