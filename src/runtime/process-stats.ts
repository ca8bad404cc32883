import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** One reading per second of every named gauge; the last `keep` readings are kept for the plots. */
export interface SampleSeries {
  /** Epoch milliseconds of each reading, oldest first. */
  at: number[];
  values: Record<string, number[]>;
}

export type Gauges = Record<string, () => number>;

/**
 * Reads a set of gauges every `everyMs` into fixed-length series (the dashboard's plots), plus the
 * process's own: RSS, heap, and event-loop lag (p99 of the delays seen during each interval).
 */
export class ProcessSampler {
  private readonly at: number[] = [];
  private readonly values: Record<string, number[]> = {};
  private readonly timer: NodeJS.Timeout;
  private readonly delays: IntervalHistogram;
  private readonly gauges: Gauges;
  private lagP99Ms = 0;

  constructor(gauges: Gauges, private readonly keep = 120, everyMs = 1000) {
    this.delays = monitorEventLoopDelay({ resolution: 10 });
    this.delays.enable();
    this.gauges = {
      rssBytes: () => process.memoryUsage.rss(),
      heapUsedBytes: () => process.memoryUsage().heapUsed,
      eventLoopLagP99Ms: () => this.lagP99Ms,
      ...gauges,
    };
    for (const name of Object.keys(this.gauges)) this.values[name] = [];
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
    this.sample();
  }

  /** Takes one reading now (the timer calls this every interval). */
  sample(): void {
    // The histogram counts delays beyond the resolution: its p99 minus the resolution is the lag.
    this.lagP99Ms = this.delays.count > 0 ? Math.max(0, this.delays.percentile(99) / 1e6 - 10) : 0;
    this.delays.reset();
    this.at.push(Date.now());
    for (const [name, read] of Object.entries(this.gauges)) this.values[name]!.push(read());
    if (this.at.length > this.keep) {
      this.at.shift();
      for (const series of Object.values(this.values)) series.shift();
    }
  }

  series(): SampleSeries {
    return { at: [...this.at], values: Object.fromEntries(Object.entries(this.values).map(([k, v]) => [k, [...v]])) };
  }

  /** The latest reading of each gauge. */
  latest(): Record<string, number> {
    return Object.fromEntries(Object.entries(this.values).map(([k, v]) => [k, v[v.length - 1] ?? 0]));
  }

  close(): void {
    clearInterval(this.timer);
    this.delays.disable();
  }
}
