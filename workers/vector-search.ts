import { CLOSED_FLAG_OFFSET, instantiateKernel, KernelExports } from '../src/index/vector/kernel';

/** One shard of an exact scan: rows [begin, end) of a SharedVectorStore's memory. */
export type VectorSearchTask = SingleScanTask | BatchScanTask;

interface ScanBase {
  /** Process-unique number of the store; the kernel instance over its memory is cached under it. */
  store: number;
  memory: WebAssembly.Memory;
  base: number;
  stride: number;
  begin: number;
  end: number;
  alive: number;
}

/** Several queries at once (no per-query mask): see kv_topk_multi. */
export interface BatchScanTask extends ScanBase {
  kind: 'batch';
  desc: number;
  nq: number;
  sizes: number;
}

/** One query, optionally restricted by a row bitmap: see kv_topk. */
export interface SingleScanTask extends ScanBase {
  kind: 'single';
  query: number;
  /** Byte offset of a row bitmap, or 0 for none. */
  allow: number;
  k: number;
  outScores: number;
  outRows: number;
}

const MAX_CACHED = 64;
interface Cached {
  kernel: KernelExports;
  closedFlag: Int32Array;
}
const instances = new Map<number, Cached>();

/** Drops instances of closed indexes so their memory can be freed. */
function evictClosed(): void {
  for (const [store, cached] of instances) if (Atomics.load(cached.closedFlag, 0) !== 0) instances.delete(store);
}

function kernelFor(task: VectorSearchTask): KernelExports {
  evictClosed();
  let cached = instances.get(task.store);
  if (cached) {
    // refresh LRU position
    instances.delete(task.store);
  } else {
    cached = {
      kernel: instantiateKernel(task.memory),
      closedFlag: new Int32Array(task.memory.buffer, CLOSED_FLAG_OFFSET, 1),
    };
    if (instances.size >= MAX_CACHED) {
      const oldest = instances.keys().next().value;
      if (oldest !== undefined) instances.delete(oldest);
    }
  }
  instances.set(task.store, cached);
  return cached.kernel;
}

/**
 * Scans the shard and writes up to k (score, row) pairs per query to the task's output;
 * returns how many (a batch writes its counts to `sizes` and returns 0).
 */
export default function vectorSearch(task: VectorSearchTask): number {
  const kernel = kernelFor(task);
  if (task.kind === 'batch') {
    kernel.kv_topk_multi(task.base, task.stride, task.begin, task.end, task.desc, task.nq, task.alive, task.sizes);
    return 0;
  }
  return kernel.kv_topk(
    task.base, task.stride, task.begin, task.end, task.query,
    task.alive, task.allow, task.k, task.outScores, task.outRows,
  );
}
