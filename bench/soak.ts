import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { collectGarbage } from '../test/helpers/inspector';
import { apiCaller, cpuSeconds, median, startKindred, type KindredProcess } from './support';

/**
 * npm run soak: a mixed workload (reads, writes, similar, keyword, hybrid, batch) on loopback for
 * SOAK_MINUTES (default 30) with SOAK_CONCURRENCY clients; per-minute throughput, p99 and errors,
 * the server's RSS over time (least-squares slope) and its event-loop lag p99 (from /metrics).
 */
const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 16);
const KEY = 'soak-key';
const ADMIN = 'soak-admin';
const call = apiCaller(KEY);

function texts(): string[] {
  const file = path.join(__dirname, '..', '..', '..', 'shared', 'data', '20newsgroups', '20newsgroups-bydate-train.jsonl.gz');
  return zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').split('\n').filter(Boolean).slice(0, 3000)
    .map((l) => { const t = (JSON.parse(l) as { text: string }).text; return t.slice(t.indexOf('\n\n') + 2) || 'empty'; });
}

function rssMb(pid: number, field = 'VmRSS'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
}

function slope(points: Array<[number, number]>): number {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0) || 1;
  return num / den;
}

/** RSS and V8 heap in use after a full garbage collection: what the server still holds, garbage aside. */
async function settledMemory(kindred: KindredProcess): Promise<Memory | undefined> {
  if (!kindred.inspectorUrl) return undefined;
  await collectGarbage(kindred.inspectorUrl);
  const metrics = await (await fetch(`${kindred.base}/metrics`, { headers: { Authorization: `Bearer ${ADMIN}` } })).text();
  const heapMb = Number(/^nodejs_heap_size_used_bytes (\S+)/m.exec(metrics)?.[1] ?? NaN) / 1024 / 1024;
  const pid = kindred.child.pid!;
  return { rssMb: rssMb(pid), anonMb: rssMb(pid, 'RssAnon'), fileMb: rssMb(pid, 'RssFile'), heapMb };
}

type Memory = { rssMb: number; anonMb: number; fileMb: number; heapMb: number };

// RssFile is mostly the store's memory-mapped pages (LMDB): page cache the kernel can take back.
const memoryText = (m: Memory | undefined) => (m
  ? `RSS ${m.rssMb.toFixed(0)} MB (anonymous ${m.anonMb.toFixed(0)}, file-backed ${m.fileMb.toFixed(0)}), heap ${m.heapMb.toFixed(1)} MB`
  : 'n/a');

async function main(): Promise<void> {
  const corpus = texts();
  const kindred = await startKindred(KEY, { KINDRED_ADMIN_TOKEN: ADMIN }, { inspect: true });
  const { base, child } = kindred;
  try {
    for (let i = 0; i < 1000; i++) await call(`${base}/documents/seed-${i}`, 'POST', { text: corpus[i] });
    for (let u = 0; u < 50; u++) {
      await call(`${base}/users/u${u}`, 'POST');
      for (let j = 0; j < 10; j++) await call(`${base}/users/u${u}/preferences/seed-${(u * 37 + j * 11) % 1000}`, 'POST');
    }
    let n = 1000;
    const operations: Array<() => Promise<unknown>> = [
      () => call(`${base}/documents/seed-${Math.floor(Math.random() * 1000)}`, 'GET'),
      // Writes replace documents, so the corpus keeps its size and the run measures time, not growth.
      () => call(`${base}/documents/seed-${Math.floor(Math.random() * 1000)}`, 'PUT', { text: corpus[n++ % corpus.length] }),
      () => call(`${base}/documents/seed-${Math.floor(Math.random() * 1000)}/similar?number=10`, 'GET'),
      () => call(`${base}/documents/by-keyword`, 'POST', { es_query: { query: { match: { text: 'space shuttle orbit' } }, aggs: { t: { terms: { field: 'tags' } } } } }),
      () => call(`${base}/users/u${Math.floor(Math.random() * 50)}/recommendations?use_hybrid=true`, 'GET'),
      () => call(`${base}/batch`, 'POST', { sequential: false, ops: [0, 1, 2].map((k) => ({ method: 'GET', url: `/documents/seed-${k}`, headers: { 'Subscription-Key': KEY } })) }),
      () => call(`${base}/documents?per_page=25&page=${1 + Math.floor(Math.random() * 40)}`, 'GET'),
    ];
    const before = await settledMemory(kindred);
    const until = Date.now() + MINUTES * 60_000;
    const minutes: Array<{ latencies: number[]; errors: number }> = [];
    const rss: Array<[number, number]> = [];
    const started = Date.now();
    const sampler = setInterval(() => rss.push([(Date.now() - started) / 60_000, rssMb(child.pid!)]), 10_000);
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) {
        const minute = Math.floor((Date.now() - started) / 60_000);
        minutes[minute] ??= { latencies: [], errors: 0 };
        const t0 = performance.now();
        try {
          await operations[Math.floor(Math.random() * operations.length)]();
          minutes[minute].latencies.push(performance.now() - t0);
        } catch {
          minutes[minute].errors++;
        }
      }
    }));
    clearInterval(sampler);
    // Read before the memory reading below: prom-client resets the lag histogram at each /metrics read.
    const metrics = await (await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${ADMIN}` } })).text();
    const lagP99 = Number(/^nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(metrics)?.[1] ?? NaN) * 1000;
    const after = await settledMemory(kindred);
    const cpu = cpuSeconds(child.pid!);
    console.log(`## soak — ${new Date().toISOString().slice(0, 10)}`);
    console.log(`command: SOAK_MINUTES=${MINUTES} SOAK_CONCURRENCY=${CONCURRENCY} npm run soak; mixed workload (GET, POST, similar, by-keyword, hybrid user recommendations, batch, list) ` +
      `over 1,000 20NG documents and 50 users; ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}`);
    console.log('');
    console.log('| minute | requests/s | p50 ms | p99 ms | errors |');
    console.log('|---|---|---|---|---|');
    minutes.forEach((m, i) => {
      const sorted = [...m.latencies].sort((a, b) => a - b);
      console.log(`| ${i + 1} | ${(m.latencies.length / 60).toFixed(0)} | ${median(sorted).toFixed(1)} | ${(sorted[Math.floor(sorted.length * 0.99)] ?? NaN).toFixed(1)} | ${m.errors} |`);
    });
    console.log('');
    const secondHalf = rss.filter(([minute]) => minute >= MINUTES / 2);
    console.log(`After a forced GC: ${memoryText(before)} after seeding, ${memoryText(after)} at the end.`);
    console.log(`RSS: ${rss[0]?.[1].toFixed(0)} MB at the start, ${rss[rss.length - 1]?.[1].toFixed(0)} MB at the end, slope ${slope(rss).toFixed(2)} MB/minute ` +
      `(second half ${slope(secondHalf).toFixed(2)} MB/minute); ` +
      `event-loop lag p99 ${lagP99.toFixed(1)} ms; server CPU ${cpu?.toFixed(0) ?? '?'} s; documents rewritten ${n - 1000}`);
  } finally {
    kindred.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
