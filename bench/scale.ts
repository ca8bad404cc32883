import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { collectGarbage } from '../test/helpers/inspector';
import { apiCaller, generatedCorpus, inParallel, median, realTexts, ROOT, startKindred, type KindredProcess } from './support';

/**
 * bench:scale (issue 13), through HTTP: the real texts of ../shared/data (Debian descriptions, then 20 Newsgroups
 * posts) imported with `kindred import` into a key nobody has queried, then:
 * - last acknowledged write → first `similar-to-text` answer (and → every document indexed, from /healthz);
 * - server RSS growth per document after a forced garbage collection, beside the float32 floor;
 * - GET /documents/:id/similar p50 / p99, one at a time (as the issue measured) and 4 in flight (with throughput);
 * - restart (graceful stop, snapshot) → first answer.
 * Today's figures from the issue are printed beside.
 *
 *   BENCH_DOCS=all (≈82k real texts)   BENCH_QUERIES=1000
 *   BENCH_CORPUS=generated BENCH_DOCS=1000000: generated texts of real words (bench/support generatedCorpus)
 *   BENCH_RECALL_QUERIES=200: answers compared with a restart on exact search (KINDRED_EXACT_SEARCH=1)
 *   BENCH_KEEP=1: the data directory is kept (its path printed) for probes
 */
const KEY = 'bench-scale';
const DOCS = Number(process.env.BENCH_DOCS ?? Infinity);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 1000);
const GENERATED = process.env.BENCH_CORPUS === 'generated';
const RECALL_QUERIES = Number(process.env.BENCH_RECALL_QUERIES ?? 200);
const KEEP = process.env.BENCH_KEEP === '1';

interface Health { status: string; indexing: Array<{ indexed: number; stored: number; refitting: boolean; refitDue?: boolean; approximate: string }> }

const ADMIN_TOKEN = 'bench-scale-admin';
/** A second key that embeds and answers one document first, so the baseline holds what does not grow with documents (the word-vector table). */
const WARM_KEY = 'bench-scale-warm-up';
/** --expose-gc lets the keyword worker collect before it reports its heap (kindred_memory_bytes in /metrics). */
const SERVER_ENV = { KINDRED_ADMIN_TOKEN: ADMIN_TOKEN, NODE_OPTIONS: '--expose-gc', KINDRED_API_KEYS: `${KEY},${WARM_KEY}` };
const PARTS = ['rss', 'anonymous', 'fileBacked', 'mainHeap', 'keywordHeap', 'arrayBuffers'] as const;
type Parts = Record<(typeof PARTS)[number], number>;

