import { nativeKernel } from '../native-build';

/** native/build/dense.node: scores of listed vector rows (native/src/dense.c). */
interface DenseKernel {
  scoreRows(vectors: Float32Array, stride: number, rows: Int32Array, query: Float32Array, out: Float32Array): void;
}

const denseKernel = nativeKernel<DenseKernel>('dense.node', ['scoreRows']);

/**
 * out[i] = the inner product of `query` with row rows[i] of `vectors` (rows `stride` floats apart), for i <
 * out.length; the same to the bit as the WASM kernel's scan. Native because listed rows lie anywhere in the store and
 * C asks for the next ones while it sums (a second stage's dense feedback over 800 candidates, an approximate
 * shortlist's re-scoring).
 */
export function scoreRowsInto(vectors: Float32Array, stride: number, rows: Int32Array, query: Float32Array, out: Float32Array): void {
  denseKernel().scoreRows(vectors, stride, rows, query, out);
}
