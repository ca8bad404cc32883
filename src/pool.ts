import os from 'node:os';
import path from 'node:path';
import type { EventLoopUtilization } from 'node:perf_hooks';
import { Piscina } from 'piscina';
import { BusyError } from './errors';
import { TaskStats } from './runtime/task-stats';
import { TaskBatches, type BatchOutcome } from './runtime/task-batches';

/** Every kind of heavy work has one task module: `workers/<kind>.ts`, compiled to `dist/workers/<kind>.js`. */
export type TaskKind = string;

const WORKERS_DIR = path.join(__dirname, '..', 'workers');

export function taskFile(kind: TaskKind): string {
  return path.join(WORKERS_DIR, `${kind}.js`);
}

export interface PoolOptions {
  threads?: number;
  /** Tasks waiting beyond this are refused (back-pressure) rather than queued without bound. */
  maxQueue?: number;
}

/** The process-wide Piscina pool; tasks name their module by kind. */
export class WorkerPool {
  readonly piscina: Piscina;
  readonly threads: number;
  /** Tasks (or batched payloads of one kind) that may wait for a thread. */
  private readonly maxQueue: number;
  private readonly batches = new Map<TaskKind, TaskBatches>();
  /** Latency and count of tasks by kind, and busy thread time (the dashboard, /metrics). */
  readonly tasks: TaskStats;

  constructor(options: PoolOptions = {}) {
    this.threads = Math.max(1, options.threads ?? os.availableParallelism());
    this.maxQueue = options.maxQueue ?? this.threads * 256;
    this.tasks = new TaskStats(this.threads);
    this.piscina = new Piscina({
      minThreads: this.threads,
      maxThreads: this.threads,
      maxQueue: this.maxQueue,
      idleTimeout: 60_000,
      // Threads wait on their message port alone: with Atomics as well, every task was announced twice (the port
      // and Atomics.notify, each a wake-up) and the event loop paid for both (docs/decisions/throughput.md,
      // "Eleventh session").
      atomics: 'disabled',
    });
  }

  /** Runs a task; when the queue is full the caller gets a BusyError (HTTP: 503, retry), never an unbounded queue. */
  run<Result>(kind: TaskKind, payload: unknown, transferList?: Transferable[]): Promise<Result> {
    return this.timed(kind, () => this.dispatch<Result>(kind, payload, transferList));
  }

  /**
   * Runs a task of a kind whose module takes an array of payloads and answers a BatchOutcome for each: payloads that
   * arrive while the threads are busy go together (src/runtime/task-batches.ts). Timed per payload, as `run` times a task.
   */
  runBatched<Result>(kind: TaskKind, payload: unknown): Promise<Result> {
    const batches = this.batches.get(kind) ?? this.batchesFor(kind);
    return this.timed(kind, () => batches.run(payload) as Promise<Result>);
  }

  private batchesFor(kind: TaskKind): TaskBatches {
    const batches = new TaskBatches((payloads) => this.dispatch<Array<BatchOutcome<unknown>>>(kind, payloads), this.threads, this.maxQueue);
    this.batches.set(kind, batches);
    return batches;
  }

  private async timed<Result>(kind: TaskKind, work: () => Promise<Result>): Promise<Result> {
    const started = performance.now();
    this.tasks.started();
    let failed = true;
    try {
      const result = await work();
      failed = false;
      return result;
    } finally {
      this.tasks.finished(kind, (performance.now() - started) / 1000, failed);
    }
  }

  private async dispatch<Result>(kind: TaskKind, payload: unknown, transferList?: Transferable[]): Promise<Result> {
    try {
      return (await this.piscina.run(payload, { filename: taskFile(kind), transferList: transferList as never })) as Result;
    } catch (error) {
      if (error instanceof Error && error.message === 'Task queue is at limit') throw new BusyError();
      throw error;
    }
  }

  /**
   * A full collection in each thread, asked of all of them at once so that each idle thread takes one; the ids of
   * the threads reached. Refused (the queue is full) or failed: nothing to do, the threads are not idle.
   */
  async tidy(): Promise<number[]> {
    const reached = await Promise.all(Array.from({ length: this.threads }, () => this.run<number>('tidy', null).catch(() => undefined)));
    return reached.filter((thread): thread is number => thread !== undefined);
  }

  /** Each pool thread's event-loop utilisation, by position (the dashboard's busy shares). */
  threadUtilizations(): Array<(previous?: EventLoopUtilization) => EventLoopUtilization> {
    return this.piscina.threads.map((worker) => (previous?: EventLoopUtilization) => worker.performance.eventLoopUtilization(previous));
  }

  get queueSize(): number {
    return this.piscina.queueSize;
  }

  get utilization(): number {
    return this.piscina.utilization;
  }

  close(): Promise<void> {
    return this.piscina.destroy();
  }
}
