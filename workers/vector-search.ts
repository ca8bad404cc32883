import { KernelCache } from '../src/vector/kernel-cache';
import { scanShard, type VectorSearchTask } from '../src/vector/scan-task';

const kernels = new KernelCache();

/** One shard of an exact scan (src/vector/scan-task.ts). */
export default function vectorSearch(task: VectorSearchTask): number {
  return scanShard(task, kernels.of(task.store, task.memory));
}
