/** Payload of the `content-map` worker task (workers/content-map.ts). */
export interface ContentMapTask {
  /** Content vectors of the key's documents: rows of `dim`, in the order of `ids`. */
  vectors: Float32Array;
  ids: string[];
  dim: number;
  /** The model's documents, in the order of its factor rows. */
  itemIds: string[];
  itemFactors: Float32Array;
  k: number;
  ridge: number;
}
