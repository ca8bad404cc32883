import { gramRange, lossRange, solveRange, type LossPartial, type SolveRangeArgs } from './kernels';
import { instantiateAls } from './wasm';

/** Task payloads of the `als` worker module (workers/als.ts). Typed arrays are SharedArrayBuffer-backed. */
export interface GramTask {
  op: 'gram';
  factors: Float32Array;
  k: number;
  start: number;
  end: number;
}

export interface SolveTask extends SolveRangeArgs {
  op: 'solve';
  /** When set, the arrays above are views on this memory and the SIMD kernel runs (f32 gram, per-row lambdas). */
  wasm?: {
    memory: WebAssembly.Memory;
    lambdas: Float32Array;
    gram32: Float32Array;
    scratch: Float32Array;
  };
}

function solveTask(task: SolveTask): number {
  const w = task.wasm;
  if (w) {
    instantiateAls(w.memory).als_solve(
      task.target.byteOffset,
      task.fixed.byteOffset,
      task.indptr.byteOffset,
      task.indices.byteOffset,
      task.conf.byteOffset,
      w.lambdas.byteOffset,
      task.k,
      w.gram32.byteOffset,
      task.start,
      task.end,
      task.cgSteps,
      w.scratch.byteOffset,
    );
  } else {
    solveRange(task);
  }
  return task.end - task.start;
}

export interface LossTask {
  op: 'loss';
  target: Float32Array;
  fixed: Float32Array;
  indptr: Int32Array;
  indices: Int32Array;
  conf: Float32Array;
  k: number;
  gram: Float64Array;
  regularization: number;
  regExponent: number;
  start: number;
  end: number;
}

export type AlsTrainTask = GramTask | SolveTask | LossTask;

/** Runs one task in the current thread. */
export function runAlsTrainTask(task: AlsTrainTask): Float64Array | LossPartial | number {
  switch (task.op) {
    case 'gram':
      return gramRange(task.factors, task.k, task.start, task.end);
    case 'solve':
      return solveTask(task);
    case 'loss':
      return lossRange(task.target, task.fixed, task.indptr, task.indices, task.conf, task.k, task.gram, task.regularization, task.regExponent, task.start, task.end);
  }
}

/** The subset of WorkerPool (src/pool.ts) that training needs. */
export interface TaskRunner {
  readonly threads: number;
  run<Result>(kind: string, payload: unknown): Promise<Result>;
}

/** Where the kernels run: in the calling thread, or spread over a worker pool. */
export interface AlsExecutor {
  readonly parallelism: number;
  gram(task: GramTask): Promise<Float64Array>;
  solve(task: SolveTask): Promise<number>;
  loss(task: LossTask): Promise<LossPartial>;
}

export class InlineExecutor implements AlsExecutor {
  readonly parallelism = 1;
  async gram(task: GramTask): Promise<Float64Array> {
    return gramRange(task.factors, task.k, task.start, task.end);
  }
  async solve(task: SolveTask): Promise<number> {
    return solveTask(task);
  }
  async loss(task: LossTask): Promise<LossPartial> {
    return lossRange(task.target, task.fixed, task.indptr, task.indices, task.conf, task.k, task.gram, task.regularization, task.regExponent, task.start, task.end);
  }
}

/** Sends each chunk to the `als` worker module; all big arrays must be SharedArrayBuffer-backed (no copies). */
export class PoolExecutor implements AlsExecutor {
  constructor(private readonly runner: TaskRunner, private readonly kind = 'als') {}
  get parallelism(): number {
    return this.runner.threads;
  }
  gram(task: GramTask): Promise<Float64Array> {
    return this.runner.run<Float64Array>(this.kind, task);
  }
  solve(task: SolveTask): Promise<number> {
    return this.runner.run<number>(this.kind, task);
  }
  loss(task: LossTask): Promise<LossPartial> {
    return this.runner.run<LossPartial>(this.kind, task);
  }
}
