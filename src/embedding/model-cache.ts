import type { EmbeddingModel } from './model';
import { deserializeModel, modelInfo, type SerializedModel } from './serialize';

/**
 * Per-thread cache of decoded models keyed by model id. A format-3 model decodes to views on its shared bytes
 * (a header parsed); a format-2 one builds its vocabulary, worth keeping.
 */
export class ModelCache {
  /** This thread's caches (one per task module that embeds). */
  private static readonly caches = new Set<ModelCache>();
  private readonly entries = new Map<string, EmbeddingModel>();

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
    const { id } = modelInfo(bytes);
    const hit = this.entries.get(id);
    if (hit) {
      this.entries.delete(id);
      this.entries.set(id, hit); // most recently used last
      return hit;
    }
    const model = deserializeModel(bytes);
    this.entries.set(id, model);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    return model;
  }
}
