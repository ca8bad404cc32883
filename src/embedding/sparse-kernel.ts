import { loadNativeBuild } from '../native-build';

/** native/build/sparse.node: the second stage's gather, native (see `gather`). */
interface SparseKernel {
  gather(scratch: Float32Array, starts: Uint32Array, ends: Uint32Array, ids: Uint32Array, weights: Float32Array, out: Float32Array, divisor: number): void;
}

function isSparseKernel(value: unknown): value is SparseKernel {
  return typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>).gather === 'function';
}

let kernel: SparseKernel | undefined;

function sparseKernel(): SparseKernel {
  if (kernel === undefined) {
    const loaded = loadNativeBuild('sparse.node');
    if (!isSparseKernel(loaded)) throw new Error('native/build/sparse.node is missing: build it with `make native`');
    kernel = loaded;
  }
  return kernel;
}

/**
 * out[c] = (Σ scratch[ids[k]] · weights[k] over k in [starts[c], ends[c])) / divisor for every c < out.length; ids
 * past the scratch count as 0. Native because it is most of a recommendation's pool-thread time: 3.3× faster than
 * the same loop in JavaScript on 800 candidates of ~112 terms (docs/decisions/throughput.md), same scores to the bit.
 */
export function gather(scratch: Float32Array, starts: Uint32Array, ends: Uint32Array, ids: Uint32Array, weights: Float32Array, out: Float32Array, divisor: number): void {
  sparseKernel().gather(scratch, starts, ends, ids, weights, out, divisor);
}
