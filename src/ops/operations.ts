import type { Indexes } from '../index/indexes';
import type { WorkerPool } from '../pool';
import type { Storage } from '../storage';
import { ProcessSampler, type SampleSeries } from '../runtime/process-stats';
import type { EndpointFigures, RequestStats } from '../runtime/request-stats';
import type { ScheduleBoard, ScheduleView } from '../runtime/schedules';
import type { TaskKindFigures } from '../runtime/task-stats';
import { MAIN_THREAD, ThreadBusy } from '../runtime/thread-busy';
import { TenantFiguresCache, type ClusterModelFigures, type JobFigures, type TenantFigures } from './tenant-figures';

/** Everything GET /dashboard/data.json answers. Durations are milliseconds, sizes bytes. */
export type { IndexingProgress } from '../index/indexes';

export interface DashboardData {
  at: string;
  process: {
    pid: number;
    node: string;
    uptimeSeconds: number;
    rssBytes: number;
    heapUsedBytes: number;
    heapTotalBytes: number;
    externalBytes: number;
    eventLoopLagP99Ms: number;
  };
  pool: {
    threads: number;
    /** Share of thread time busy over the last 10 s (0..1). */
    utilisation: number;
    queue: number;
    inFlight: number;
    tasks: Array<Omit<TaskKindFigures, 'p50' | 'p99'> & { p50Ms: number; p99Ms: number }>;
  };
  /** Each thread's busy share over the last 10 s (0..1): main, every pool thread, the keyword thread. */
  threads: Array<{ name: string; busy: number }>;
  requests: {
    windowSeconds: number;
    total: number;
    rate: number;
    p50Ms: number;
    p99Ms: number;
    endpoints: Array<Omit<EndpointFigures, 'p50' | 'p99'> & { p50Ms: number; p99Ms: number }>;
  };
  keys: { at: string; tenants: TenantFigures[] };
  jobs: { schedules: ScheduleView[]; records: JobFigures[]; clusterModels: ClusterModelFigures[] };
  /** One point per second, oldest first: process and pool readings, and API calls per second with their p99. */
  series: SampleSeries & { requests: { seconds: number[]; counts: number[]; p99Ms: number[] } };
}

export interface OperationsDeps {
  pool: WorkerPool;
  storage: Storage;
  indexes: Indexes;
  requests: RequestStats;
  schedules: ScheduleBoard;
}

export interface JobStateCount {
  kind: string;
  state: string;
  count: number;
}

const UTILISATION_SECONDS = 10;
/** Series names of the threads' busy shares: this prefix and the thread's name. */
const THREAD_GAUGE = 'threadBusy:';
const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);
const ms = (seconds: number) => Math.round(seconds * 1e6) / 1e3;

/** The operator's view of one process: what the dashboard shows and the job gauges of /metrics. */
export class Operations {
  private readonly sampler: ProcessSampler;
  private readonly stored: TenantFiguresCache;
  private lastBusy: { at: number; busy: number } | undefined;
  private readonly threadBusy: ThreadBusy;

  constructor(private readonly deps: OperationsDeps) {
    this.stored = new TenantFiguresCache(deps.storage, deps.indexes);
    const { pool } = deps;
    this.threadBusy = new ThreadBusy(() => [
      MAIN_THREAD,
      ...pool.threadUtilizations().map((utilization, i) => ({ name: `pool ${i + 1}`, utilization })),
      deps.indexes.keywordThread,
    ]);
    const threadGauges = Object.fromEntries(this.threadBusy.names().map((name) => [`${THREAD_GAUGE}${name}`, () => this.threadBusy.share(name)]));
    this.sampler = new ProcessSampler({
      poolUtilisation: () => this.utilisationSinceLastReading(),
      poolQueue: () => pool.queueSize,
      poolInFlight: () => pool.tasks.inFlight,
      ...threadGauges,
    });
  }

  /** Each thread's busy share, averaged over the last UTILISATION_SECONDS readings. */
  threads(): Array<{ name: string; busy: number }> {
    const { values } = this.sampler.series();
    return Object.keys(values).filter((key) => key.startsWith(THREAD_GAUGE)).map((key) => ({
      name: key.slice(THREAD_GAUGE.length), busy: mean(values[key]!.slice(-UTILISATION_SECONDS)),
    }));
  }

  /** Share of the pool's thread time spent on tasks since the previous reading (the sampler reads it each second). */
  private utilisationSinceLastReading(): number {
    const at = performance.now();
    const busy = this.deps.pool.tasks.busySeconds();
    const previous = this.lastBusy;
    this.lastBusy = { at, busy };
    if (!previous || at <= previous.at) return 0;
    return Math.min(1, (busy - previous.busy) / (((at - previous.at) / 1000) * this.deps.pool.threads));
  }

  async data(): Promise<DashboardData> {
    const { pool, requests, schedules } = this.deps;
    const stored = await this.stored.figures();
    const memory = process.memoryUsage();
    const latest = this.sampler.latest();
    const total = requests.window.total();
    const requestSeries = requests.series();
    return {
      at: new Date().toISOString(),
      process: {
        pid: process.pid,
        node: process.version,
        uptimeSeconds: Math.round(process.uptime()),
        rssBytes: memory.rss,
        heapUsedBytes: memory.heapUsed,
        heapTotalBytes: memory.heapTotal,
        externalBytes: memory.external,
        eventLoopLagP99Ms: latest.eventLoopLagP99Ms ?? 0,
      },
      pool: {
        threads: pool.threads,
        utilisation: this.utilisationOverWindow(),
        queue: pool.queueSize,
        inFlight: pool.tasks.inFlight,
        tasks: pool.tasks.kinds().map(({ p50, p99, ...rest }) => ({ ...rest, p50Ms: ms(p50), p99Ms: ms(p99) })),
      },
      threads: this.threads(),
      requests: {
        windowSeconds: requests.window.windowSeconds,
        total: requests.total(),
        rate: total.rate,
        p50Ms: ms(total.p50),
        p99Ms: ms(total.p99),
        endpoints: requests.endpointFigures().map(({ p50, p99, ...rest }) => ({ ...rest, p50Ms: ms(p50), p99Ms: ms(p99) })),
      },
      keys: { at: stored.at, tenants: stored.tenants },
      jobs: { schedules: schedules.list(), records: stored.jobs, clusterModels: stored.clusterModels },
      series: { ...this.sampler.series(), requests: { seconds: requestSeries.seconds, counts: requestSeries.counts, p99Ms: requestSeries.p99.map(ms) } },
    };
  }

  private utilisationOverWindow(): number {
    const values = this.sampler.series().values.poolUtilisation ?? [];
    const recent = values.slice(-UTILISATION_SECONDS);
    return recent.length ? recent.reduce((a, b) => a + b, 0) / recent.length : 0;
  }

  /** Jobs by kind and state: unfinished job records (queued, running, failed), cluster models by status, schedules running. */
  async jobStates(): Promise<JobStateCount[]> {
    const stored = await this.stored.figures();
    const counts = new Map<string, JobStateCount>();
    const add = (kind: string, state: string) => {
      const key = `${kind}\u0000${state}`;
      const entry = counts.get(key) ?? { kind, state, count: 0 };
      entry.count++;
      counts.set(key, entry);
    };
    for (const job of stored.jobs) add(job.kind, job.status);
    for (const model of stored.clusterModels) add('cluster-model', model.status);
    for (const schedule of this.deps.schedules.list()) add(`schedule:${schedule.name}`, schedule.running ? 'running' : 'idle');
    return [...counts.values()];
  }

  close(): void {
    this.sampler.close();
  }
}
