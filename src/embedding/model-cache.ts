import type { EmbeddingModel } from './model';
import { deserializeModel, identityBytes, modelInfo, type SerializedModel } from './serialize';

interface CachedModel {
  model: EmbeddingModel;
  identity: Buffer;
}

/**
 * Per-thread cache of decoded models keyed by model id. A format-3 model decodes to views on its shared bytes
 * (a header parsed); a format-2 one builds its vocabulary, worth keeping.
 */
export class ModelCache {
  /** This thread's caches (one per task module that embeds). */
  private static readonly caches = new Set<ModelCache>();
  /** By model id, least recently used first; with the bytes that identify each (`identityBytes`, copied). */
  private readonly entries = new Map<string, CachedModel>();

  constructor(private readonly capacity = 4) {
    ModelCache.caches.add(this);
  }

  /**
   * Empties this thread's caches: a replaced generation's model (its shared bytes, megabytes at a large key) is
   * freed once no thread holds it, and a cache holds it until four others came after. Decoding again is a header.
   */
  static clearAll(): void {
    for (const cache of ModelCache.caches) cache.entries.clear();
  }

  get(bytes: SerializedModel): EmbeddingModel {
    const identity = identityBytes(bytes);
    for (const [id, entry] of this.entries) {
      if (entry.identity.equals(identity)) return this.used(id, entry).model;
    }
    const { id } = modelInfo(bytes);
    const hit = this.entries.get(id);
    if (hit) return this.used(id, hit).model;
    const model = deserializeModel(bytes);
    this.entries.set(id, { model, identity: Buffer.from(identity) });
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    return model;
  }

  /** Marks an entry most recently used (last). */
  private used(id: string, entry: CachedModel): CachedModel {
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry;
  }
}
