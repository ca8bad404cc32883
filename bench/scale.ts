import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { collectGarbage } from '../test/helpers/inspector';
import { apiCaller, inParallel, median, realTexts, ROOT, startKindred, type KindredProcess } from './support';

/**
 * bench:scale (issue 13), through HTTP: the real texts of ../shared/data (Debian descriptions, then 20 Newsgroups
 * posts) imported with `kindred import` into a key nobody has queried, then:
 * - last acknowledged write → first `similar-to-text` answer (and → every document indexed, from /healthz);
 * - server RSS growth per document after a forced garbage collection, beside the float32 floor;
 * - GET /documents/:id/similar p50 / p99;
 * - restart (graceful stop, snapshot) → first answer.
 * Today's figures from the issue are printed beside. The 1M-generated run and the memory budget are not here yet.
 *
 *   BENCH_DOCS=all (≈82k)   BENCH_QUERIES=1000
 */
const KEY = 'bench-scale';
const DOCS = Number(process.env.BENCH_DOCS ?? Infinity);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 1000);

interface Health { status: string; indexing: Array<{ indexed: number; stored: number }> }

function rssBytes(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

async function settledRss(kindred: KindredProcess): Promise<number> {
  if (kindred.inspectorUrl) await collectGarbage(kindred.inspectorUrl);
  return rssBytes(kindred.child.pid!);
}

function runImport(base: string, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'kindred'), 'import', '--key', KEY, '--url', base, file], { stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`kindred import exited with ${code}`))));
  });
}

/** Milliseconds until a similar-to-text answer holds `id`, and how long the first answer took. */
async function firstAnswer(base: string, text: string, id: string): Promise<{ ms: number; firstMs: number; attempts: number }> {
  const call = apiCaller(KEY);
  const started = performance.now();
  let firstMs = 0;
  for (let attempts = 1; ; attempts++) {
    const hits = await call(`${base}/documents/similar-to-text`, 'POST', { text, number: 10 }) as Array<{ id: string }>;
    if (attempts === 1) firstMs = performance.now() - started;
    if (hits.some((h) => h.id === id)) return { ms: performance.now() - started, firstMs, attempts };
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function allIndexed(base: string, docs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const health = await (await fetch(`${base}/healthz`)).json() as Health;
    if (health.indexing.some((e) => e.indexed === docs && e.stored === docs)) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function main(): Promise<void> {
  const texts = realTexts().slice(0, DOCS);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-bench-scale-'));
  const file = path.join(dir, 'documents.jsonl');
  fs.writeFileSync(file, texts.map((text, i) => JSON.stringify({ id: `d${i}`, text })).join('\n'));
  const dataDir = path.join(dir, 'data');
  fs.mkdirSync(dataDir);
  let kindred = await startKindred(KEY, {}, { inspect: true, keepDataDir: dataDir });
  try {
    const empty = await settledRss(kindred);
    const importStarted = performance.now();
    await runImport(kindred.base, file);
    const importSeconds = (performance.now() - importStarted) / 1000;
    const lastId = `d${texts.length - 1}`;
    // A cheap request at the same moment: does the event loop answer while the indexes catch up?
    const healthStarted = performance.now();
    const healthAfterImport = fetch(`${kindred.base}/healthz`).then(async (r) => ({ ms: performance.now() - healthStarted, body: await r.json() as Health }));
    const first = await firstAnswer(kindred.base, texts[texts.length - 1]!, lastId);
    const toFirstAnswer = first.ms;
    const toAllIndexed = toFirstAnswer + await allIndexed(kindred.base, texts.length);
    const health = await healthAfterImport;
    const loaded = await settledRss(kindred);
    const perDocument = (loaded - empty) / texts.length;

    const call = apiCaller(KEY);
    const latencies: number[] = [];
    const ids = Array.from({ length: QUERIES }, (_, i) => `d${(i * 7919) % texts.length}`);
    await inParallel(ids, 4, async (id) => {
      const t0 = performance.now();
      await call(`${kindred.base}/documents/${id}/similar?number=10`, 'GET');
      latencies.push(performance.now() - t0);
    });
    latencies.sort((a, b) => a - b);

    kindred.stop();
    await new Promise((resolve) => kindred.child.once('exit', resolve));
    const restartStarted = performance.now();
    kindred = await startKindred(KEY, {}, { keepDataDir: dataDir });
    const restartToAnswer = (performance.now() - restartStarted) + (await firstAnswer(kindred.base, texts[0]!, 'd0')).ms;

    console.log(`## bench:scale — ${new Date().toISOString().slice(0, 10)}`);
    console.log(`${texts.length} real texts (Debian descriptions, then 20 Newsgroups posts) imported with \`kindred import\` ` +
      `(${(texts.length / importSeconds).toFixed(0)} docs/s acknowledged) into a key never queried; ${os.cpus().length} cores, ` +
      `load average ${os.loadavg()[0].toFixed(1)}`);
    console.log('');
    console.log('| measure | now | issue 13 (before) | required |');
    console.log('|---|---|---|---|');
    console.log(`| last acknowledged write → first similar-to-text answer holding the last document | ${(toFirstAnswer / 1000).toFixed(2)} s (first answer after ${(first.firstMs / 1000).toFixed(2)} s, ${first.attempts} queries) | 35 s | ≤ 5 s |`);
    console.log(`| GET /healthz at the last acknowledged write | ${health.ms.toFixed(0)} ms; indexed ${health.body.indexing[0]?.indexed ?? 0} of ${health.body.indexing[0]?.stored ?? 0} | – | – |`);
    console.log(`| last acknowledged write → every document indexed (/healthz) | ${(toAllIndexed / 1000).toFixed(2)} s | – | – |`);
    console.log(`| server RSS growth per document (after a forced GC) | ${perDocument.toFixed(0)} bytes (floor: 64 float32 dims = 256 bytes) | 13.8 KB | ≤ 3,000 bytes |`);
    console.log(`| GET /documents/:id/similar p50 / p99 (4 in flight) | ${median(latencies).toFixed(1)} / ${latencies[Math.floor(latencies.length * 0.99)]!.toFixed(1)} ms | 4.7 / 16.2 ms (82k) | – |`);
    console.log(`| restart (graceful stop, snapshot) → first answer | ${(restartToAnswer / 1000).toFixed(2)} s | 7.8 s | ≤ 3 s |`);
  } finally {
    if (kindred.child.exitCode === null && kindred.child.signalCode === null) {
      kindred.stop();
      await new Promise((resolve) => kindred.child.once('exit', resolve));
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
