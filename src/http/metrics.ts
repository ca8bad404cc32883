import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { WorkerPool } from '../pool';

/** Prometheus metrics of one process: requests by route, latency, worker pool, indexes. */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'version' | 'route' | 'method' | 'status'>;
  private readonly latency: Histogram<'version' | 'route'>;

  constructor(pool: WorkerPool, indexSizes: () => Array<{ tenant: string; documents: number }>) {
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
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
    new Gauge({
      name: 'kindred_index_documents', help: 'Documents in the content index, per key (tenant id)', labelNames: ['tenant'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { tenant, documents } of indexSizes()) this.set({ tenant }, documents);
      },
    });
  }

  observe(version: string, route: string, method: string, status: number, seconds: number): void {
    this.requests.inc({ version, route, method, status: String(status) });
    this.latency.observe({ version, route }, seconds);
  }
}
