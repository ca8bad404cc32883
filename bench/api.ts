import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { load, median, peakRssMb, spawnServer, type LoadResult, type Spawned } from './support';

/**
 * bench:api — GET /documents/:id and POST /documents through the real server (embedded store),
 * beside a bare Express handler answering the same JSON from memory, in the same run.
 * Rounds alternate between the two so machine noise hits both alike; medians are reported.
 */
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const KEY = 'bench-key';
const IDS = 1000;
const TEXT = 'x'.repeat(400);

async function seed(url: string): Promise<void> {
  for (let i = 0; i < IDS; i += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, j) => fetch(`${url}/documents/bench-${i + j}`, {
      method: 'POST', headers: { 'Subscription-Key': KEY, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: TEXT, meta: { title: 'bench' } }),
    })));
  }
}

function getRequests(url: string) {
  let n = 0;
  return {
    url, connections: CONNECTIONS, duration: DURATION, headers: { 'Subscription-Key': KEY },
    requests: [{ method: 'GET' as const, setupRequest: (req: object) => ({ ...req, path: `/documents/bench-${n++ % IDS}` }) }],
  };
}

function postRequests(url: string) {
  return {
    url: `${url}/documents`, connections: CONNECTIONS, duration: DURATION, method: 'POST' as const,
    headers: { 'Subscription-Key': KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify({ text: TEXT, meta: { title: 'bench' } }),
  };
}

function row(name: string, results: LoadResult[]): string {
  const rps = median(results.map((r) => r.rps));
  const p50 = median(results.map((r) => r.p50));
  const p99 = median(results.map((r) => r.p99));
  const errors = results.reduce((s, r) => s + r.errors + r.non2xx, 0);
  const cpu = median(results.map((r) => r.cpuMicrosPerRequest ?? NaN));
  return `| ${name} | ${rps.toFixed(0)} | ${p50.toFixed(1)} | ${p99.toFixed(1)} | ${cpu.toFixed(0)} | ${errors} |`;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-bench-api-'));
  const logLevel = process.env.LOG_LEVEL ?? 'info';
  const kindred: Spawned = await spawnServer(path.join(__dirname, '..', 'src', 'server.js'), {
    KINDRED_DATA_DIR: dataDir, KINDRED_API_KEYS: KEY, LOG_LEVEL: logLevel, MONGODB_URI: '', KINDRED_WORKERS: '1',
  });
  const bare: Spawned = await spawnServer(path.join(__dirname, 'bare-server.js'), {});
  await seed(kindred.url);
  const results: Record<string, LoadResult[]> = { kget: [], bget: [], kpost: [], bpost: [] };
  for (let round = 0; round < ROUNDS; round++) {
    results.kget.push(await load(getRequests(kindred.url), kindred.child.pid));
    results.bget.push(await load(getRequests(bare.url), bare.child.pid));
    results.kpost.push(await load(postRequests(kindred.url), kindred.child.pid));
    results.bpost.push(await load(postRequests(bare.url), bare.child.pid));
  }
  const rss = peakRssMb(kindred.child.pid!);
  await kindred.stop();
  await bare.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });

  const ratio = (a: LoadResult[], b: LoadResult[]) => median(a.map((r) => r.rps)) / median(b.map((r) => r.rps));
  const cpuRatio = (a: LoadResult[], b: LoadResult[]) =>
    median(b.map((r) => r.cpuMicrosPerRequest ?? NaN)) / median(a.map((r) => r.cpuMicrosPerRequest ?? NaN));
  console.log(`## bench:api — ${new Date().toISOString().slice(0, 10)}`);
  console.log(`command: npm run bench:api (BENCH_SECONDS=${DURATION} BENCH_ROUNDS=${ROUNDS} BENCH_CONNECTIONS=${CONNECTIONS} LOG_LEVEL=${logLevel}); ` +
    `embedded store, ${IDS} documents of 400 characters, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}`);
  console.log('');
  console.log('| endpoint | req/s (median) | p50 ms | p99 ms | server CPU µs/request | errors |');
  console.log('|---|---|---|---|---|---|');
  console.log(row('Kindred GET /documents/:id', results.kget));
  console.log(row('bare Express GET', results.bget));
  console.log(row('Kindred POST /documents', results.kpost));
  console.log(row('bare Express POST', results.bpost));
  console.log('');
  console.log(`GET throughput ratio Kindred/bare: ${ratio(results.kget, results.bget).toFixed(2)} ` +
    `(by server CPU per request, bare/Kindred: ${cpuRatio(results.kget, results.bget).toFixed(2)}); ` +
    `POST: ${ratio(results.kpost, results.bpost).toFixed(2)} (by CPU: ${cpuRatio(results.kpost, results.bpost).toFixed(2)}); ` +
    `Kindred peak RSS ${rss?.toFixed(0) ?? '?'} MB`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
