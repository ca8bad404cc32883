import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { IndexMemoryUse, MemoryParts } from '../runtime/memory';
import type { JobStateCount } from '../ops/operations';
import { RequestStats } from '../runtime/request-stats';
import type { WorkerPool } from '../pool';

/** Prometheus metrics of one process: requests by route, latency, worker pool and its tasks, indexes, jobs. */
export class Metrics {
  readonly registry = new Registry();
  /** The same observations over a rolling window, for the dashboard. */
  readonly requests = new RequestStats();
  private jobStates: () => Promise<JobStateCount[]> = async () => [];
  private threadBusy: () => Array<{ name: string; busy: number }> = () => [];
  private readonly requestCount: Counter<'version' | 'route' | 'method' | 'status'>;
  private readonly latency: Histogram<'version' | 'route'>;

  constructor(
    pool: WorkerPool, indexSizes: () => Array<{ tenant: string; documents: number }>, memory?: () => Promise<MemoryParts>,
    indexMemory?: () => IndexMemoryUse,
  ) {
    collectDefaultMetrics({ register: this.registry });
    this.requestCount = new Counter({
      name: 'kindred_http_requests_total', help: 'API requests by version, route, method and status',
      labelNames: ['version', 'route', 'method', 'status'], registers: [this.registry],
    });
    this.latency = new Histogram({
      name: 'kindred_http_request_duration_seconds', help: 'API request latency by version and route',
      labelNames: ['version', 'route'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers: [this.registry],
    });
    new Gauge({
      name: 'kindred_pool_threads', help: 'Worker threads', registers: [this.registry],
      collect() { this.set(pool.threads); },
    });
    new Gauge({
      name: 'kindred_pool_queue_size', help: 'Tasks waiting for a worker thread', registers: [this.registry],
      collect() { this.set(pool.queueSize); },
    });
    new Gauge({
      name: 'kindred_pool_utilization', help: 'Share of time the worker threads were busy', registers: [this.registry],
      collect() { this.set(pool.utilization); },
    });
    const taskDuration = new Histogram({
      name: 'kindred_pool_task_duration_seconds', help: 'Worker pool tasks by kind: seconds from submission to result (queue wait included)',
      labelNames: ['kind', 'outcome'], buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
      registers: [this.registry],
    });
    pool.tasks.onFinished((kind, seconds, failed) => taskDuration.observe({ kind, outcome: failed ? 'failed' : 'ok' }, seconds));
    new Gauge({
      name: 'kindred_pool_tasks_in_flight', help: 'Tasks submitted to the worker pool and not finished (running or queued)',
      registers: [this.registry],
      collect() { this.set(pool.tasks.inFlight); },
    });
    const metrics = this;
    new Gauge({
      name: 'kindred_thread_busy', help: 'Busy share of each thread over the last 10 s (event-loop utilisation): main, each pool thread, keyword',
      labelNames: ['thread'], registers: [this.registry],
      collect() {
        this.reset();
        for (const { name, busy } of metrics.threadBusy()) this.set({ thread: name }, busy);
      },
    });
    new Gauge({
      name: 'kindred_jobs', help: 'Background jobs by kind and state: unfinished job records, cluster models by status, schedules running or idle',
      labelNames: ['kind', 'state'], registers: [this.registry],
      async collect() {
        const states = await metrics.jobStates();
        this.reset();
        for (const { kind, state, count } of states) this.set({ kind, state }, count);
      },
    });
    new Gauge({
      name: 'kindred_index_documents', help: 'Documents in the content index, per key (tenant id)', labelNames: ['tenant'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { tenant, documents } of indexSizes()) this.set({ tenant }, documents);
      },
    });
    if (memory) {
      new Gauge({
        name: 'kindred_memory_bytes', help: 'Resident memory by kind (anonymous, file-backed) and JS heaps by thread (main, keyword worker)',
        labelNames: ['part'], registers: [this.registry],
        async collect() {
          this.reset();
          for (const [part, bytes] of Object.entries(await memory())) this.set({ part }, bytes);
        },
      });
    }
    if (indexMemory) {
      new Gauge({
        name: 'kindred_index_memory_bytes', help: 'The indexes\' memory budget (KINDRED_INDEX_MEMORY) and what the loaded keys are counted as',
        labelNames: ['kind'], registers: [this.registry],
        collect() {
          const use = indexMemory();
          this.set({ kind: 'budget' }, use.budget);
          this.set({ kind: 'held' }, use.held);
        },
      });
      new Gauge({
        name: 'kindred_index_keys_loaded', help: 'Keys whose indexes are in memory', registers: [this.registry],
        collect() { this.set(indexMemory().loadedKeys); },
      });
      new Counter({
        name: 'kindred_index_unloads_total', help: 'Keys unloaded to stay within the memory budget', registers: [this.registry],
        collect() { this.reset(); this.inc(indexMemory().unloads); },
      });
    }
  }

  observe(version: string, route: string, method: string, status: number, seconds: number): void {
    this.requestCount.inc({ version, route, method, status: String(status) });
    this.latency.observe({ version, route }, seconds);
    this.requests.record(version, route, method, status, seconds);
  }

  /** Where the kindred_jobs gauge reads job states from (src/ops Operations.jobStates). */
  trackJobs(source: () => Promise<JobStateCount[]>): void {
    this.jobStates = source;
  }

  trackThreads(source: () => Array<{ name: string; busy: number }>): void {
    this.threadBusy = source;
  }
}
