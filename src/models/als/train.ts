import { type Csr, shareCsr, transposeCsr } from './csr';
import { type AlsExecutor, InlineExecutor } from './executor';
import { rowRegularization } from './kernels';
import { alsWasmModule, WasmArena } from './wasm';
import { Rng } from '../../random';

export interface AlsParams {
  factors: number;
  iterations: number;
  /** Confidence of an observed pair is 1 + alpha * count. */
  alpha: number;
  /** lambda: L2 penalty on every factor row. */
  regularization: number;
  /** Frequency scaling of the penalty: a row with n interactions gets lambda * n^regExponent (0 = plain HKV). */
  regExponent: number;
  /** CG steps per row per half-iteration. */
  cgSteps: number;
  seed: number;
}

/** Chosen by measurement on MovieLens-100k (see bench/results/hybrid.md). */
export const DEFAULT_ALS_PARAMS: AlsParams = {
  factors: 64,
  iterations: 15,
  alpha: 2,
  regularization: 3,
  regExponent: 0.5,
  cgSteps: 3,
  seed: 42,
};

export interface AlsFactors {
  k: number;
  nUsers: number;
  nItems: number;
  /** nUsers x k, row-major (SharedArrayBuffer-backed after training). */
  userFactors: Float32Array;
  /** nItems x k, row-major. */
  itemFactors: Float32Array;
}

export interface IterationReport {
  iteration: number;
  /** Wall-clock seconds. */
  seconds: number;
  /** CPU seconds of the whole process (all threads) during the iteration: comparable on a busy machine. */
  cpuSeconds: number;
  /** Weighted squared loss + regularisation; only when `computeLoss` is set. */
  loss?: number;
}

export interface TrainOptions {
  executor?: AlsExecutor;
  /** 'auto' (default): the WASM SIMD solver when native/als/build/als.wasm exists and factors % 4 == 0, else JS. */
  kernel?: 'auto' | 'wasm' | 'js';
  computeLoss?: boolean;
  onIteration?: (report: IterationReport) => void;
}

/** Rows per Gram/loss chunk: fixed, so sums are added in the same order whatever the thread count (determinism). */
const REDUCE_CHUNK_ROWS = 4096;

function sharedFloat32(length: number): Float32Array {
  return new Float32Array(new SharedArrayBuffer(length * 4));
}

/** Splits rows into about `parts` contiguous ranges of similar cost (rows weigh k, entries weigh 2). */
export function balancedRanges(indptr: Int32Array, rows: number, parts: number, k: number): Array<[number, number]> {
  const total = indptr[rows] * 2 + rows * k;
  const per = total / Math.max(1, parts);
  const ranges: Array<[number, number]> = [];
  let start = 0;
  let acc = 0;
  for (let r = 0; r < rows; r++) {
    acc += (indptr[r + 1] - indptr[r]) * 2 + k;
    if (acc >= per && r + 1 < rows) {
      ranges.push([start, r + 1]);
      start = r + 1;
      acc = 0;
    }
  }
  if (start < rows) ranges.push([start, rows]);
  return ranges;
}

function fixedRanges(rows: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let s = 0; s < rows; s += REDUCE_CHUNK_ROWS) out.push([s, Math.min(rows, s + REDUCE_CHUNK_ROWS)]);
  return out;
}

/** F^T F summed over fixed-size chunks in a fixed order. */
export async function gramOf(ex: AlsExecutor, factors: Float32Array, rows: number, k: number): Promise<Float64Array> {
  const parts = await Promise.all(fixedRanges(rows).map(([start, end]) => ex.gram({ op: 'gram', factors, k, start, end })));
  const g = new Float64Array(k * k);
  for (const part of parts) for (let i = 0; i < g.length; i++) g[i] += part[i];
  return g;
}

interface Side {
  csr: Csr;
  conf: Float32Array;
  factors: Float32Array;
  ranges: Array<[number, number]>;
  wasm?: { memory: WebAssembly.Memory; lambdas: Float32Array; gram32: Float32Array; scratch: Float32Array[] };
}

