import { loadNativeBuild } from '../native-build';

export interface FaissSearchParams {
  nprobe?: number;
  efSearch?: number;
  /** Only these labels may be returned (IVF and flat indexes). */
  allow?: BigInt64Array;
}

export interface FaissSearchResult {
  /** nq × k scores (inner product for metric 'ip'); missing results are -3.4e38. */
  distances: Float32Array;
  /** nq × k labels; missing results are -1. */
  labels: BigInt64Array;
}

/** native/build/faiss_addon.node: one FAISS index; heavy calls run off the JS thread. */
export interface FaissIndex {
  readonly dim: number;
  readonly ntotal: number;
  readonly isTrained: boolean;
  train(vectors: Float32Array): Promise<void>;
  add(vectors: Float32Array, labels: BigInt64Array): Promise<void>;
  remove(labels: BigInt64Array): Promise<number>;
  search(queries: Float32Array, k: number, params?: FaissSearchParams): Promise<FaissSearchResult>;
  write(file: string): Promise<void>;
  /** This index's number in the process: any thread may search it with `searchShared` until `unshare`. */
  share(): number;
}

/** A key's float32 rows as the approximate index's probed lists are scored from (native/src/ivf_rows_scan.h). */
export interface StoreRows {
  /** The rows, `stride` floats each (zero past the dimensions). */
  vectors: Float32Array;
  stride: number;
  /** Each label's row + 1 (0: none). */
  labelRows: Int32Array;
}

export interface FaissAddon {
  FaissIndex: new (dim: number, description: string, metric: 'ip' | 'l2') => FaissIndex;
  readIndex(file: string): Promise<FaissIndex>;
  /** OpenMP threads for train/add/batched searches (default: all processors). */
  setThreads(n: number): void;
  unshare(handle: number): void;
  /**
   * One query on the calling thread (a pool thread), under the index's lock; null once unshared. With `rows`, an IVF
   * index's probed lists are scored exactly from them, not from its codes.
   */
  searchShared(handle: number, query: Float32Array, k: number, nprobe?: number, rows?: StoreRows): FaissSearchResult | null;
}

function isFaissAddon(value: unknown): value is FaissAddon {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.FaissIndex === 'function' && typeof v.readIndex === 'function' && typeof v.setThreads === 'function' && typeof v.searchShared === 'function';
}

let cached: FaissAddon | null | undefined;

/** The FAISS addon, or null when it was not built (`make -C native faiss`). */
export function loadFaissAddon(): FaissAddon | null {
  if (cached !== undefined) return cached;
  const loaded = loadNativeBuild('faiss_addon.node', process.env.KINDRED_FAISS_ADDON);
  cached = isFaissAddon(loaded) ? loaded : null;
  return cached;
}
