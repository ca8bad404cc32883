import type { EmbeddingModel } from './model';
import { deserializeModel, modelInfo, type SerializedModel } from './serialize';

/**
 * Per-thread cache of decoded models keyed by model id. A format-3 model decodes to views on its shared bytes
 * (a header parsed); a format-2 one builds its vocabulary, worth keeping.
 */
export class ModelCache {
  private readonly entries = new Map<string, EmbeddingModel>();

  constructor(private readonly capacity = 4) {}

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
