import fs from 'node:fs';
import os from 'node:os';
import { startBalancer } from '../test/helpers/balancer';
import { apiCaller, cpuSeconds, inParallel, load, median, startKindred, type LoadResult } from './support';

/**
 * bench:balancer — GET /documents/:id on one Kindred node directly and through deploy/nginx.conf
 * (deploy/run-balancer, Debian's nginx) in the same run: what the balancer's hop costs.
 * Rounds alternate between the two so machine noise hits both alike; medians are reported.
 */
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const KEY = 'bench-balancer-key';
const IDS = 1000;

function getRequests(url: string) {
  let n = 0;
  return {
    url, connections: CONNECTIONS, duration: DURATION, headers: { 'Subscription-Key': KEY },
    requests: [{ method: 'GET' as const, setupRequest: (req: object) => ({ ...req, path: `/documents/bench-${n++ % IDS}` }) }],
  };
}

/** nginx's worker processes: the master's children. */
function childrenOf(pid: number): number[] {
  return fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).map(Number).filter((child) => {
    try {
      const stat = fs.readFileSync(`/proc/${child}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
    } catch {
      return false;
    }
  });
}

/** CPU microseconds per request the given processes spent during one load run. */
async function loadWithCpu(options: ReturnType<typeof getRequests>, pids: number[]): Promise<LoadResult & { cpu: number[] }> {
  const before = pids.map((pid) => cpuSeconds(pid) ?? NaN);
  const result = await load(options);
  const requests = result.rps * options.duration;
  return { ...result, cpu: pids.map((pid, i) => (((cpuSeconds(pid) ?? NaN) - before[i]) * 1e6) / requests) };
}

async function main(): Promise<void> {
  const node = await startKindred(KEY, { KINDRED_WORKERS: '1' });
  const call = apiCaller(KEY);
  await inParallel(Array.from({ length: IDS }, (_, i) => i), 32, (i) =>
    call(`${node.base}/documents/bench-${i}`, 'POST', { text: `Document ${i}: ${'lorem ipsum dolor sit amet '.repeat(15)}`, meta: { title: 'bench' } }));
  const balancer = await startBalancer([node.base.replace('http://', '')]);
  const workers = childrenOf(balancer.child.pid!);
  const direct: Array<LoadResult & { cpu: number[] }> = [];
  const proxied: Array<LoadResult & { cpu: number[] }> = [];
  for (let round = 0; round < ROUNDS; round++) {
    direct.push(await loadWithCpu(getRequests(node.base), [node.child.pid!]));
    proxied.push(await loadWithCpu(getRequests(balancer.url), [node.child.pid!, ...workers]));
  }
  await balancer.stop();
  node.stop();

  const m = (results: LoadResult[], pick: (r: LoadResult) => number) => median(results.map(pick));
  const cpu = (results: Array<{ cpu: number[] }>, from: number, to?: number) => median(results.map((r) => r.cpu.slice(from, to).reduce((a, b) => a + b, 0)));
  const errors = (results: LoadResult[]) => results.reduce((s, r) => s + r.errors + r.non2xx, 0);
  console.log(`## bench:balancer — ${new Date().toISOString().slice(0, 10)}`);
  console.log(`command: npm run bench:balancer (BENCH_SECONDS=${DURATION} BENCH_ROUNDS=${ROUNDS} BENCH_CONNECTIONS=${CONNECTIONS}); ` +
    `one node (embedded store, KINDRED_WORKERS=1), ${IDS} documents, nginx ${workers.length} workers, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}`);
  console.log('');
  console.log('| GET /documents/:id | req/s (median) | p50 ms | p99 ms | Kindred CPU µs/request | nginx CPU µs/request | errors |');
  console.log('|---|---|---|---|---|---|---|');
  console.log(`| direct | ${m(direct, (r) => r.rps).toFixed(0)} | ${m(direct, (r) => r.p50).toFixed(1)} | ${m(direct, (r) => r.p99).toFixed(1)} | ${cpu(direct, 0, 1).toFixed(0)} | – | ${errors(direct)} |`);
  console.log(`| through nginx | ${m(proxied, (r) => r.rps).toFixed(0)} | ${m(proxied, (r) => r.p50).toFixed(1)} | ${m(proxied, (r) => r.p99).toFixed(1)} | ${cpu(proxied, 0, 1).toFixed(0)} | ${cpu(proxied, 1).toFixed(0)} | ${errors(proxied)} |`);
  console.log('');
  console.log(`throughput ratio through nginx / direct: ${(m(proxied, (r) => r.rps) / m(direct, (r) => r.rps)).toFixed(2)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