async function solveSide(ex: AlsExecutor, side: Side, fixed: Float32Array, gram: Float64Array, k: number, p: AlsParams): Promise<void> {
  const w = side.wasm;
  if (w) w.gram32.set(gram);
  await Promise.all(
    side.ranges.map(([start, end], j) =>
      ex.solve({
        op: 'solve',
        target: side.factors,
        fixed,
        indptr: side.csr.indptr,
        indices: side.csr.indices,
        conf: side.conf,
        k,
        gram,
        regularization: p.regularization,
        regExponent: p.regExponent,
        start,
        end,
        cgSteps: p.cgSteps,
        wasm: w ? { memory: w.memory, lambdas: w.lambdas, gram32: w.gram32, scratch: w.scratch[j] } : undefined,
      }),
    ),
  );
}

/** Full objective: sum_ui c_ui (p_ui - x_u.y_i)^2 + sum_u lambda_u |x_u|^2 + sum_i lambda_i |y_i|^2. */
async function alsLoss(ex: AlsExecutor, users: Side, items: Side, k: number, p: AlsParams): Promise<number> {
  const itemFactors = items.factors;
  const rows = users.csr.rows;
  const itemGram = await gramOf(ex, itemFactors, users.csr.cols, k);
  const parts = await Promise.all(
    fixedRanges(rows).map(([start, end]) =>
      ex.loss({
        op: 'loss',
        target: users.factors,
        fixed: itemFactors,
        indptr: users.csr.indptr,
        indices: users.csr.indices,
        conf: users.conf,
        k,
        gram: itemGram,
        regularization: p.regularization,
        regExponent: p.regExponent,
        start,
        end,
      }),
    ),
  );
  let total = 0;
  for (const part of parts) total += part.data + part.penalty;
  const ip = items.csr.indptr;
  for (let i = 0; i < items.csr.rows; i++) {
    let sq = 0;
    for (let a = 0; a < k; a++) sq += itemFactors[i * k + a] * itemFactors[i * k + a];
    total += rowRegularization(p.regularization, p.regExponent, ip[i + 1] - ip[i]) * sq;
  }
  return total;
}

function confidences(csr: Csr, alpha: number): Float32Array {
  const out = sharedFloat32(csr.data.length);
  for (let e = 0; e < out.length; e++) out[e] = alpha * csr.data[e];
  return out;
}

export function validateParams(p: AlsParams): void {
  if (!Number.isInteger(p.factors) || p.factors < 1 || p.factors > 1024) throw new RangeError('factors must be an integer in 1..1024');
  if (!Number.isInteger(p.iterations) || p.iterations < 0) throw new RangeError('iterations must be a non-negative integer');
  if (!(p.alpha >= 0)) throw new RangeError('alpha must be >= 0');
  if (!(p.regularization > 0)) throw new RangeError('regularization must be > 0');
  if (!(p.regExponent >= 0 && p.regExponent <= 2)) throw new RangeError('regExponent must be in 0..2');
  if (!Number.isInteger(p.cgSteps) || p.cgSteps < 1) throw new RangeError('cgSteps must be a positive integer');
}

/**
 * Trains implicit ALS on a user x item matrix of interaction counts. Deterministic for a given seed, whatever the
 * executor: every row update depends only on the other side's factors and its own previous value.
 */