/** The server's /metrics, read once: the value of the series a pattern (a regular expression) names. */
async function metrics(kindred: KindredProcess): Promise<(series: string) => number> {
  const text = await (await fetch(`${kindred.base}/metrics`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  return (series) => Number(new RegExp(`^${series} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

/** The server's memory by part (after a forced GC of the main thread and the keyword worker). */
async function memoryParts(kindred: KindredProcess): Promise<Parts> {
  if (kindred.inspectorUrl) await collectGarbage(kindred.inspectorUrl);
  const figure = await metrics(kindred);
  const parts = {} as Parts;
  for (const part of PARTS) parts[part] = figure(`kindred_memory_bytes\\{part="${part}"\\}`);
  return parts;
}

/**
 * Memory once the server is idle: the least of readings 3 s apart over a minute. Pool threads hold the garbage
 * of their last tasks until V8's memory reducer collects it, 30–45 s after the work stops (RSS sampled every 2 s
 * after an 82k import: 1005 MB at the end, 947 after the first trim, 640 from 46 s on); the server hands
 * malloc's freed room back every 10 s for a minute after indexing.
 */
async function idleMemory(kindred: KindredProcess): Promise<Parts> {
  let least = await memoryParts(kindred);
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 3000));
    const parts = await memoryParts(kindred);
    if (parts.rss < least.rss) least = parts;
  }
  return least;
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

/**
 * Waits until no key's corpus model is being refitted (the next generation built beside the serving one) or due to
 * be once the writes pause, and no approximate index is being built or tuned: what a key serves once its writes stop.
 */
async function refitsSettled(base: string): Promise<number> {
  const started = performance.now();
  for (;;) {
    const health = await (await fetch(`${base}/healthz`)).json() as Health;
    if (!health.indexing.some((e) => e.refitting || e.refitDue || e.approximate === 'building' || e.approximate === 'tuning')) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The memory budget's figures from /metrics. */
async function indexMemory(kindred: KindredProcess): Promise<{ held: number; unloads: number }> {
  const figure = await metrics(kindred);
  return { held: figure('kindred_index_memory_bytes\\{kind="held"\\}'), unloads: figure('kindred_index_unloads_total') };
}

/** The key's vector dimension (the dashboard's figures): its float32 vectors are the floor memory figures are printed beside. */
async function dimensions(kindred: KindredProcess): Promise<number> {
  const data = await (await fetch(`${kindred.base}/dashboard/data.json`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })).json() as
    { keys: { tenants: Array<{ index: { size: number; dimensions?: number } }> } };
  const largest = data.keys.tenants.reduce<{ size: number; dimensions?: number } | undefined>((a, t) => (a && a.size >= t.index.size ? a : t.index), undefined);
  return largest?.dimensions ?? NaN;
}

async function main(): Promise<void> {
  const texts = GENERATED ? generatedCorpus(realTexts(), DOCS) : realTexts().slice(0, DOCS);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-bench-scale-'));
  const file = path.join(dir, 'documents.jsonl');
  fs.writeFileSync(file, texts.map((text, i) => JSON.stringify({ id: `d${i}`, text })).join('\n'));
  const dataDir = path.join(dir, 'data');
  fs.mkdirSync(dataDir);
  let kindred = await startKindred(KEY, SERVER_ENV, { inspect: true, keepDataDir: dataDir });
  try {
    const started = await memoryParts(kindred);
    const warm = apiCaller(WARM_KEY);
    await warm(`${kindred.base}/documents/warm-up`, 'POST', { text: texts[0] });
    // Queries in parallel reach every pool thread: each loads the word-vector table once, whatever the documents.
    await Promise.all(Array.from({ length: 4 * os.availableParallelism() }, (_, i) =>
      warm(`${kindred.base}/documents/similar-to-text`, 'POST', { text: texts[i]!, number: 1 })));
    const empty = await idleMemory(kindred);
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
    // Right after the import a refit may be building the next generation beside the serving one: the peak.
    const atLastWrite = await memoryParts(kindred);
    const settleMs = await refitsSettled(kindred.base);
    const loaded = await idleMemory(kindred);
    const perDocument = (part: keyof Parts, at: Parts = loaded) => (at[part] - empty[part]) / texts.length;
    const dim = await dimensions(kindred);

    const call = apiCaller(KEY);
    const ids = Array.from({ length: QUERIES }, (_, i) => `d${(i * 7919) % texts.length}`);
    /** GET /documents/:id/similar over `ids`, `inFlight` at a time: sorted latencies and queries per second. */
    const similarLatencies = async (inFlight: number): Promise<{ sorted: number[]; perSecond: number }> => {
      const sorted: number[] = [];
      const started = performance.now();
      await inParallel(ids, inFlight, async (id) => {
        const t0 = performance.now();
        await call(`${kindred.base}/documents/${id}/similar?number=10`, 'GET');
        sorted.push(performance.now() - t0);
      });
      sorted.sort((a, b) => a - b);
      return { sorted, perSecond: ids.length / ((performance.now() - started) / 1000) };
    };
    const oneAtATime = await similarLatencies(1);
    const fourInFlight = await similarLatencies(4);
    // Once it has served: each pool thread then holds the key's model decoded for the second stage (its vocabulary).
    const serving = await idleMemory(kindred);
    const p50p99 = ({ sorted }: { sorted: number[] }) => `${median(sorted).toFixed(1)} / ${sorted[Math.floor(sorted.length * 0.99)]!.toFixed(1)} ms`;

    kindred.stop();
    await new Promise((resolve) => kindred.child.once('exit', resolve));
    const restartStarted = performance.now();
    kindred = await startKindred(KEY, SERVER_ENV, { keepDataDir: dataDir });
    const restartToAnswer = (performance.now() - restartStarted) + (await firstAnswer(kindred.base, texts[0]!, 'd0')).ms;

    // The memory budget: a budget under the big key's estimate; a request to the small key makes the big key the
    // least recently used, so it is unloaded; its next request loads it again.
    kindred.stop();
    await new Promise((resolve) => kindred.child.once('exit', resolve));
    kindred = await startKindred(KEY, { ...SERVER_ENV, KINDRED_INDEX_MEMORY: String(texts.length * 4096) }, { keepDataDir: dataDir });
    await firstAnswer(kindred.base, texts[0]!, 'd0');
    // A key is unloaded only when idle: not while a refit (which a restore may start) builds its next generation.
    await refitsSettled(kindred.base);
    const unloadsBefore = (await indexMemory(kindred)).unloads;
    const unloadStarted = performance.now();
    await warm(`${kindred.base}/documents/similar-to-text`, 'POST', { text: texts[1]!, number: 1 });
    while ((await indexMemory(kindred)).unloads <= unloadsBefore) await new Promise((r) => setTimeout(r, 20));
    const unloadMs = performance.now() - unloadStarted;
    const reload = await firstAnswer(kindred.base, texts[0]!, 'd0');

    // Recall: the same queries answered by the same index restored with exact search (every vector scored).
    const recallIds = ids.slice(0, RECALL_QUERIES);
    const answersOf = async (base: string): Promise<string[][]> => {
      const answers: string[][] = [];
      for (const id of recallIds) answers.push((await call(`${base}/documents/${id}/similar?number=10`, 'GET') as Array<{ id: string }>).map((h) => h.id));
      return answers;
    };
    await refitsSettled(kindred.base);
    const approximate = await answersOf(kindred.base);
    kindred.stop();
    await new Promise((resolve) => kindred.child.once('exit', resolve));
    kindred = await startKindred(KEY, { ...SERVER_ENV, KINDRED_EXACT_SEARCH: '1' }, { keepDataDir: dataDir });
    await firstAnswer(kindred.base, texts[0]!, 'd0');
    await refitsSettled(kindred.base);
    const exact = await answersOf(kindred.base);
    const recall = exact.reduce((sum, truth, i) => sum + (truth.length === 0 ? 1 : truth.filter((id) => approximate[i]!.includes(id)).length / truth.length), 0) / exact.length;

    console.log(`## bench:scale — ${new Date().toISOString().slice(0, 10)}`);
    console.log(`${texts.length} ${GENERATED ? 'generated texts (real words, 2,000 topics; BENCH_CORPUS=generated)' : 'real texts (Debian descriptions, then 20 Newsgroups posts)'} imported with \`kindred import\` ` +
      `(${(texts.length / importSeconds).toFixed(0)} docs/s acknowledged) into a key never queried; ${os.cpus().length} cores, ` +
      `load average ${os.loadavg()[0].toFixed(1)}`);
    console.log('');
    console.log('| measure | now | issue 13 (before) | required |');
    console.log('|---|---|---|---|');
    console.log(`| last acknowledged write → first similar-to-text answer holding the last document | ${(toFirstAnswer / 1000).toFixed(2)} s (first answer after ${(first.firstMs / 1000).toFixed(2)} s, ${first.attempts} queries) | 35 s | ≤ 5 s |`);
    console.log(`| GET /healthz at the last acknowledged write | ${health.ms.toFixed(0)} ms; indexed ${health.body.indexing[0]?.indexed ?? 0} of ${health.body.indexing[0]?.stored ?? 0} | – | – |`);
    console.log(`| last acknowledged write → every document indexed (/healthz) | ${(toAllIndexed / 1000).toFixed(2)} s | – | – |`);
    console.log(`| server RSS growth per document (idle: no refit running, forced GC, least of 21 readings over a minute) | ${perDocument('rss').toFixed(0)} bytes (floor: ${dim} float32 dims = ${dim * 4} bytes) | 13.8 KB | ≤ 3,000 bytes |`);
    console.log(`| … of which anonymous / file-backed (the store's memory map) | ${perDocument('anonymous').toFixed(0)} / ${perDocument('fileBacked').toFixed(0)} bytes | – | – |`);
    console.log(`| … JS heap in use: main thread / keyword worker; typed-array stores | ${perDocument('mainHeap').toFixed(0)} / ${perDocument('keywordHeap').toFixed(0)}; ${perDocument('arrayBuffers').toFixed(0)} bytes | – | – |`);
    console.log(`| … after serving the similar queries below (each pool thread holds the key's model decoded) | ${perDocument('rss', serving).toFixed(0)} bytes (anonymous ${perDocument('anonymous', serving).toFixed(0)}); server ${(serving.rss / 2 ** 30).toFixed(2)} GB | – | – |`);
    console.log(`| fixed: server RSS at start / after one document in another key (word-vector table, workers warm) | ${(started.rss / 2 ** 20).toFixed(0)} / ${(empty.rss / 2 ** 20).toFixed(0)} MB | – | – |`);
    console.log(`| … at every document indexed (a refit may build the next generation beside: ${(settleMs / 1000).toFixed(0)} s more) | ${perDocument('rss', atLastWrite).toFixed(0)} bytes | – | – |`);
    console.log(`| GET /documents/:id/similar p50 / p99, one at a time | ${p50p99(oneAtATime)} | 4.7 / 16.2 ms (82k), 8.3 / 17.7 ms (1M), one at a time | ≤ 5 / ≤ 25 ms (1M) |`);
    console.log(`| … 4 in flight: p50 / p99; throughput | ${p50p99(fourInFlight)}; ${fourInFlight.perSecond.toFixed(0)} queries/s | 341 queries/s (82k), 200 (1M) | – |`);
    console.log(`| recall@10 of GET similar against the same server on exact float32 search (${recallIds.length} queries) | ${recall.toFixed(3)} | – | ≥ 0.95 |`);
    console.log(`| restart (graceful stop, snapshot) → first answer | ${(restartToAnswer / 1000).toFixed(2)} s | 7.8 s (82k), 91 s (1M) | ≤ 3 s (82k), ≤ 20 s (1M) |`);
    console.log(`| memory budget: key unloaded (snapshot written, freed) / loaded again → first answer | ${(unloadMs / 1000).toFixed(2)} / ${(reload.ms / 1000).toFixed(2)} s | – | reload ≤ 1 s per 100k |`);
  } finally {
    if (kindred.child.exitCode === null && kindred.child.signalCode === null) {
      kindred.stop();
      await new Promise((resolve) => kindred.child.once('exit', resolve));
    }
    if (KEEP) console.error(`bench:scale: data kept in ${dataDir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
