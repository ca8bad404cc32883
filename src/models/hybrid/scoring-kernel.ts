import { nativeKernel } from '../../native-build';

/** native/build/hybrid.node: the hybrid scorer's loops (native/src/hybrid.c). */
interface HybridKernel {
  dots(out: Float64Array, x: Float64Array, rows: Float32Array, dim: number, cand: Int32Array, count: number): void;
  addRows(out: Float64Array, matrix: Float32Array, width: number, seeds: Int32Array, cand: Int32Array, count: number): void;
}

const hybridKernel = nativeKernel<HybridKernel>('hybrid.node', ['dots', 'addRows']);

/**
 * out[q] = Σ_a x[a] · rows[cand[q] · dim + a] for q < count, each sum in double precision in the order of a, so the
 * same to the bit as a JavaScript loop. Native because the factor and content dot products were two fifths of a
 * hybrid recommendation's pool-thread time (docs/decisions/throughput.md).
 */
export function dotsInto(out: Float64Array, x: Float64Array, rows: Float32Array, dim: number, cand: Int32Array, count: number): void {
  hybridKernel().dots(out, x, rows, dim, cand, count);
}

/**
 * out[q] += matrix[s · width + cand[q]] for each seed s < width, in the seeds' order, for the q < count whose
 * cand[q] < width: the EASE rows of the seeds summed over the candidates (width × width weights), in double
 * precision as the JavaScript loop summed them (bench:hybrid-rank: 0.60–0.69× the scorer's time with the dot
 * products alone in C, 0.43–0.55× with these sums too).
 */
export function addRowsInto(out: Float64Array, matrix: Float32Array, width: number, seeds: Int32Array, cand: Int32Array, count: number): void {
  hybridKernel().addRows(out, matrix, width, seeds, cand, count);
}
