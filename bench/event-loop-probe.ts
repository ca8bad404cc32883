/**
 * Preloaded into a server by a benchmark (`node --require dist/bench/event-loop-probe.js dist/src/server.js`): the
 * main thread's event-loop delays since the last report, written as JSON to BENCH_LOOP_PROBE_FILE on SIGUSR2 (then
 * reset). Delays are the timer's intervals less its resolution: how long a request arriving then would have waited.
 */
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const RESOLUTION_MS = 1;

export interface LoopDelays {
  maxMs: number;
  p99Ms: number;
  p999Ms: number;
  meanMs: number;
  /** timer turns seen */
  count: number;
}

const file = process.env.BENCH_LOOP_PROBE_FILE;
if (isMainThread && file) {
  const delays = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delays.enable();
  const ms = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  process.on('SIGUSR2', () => {
    const report: LoopDelays = {
      maxMs: ms(delays.max), p99Ms: ms(delays.percentile(99)), p999Ms: ms(delays.percentile(99.9)), meanMs: ms(delays.mean), count: delays.count,
    };
    fs.writeFileSync(file, JSON.stringify(report));
    delays.reset();
  });
}
