import { nativeKernel } from '../native-build';

/** native/build/sparse.node: the second stage's gather, native (see `gather`). */
interface SparseKernel {
  gather(scratch: Float32Array, starts: Uint32Array, ends: Uint32Array, ids: Uint16Array | Uint32Array, weights: Float32Array, out: Float32Array, divisor: number): void;
}

const sparseKernel = nativeKernel<SparseKernel>('sparse.node', ['gather']);

/**
 * out[c] = (Σ scratch[ids[k]] · weights[k] over k in [starts[c], ends[c])) / divisor for every c < out.length; ids
 * past the scratch count as 0. Native because it is most of a recommendation's pool-thread time: the second stage
 * takes 0.50× the time it took with this loop in JavaScript, four running sums a candidate 0.82–0.94× that, and
 * asking for every line of a span ahead 0.80–0.85× that again, with the same float32 scores (npm run
 * bench:second-stage-cpu).
 */
export function gather(scratch: Float32Array, starts: Uint32Array, ends: Uint32Array, ids: Uint16Array | Uint32Array, weights: Float32Array, out: Float32Array, divisor: number): void {
  sparseKernel().gather(scratch, starts, ends, ids, weights, out, divisor);
}
