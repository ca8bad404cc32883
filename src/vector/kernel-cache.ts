import { CLOSED_FLAG_OFFSET, instantiateKernel, type KernelExports } from './kernel';

const MAX_CACHED = 64;

interface Cached {
  kernel: KernelExports;
  closedFlag: Int32Array;
}

/**
 * A pool thread's kernel instances, one per vector store it has searched (by the store's process-unique number),
 * least recently used dropped first; an instance of a closed store is dropped at the next lookup, so its memory
 * can be freed.
 */
export class KernelCache {
  private readonly instances = new Map<number, Cached>();

  of(store: number, memory: WebAssembly.Memory): KernelExports {
    this.evictClosed();
    let cached = this.instances.get(store);
    if (cached) {
      this.instances.delete(store);
    } else {
      cached = { kernel: instantiateKernel(memory), closedFlag: new Int32Array(memory.buffer, CLOSED_FLAG_OFFSET, 1) };
      if (this.instances.size >= MAX_CACHED) {
        const oldest = this.instances.keys().next().value;
        if (oldest !== undefined) this.instances.delete(oldest);
      }
    }
    this.instances.set(store, cached);
    return cached.kernel;
  }

  private evictClosed(): void {
    for (const [store, cached] of this.instances) if (Atomics.load(cached.closedFlag, 0) !== 0) this.instances.delete(store);
  }
}
