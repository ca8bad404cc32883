import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seededRandom } from '../src/random';
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
/** A second key for write→visible: warm (500 documents of words), written and read in sequence. */
const VISIBLE_KEY = 'bench-visible';
const VISIBLE_PROBES = Number(process.env.BENCH_VISIBLE_PROBES ?? 100);
const WORDS = ('river mountain forest engine planet garden violin harbour castle desert island market winter summer ' +
  'doctor teacher bridge window silver copper rocket signal camera lantern meadow canyon glacier thunder orchard ' +
  'pilot sailor farmer baker painter poet lawyer nurse tiger falcon dolphin salmon maple cedar willow tulip').split(' ');
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

/** A text of 30 words drawn by a fixed rule from WORDS, different for each n. */
function wordsText(n: number): string {
  const random = seededRandom(n);
  return Array.from({ length: 30 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ') + ` tag${n.toString(36)}`;
}

async function call(url: string, method: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { method, headers: { 'Subscription-Key': VISIBLE_KEY, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() as unknown };
}

interface Visibility { write: number[]; visible: number[]; inNextAnswer: number }

/**
 * Write → visible: POST /documents, then at once POST /documents/similar-to-text with the same text, repeated
 * until the document is in the answer. `inNextAnswer` counts documents found by the very first query.
 */
async function visibility(url: string): Promise<Visibility> {
  for (let i = 0; i < 500; i += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, j) => call(`${url}/documents/warm-${i + j}`, 'POST', { text: wordsText(i + j) })));
  }
  await call(`${url}/documents/similar-to-text`, 'POST', { text: wordsText(0) });
  const out: Visibility = { write: [], visible: [], inNextAnswer: 0 };
  for (let n = 0; n < VISIBLE_PROBES; n++) {
    const text = wordsText(1000 + n);
    const id = `probe-${n}`;
    const started = performance.now();
    const written = await call(`${url}/documents/${id}`, 'POST', { text });
    if (written.status !== 201) throw new Error(`write: ${written.status} ${JSON.stringify(written.body)}`);
    out.write.push(performance.now() - started);
    for (let attempt = 0; ; attempt++) {
      const found = await call(`${url}/documents/similar-to-text`, 'POST', { text, number: 10 });
      if ((found.body as Array<{ id: string }>).some((r) => r.id === id)) {
        if (attempt === 0) out.inNextAnswer++;
        break;
      }
      if (performance.now() - started > 30_000) throw new Error(`${id} not visible after 30 s`);
    }
    out.visible.push(performance.now() - started);
  }
  return out;
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
    KINDRED_DATA_DIR: dataDir, KINDRED_API_KEYS: `${KEY},${VISIBLE_KEY}`, LOG_LEVEL: logLevel, MONGODB_URI: '', KINDRED_WORKERS: '1',
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
  const visible = await visibility(kindred.url);
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
  const at = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
  console.log('');
  console.log(`Write → visible (${VISIBLE_PROBES} documents written one at a time into a key of 500, each followed at once by ` +
    `similar-to-text with its text): write p50 ${median(visible.write).toFixed(1)} / p99 ${at(visible.write, 0.99).toFixed(1)} ms; ` +
    `write → in an answer p50 ${median(visible.visible).toFixed(1)} / p99 ${at(visible.visible, 0.99).toFixed(1)} ms; ` +
    `in the very next answer: ${visible.inNextAnswer} of ${VISIBLE_PROBES}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
