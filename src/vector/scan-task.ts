import type { KernelExports } from './kernel';

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
  /** Pairs the outputs hold (room beyond k makes the scan cheaper: see kv_topk). */
  cap: number;
  outScores: number;
  outRows: number;
}

/**
 * Scans the shard and writes up to k (score, row) pairs per query to the task's output;
 * returns how many (a batch writes its counts to `sizes` and returns 0).
 */
export function scanShard(task: VectorSearchTask, kernel: KernelExports): number {
  if (task.kind === 'batch') {
    kernel.kv_topk_multi(task.base, task.stride, task.begin, task.end, task.desc, task.nq, task.alive, task.sizes);
    return 0;
  }
  return kernel.kv_topk(
    task.base, task.stride, task.begin, task.end, task.query,
    task.alive, task.allow, task.k, task.cap, task.outScores, task.outRows,
  );
}