export async function trainAls(userItems: Csr, params: AlsParams, options: TrainOptions = {}): Promise<AlsFactors> {
  validateParams(params);
  const ex = options.executor ?? new InlineExecutor();
  const k = params.factors;
  const kernel = options.kernel ?? 'auto';
  const useWasm = kernel === 'wasm' || (kernel === 'auto' && k % 4 === 0 && alsWasmModule() !== null);
  if (useWasm && k % 4 !== 0) throw new RangeError('the WASM kernel needs factors divisible by 4');
  const parts = ex.parallelism * 4;
  const sides = useWasm ? wasmSides(userItems, params, parts) : jsSides(userItems, params, parts);
  const [users, items] = sides;
  const userFactors = users.factors;
  const itemFactors = items.factors;
  const userCsr = users.csr;
  const itemCsr = items.csr;
  const rng = new Rng(params.seed);
  for (let i = 0; i < userFactors.length; i++) userFactors[i] = rng.next() * 0.01;
  for (let i = 0; i < itemFactors.length; i++) itemFactors[i] = rng.next() * 0.01;
  for (let it = 0; it < params.iterations; it++) {
    const t0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    const itemGram = await gramOf(ex, itemFactors, itemCsr.rows, k);
    await solveSide(ex, users, itemFactors, itemGram, k, params);
    const userGram = await gramOf(ex, userFactors, userCsr.rows, k);
    await solveSide(ex, items, userFactors, userGram, k, params);
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpu = process.cpuUsage(c0);
    const report: IterationReport = { iteration: it + 1, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
    if (options.computeLoss) report.loss = await alsLoss(ex, users, items, k, params);
    options.onIteration?.(report);
  }
  // copy out of the training arena so the CSR copies and scratch can be freed
  const outUsers = sharedFloat32(userFactors.length);
  outUsers.set(userFactors);
  const outItems = sharedFloat32(itemFactors.length);
  outItems.set(itemFactors);
  return { k, nUsers: userCsr.rows, nItems: itemCsr.rows, userFactors: outUsers, itemFactors: outItems };
}

function lambdasOf(csr: Csr, p: AlsParams, out: Float32Array): Float32Array {
  for (let r = 0; r < csr.rows; r++) out[r] = rowRegularization(p.regularization, p.regExponent, csr.indptr[r + 1] - csr.indptr[r]);
  return out;
}

function jsSides(userItems: Csr, params: AlsParams, parts: number): [Side, Side] {
  const k = params.factors;
  const userCsr = shareCsr(userItems);
  const itemCsr = transposeCsr(userCsr, true);
  const side = (csr: Csr): Side => ({
    csr,
    conf: confidences(csr, params.alpha),
    factors: sharedFloat32(csr.rows * k),
    ranges: balancedRanges(csr.indptr, csr.rows, parts, k),
  });
  return [side(userCsr), side(itemCsr)];
}

/** Every array the solver touches, in one shared wasm memory. */
function wasmSides(userItems: Csr, params: AlsParams, parts: number): [Side, Side] {
  const k = params.factors;
  const itemItems = transposeCsr(userItems);
  const nnz = userItems.indptr[userItems.rows];
  let bytes = WasmArena.size(k * k);
  for (const csr of [userItems, itemItems]) {
    bytes += WasmArena.size(csr.rows + 1) + 2 * WasmArena.size(nnz) + WasmArena.size(csr.rows) + WasmArena.size(csr.rows * k);
    bytes += (parts + 2) * WasmArena.size(4 * k);
  }
  const arena = new WasmArena(bytes);
  const gram32 = arena.f32(k * k);
  const side = (src: Csr): Side => {
    const indptr = arena.i32(src.rows + 1);
    indptr.set(src.indptr);
    const indices = arena.i32(nnz);
    indices.set(src.indices);
    const conf = arena.f32(nnz);
    for (let e = 0; e < nnz; e++) conf[e] = params.alpha * src.data[e];
    const csr: Csr = { rows: src.rows, cols: src.cols, indptr, indices, data: src.data };
    const ranges = balancedRanges(indptr, src.rows, parts, k);
    return {
      csr,
      conf,
      factors: arena.f32(src.rows * k),
      ranges,
      wasm: { memory: arena.memory, lambdas: lambdasOf(csr, params, arena.f32(src.rows)), gram32, scratch: ranges.map(() => arena.f32(4 * k)) },
    };
  };
  return [side(userItems), side(itemItems)];
}

