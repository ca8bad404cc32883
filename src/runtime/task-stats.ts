import { RollingWindow } from './rolling-window';

export interface TaskKindFigures {
  kind: string;
  /** Since the process started. */
  total: number;
  failed: number;
  /** Over the last window. */
  count: number;
  rate: number;
  p50: number;
  p99: number;
}

/** Told of every finished task: its kind, seconds from submission to result, whether it failed. */
export type TaskListener = (kind: string, seconds: number, failed: boolean) => void;

/**
 * Timing of worker-pool tasks by kind (WorkerPool.run reports each one): totals since start, a rolling
 * window of latencies (queue wait included: that is what a caller waits), and busy thread-seconds.
 */
export class TaskStats {
  readonly window: RollingWindow;
  private readonly totals = new Map<string, { total: number; failed: number }>();
  private readonly listeners: TaskListener[] = [];
  private running = 0;
  private busy = 0;
  private changedAt: number;

  constructor(
    private readonly threads: number,
    windowSeconds = 60,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.window = new RollingWindow(windowSeconds);
    this.changedAt = this.clock();
  }

  /** Tasks submitted and not yet finished (running or queued). */
  get inFlight(): number {
    return this.running;
  }

  /** Thread-seconds spent on tasks since start: the integral of min(tasks in flight, threads) over time. */
  busySeconds(): number {
    return this.busy + (Math.min(this.running, this.threads) * (this.clock() - this.changedAt)) / 1000;
  }

  private advance(delta: number): void {
    const at = this.clock();
    this.busy += (Math.min(this.running, this.threads) * (at - this.changedAt)) / 1000;
    this.changedAt = at;
    this.running += delta;
  }

  started(): void {
    this.advance(1);
  }

  finished(kind: string, seconds: number, failed: boolean): void {
    this.advance(-1);
    let totals = this.totals.get(kind);
    if (!totals) {
      totals = { total: 0, failed: 0 };
      this.totals.set(kind, totals);
    }
    totals.total++;
    if (failed) totals.failed++;
    this.window.record(kind, seconds, failed);
    for (const listener of this.listeners) listener(kind, seconds, failed);
  }

  onFinished(listener: TaskListener): void {
    this.listeners.push(listener);
  }

  /** Every kind run since start, busiest first. */
  kinds(): TaskKindFigures[] {
    const inWindow = new Map(this.window.summaries().map((s) => [s.key, s]));
    return [...this.totals].map(([kind, totals]) => {
      const w = inWindow.get(kind);
      return { kind, total: totals.total, failed: totals.failed, count: w?.count ?? 0, rate: w?.rate ?? 0, p50: w?.p50 ?? 0, p99: w?.p99 ?? 0 };
    }).sort((a, b) => b.count - a.count || b.total - a.total || (a.kind < b.kind ? -1 : 1));
  }
}
