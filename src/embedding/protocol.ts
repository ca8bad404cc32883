import type { FitOptions } from './fit';
import type { SerializedModel } from './serialize';
import type { PackedSparse } from './sparse';
import type { SharedWordVectors } from './word-vectors';

/** Payload of the `embed` worker task. */
export interface EmbedTask {
  /** SharedArrayBuffer-backed bytes from `serializeModel` (shared, not copied) */
  readonly model: SerializedModel;
  readonly texts: readonly string[];
  /** also return TF-IDF terms for the second stage (`rerankCandidates`) */
  readonly withSparse?: boolean;
  /** binary word-vector cache file (needed only by the word-vector model) */
  readonly wordVectorCacheFile?: string;
  /** the table another thread loaded from that file, adopted instead of read */
  readonly wordVectors?: SharedWordVectors;
}

/** Result of the `embed` worker task; its buffers are transferred back, not copied. */
export interface EmbedTaskResult {
  readonly modelId: string;
  readonly dim: number;
  /** texts.length rows of `dim` floats, L2-normalised (zero rows for texts with no known term) */
  readonly vectors: Float32Array;
  readonly sparse?: PackedSparse;
  /** the table this thread read for the task (it came without one): for the next tasks to carry */
  readonly wordVectors?: SharedWordVectors;
}

/** Payload of the `embed-fit` worker task. */
export interface FitTask {
  readonly texts: readonly string[];
  readonly options?: FitOptions;
}
