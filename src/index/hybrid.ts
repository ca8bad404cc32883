import type { Logger } from '../log';
import type { WorkerPool } from '../pool';
import type { TenantStore } from '../storage';
import { blobVersion, loadBlob } from '../storage/blobs';
import { HybridRecommender } from '../models/hybrid/recommender';
import { deserialiseModel } from '../models/hybrid/serialise';
import type { HybridModel } from '../models/hybrid/model';
import type { ContentMap } from '../models/hybrid/content-map';
import type { ContentMapTask } from '../models/hybrid/protocol';
import type { TenantContent } from './content';

export const HYBRID_MODEL_BLOB = 'hybrid';
/** How often a request may look for a newly trained model (the CLI's model is served within 10 s). */
const MODEL_CHECK_MS = 3_000;
/** How often live preference counts and new documents' content are folded in. */
const REFRESH_MS = 10_000;
/** Above this many documents content vectors are not copied into the hybrid recommender (memory). */
const MAX_CONTENT_ITEMS = 200_000;

/**
 * One key's hybrid recommender: the latest trained model from storage (or none: content and
 * popularity only), with the content index's vectors and live preference counts attached.
 * A new model or refresh builds a new recommender and swaps the reference.
 */
export class TenantHybrid {
  private current: HybridRecommender | undefined;
  private model: HybridModel | null = null;
  /** The content model the cold-start map was fitted for. */
  private mappedFor: string | undefined;
  private version: string | undefined;
  private checkedAt = 0;
  private refreshedAt = 0;
  private loading: Promise<HybridRecommender> | undefined;

  constructor(
    private readonly store: TenantStore,
    private readonly pool: WorkerPool,
    private readonly content: TenantContent,
    private readonly logger: Logger,
  ) {}

  get modelVersion(): string | undefined {
    return this.version;
  }

  async recommender(): Promise<HybridRecommender> {
    const at = Date.now();
    if (this.current && at - this.checkedAt < MODEL_CHECK_MS && at - this.refreshedAt < REFRESH_MS) return this.current;
    this.loading ??= this.reload().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async reload(): Promise<HybridRecommender> {
    const models = this.store.values('models');
    const version = await blobVersion(models, HYBRID_MODEL_BLOB);
    this.checkedAt = Date.now();
    if (this.current && version === this.version && Date.now() - this.refreshedAt < REFRESH_MS) return this.current;
    if (version !== this.version) {
      const blob = version === undefined ? undefined : await loadBlob(models, HYBRID_MODEL_BLOB);
      // A newer save replaced that version while it was read: keep serving the current model; the next check loads the newer one.
      if (version !== undefined && !blob && this.current) return this.current;
      this.model = blob ? this.readModel(blob.data, blob.version) : null;
    }
    await this.content.ready;
    const content = this.content.size <= MAX_CONTENT_ITEMS ? this.content.vectors() : undefined;
    if (this.model && content && this.mappedFor !== `${version}/${this.content.modelId}`) {
      // The map is fitted here rather than at training: the content model is the server's, and it may have been refitted since.
      const task: ContentMapTask = {
        vectors: content.vectors, ids: content.ids, dim: content.dim, itemIds: this.model.itemIds,
        itemFactors: this.model.itemFactors, k: this.model.k, ridge: this.model.params.contentRidge,
      };
      this.model.contentMap = await this.pool.run<ContentMap | null>('content-map', task);
      this.mappedFor = `${version}/${this.content.modelId}`;
    }
    const recommender = new HybridRecommender(this.model, { runner: this.pool });
    if (content) recommender.attachContent(content);
    recommender.setPopularity(await this.preferenceCounts());
    if (version !== this.version) this.logger.info({ tenant: this.store.tenant, version: version ?? null }, 'hybrid model loaded');
    this.current = recommender;
    this.version = version;
    this.refreshedAt = Date.now();
    return recommender;
  }

  /** A stored model this build cannot read is logged and not served (popularity answers instead), never a 500. */
  private readModel(data: Buffer, version: string): HybridModel | null {
    try {
      return deserialiseModel(data);
    } catch (error) {
      this.logger.error({ err: error, tenant: this.store.tenant, version }, 'stored hybrid model cannot be read; serving without it');
      return null;
    }
  }

  private async preferenceCounts(): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for await (const batch of this.store.preferences.scan(5000)) {
      for (const p of batch) counts.set(p.document_id, (counts.get(p.document_id) ?? 0) + 1);
    }
    return counts;
  }

  /** Forget everything (delete-all-data): the next request reloads from storage. */
  reset(): void {
    this.current = undefined;
    this.version = undefined;
    this.model = null;
    this.mappedFor = undefined;
  }
}
