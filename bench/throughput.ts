import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { embedBatch, fitModelSync, loadWordVectors, packSparse, rankByScore, rerankCandidates, serializeModel, usesSecondStage } from '../src/embedding';
import type { LsaModel } from '../src/embedding/model';
import { VectorIndex } from '../src/vector';
import { combinedQuery } from '../src/index/rerank-query';
import { seededRandom } from '../src/random';
import { evenSample } from './quality';
import {
  apiCaller, generatedCorpus, inParallel, loadNewsgroups, machineCpu, median, realTexts, ROOT, shuffled, spawnServer, startKindred, threadCpu,
  type KindredProcess, type Spawned, type ThreadCpu,
} from './support';

/**
 * bench:throughput (issue 29): queries per second, p50 / p99 and CPU per request (main thread and every other
 * thread of the server, from /proc) of each recommendation path through HTTP, with 1, 8 and 32 requests in
 * flight (autocannon, keep-alive), every request a different query; beside a bare Express handler and the
 * in-process search call, in the same run. Today's figures and the required ones from issue 29 are printed beside.
 *
 *   BENCH_SIZES=5k,82k (1m opt-in)   BENCH_INFLIGHT=1,8,32   BENCH_SECONDS=10   BENCH_WARMUP_SECONDS=2   BENCH_ROUNDS=1
 *   BENCH_PATHS=similar,text,user-content,user-hybrid,keyword,v1,tags,read,bare (default: all on 5k; similar,text,read,bare above)
 *   BENCH_DATA_DIR_5K / _82K / _1M, or BENCH_DATA_DIR (a directory holding one per size): keep the ingested key and reuse it
 *   BENCH_WORKERS=1,2,3,4: the similar path again with KINDRED_WORKERS at each (server restarted on the same data)
 *   BENCH_INPROCESS=5k: sizes whose in-process search reference is measured   BENCH_LOG_LEVEL=info (the server's default)
 *   BENCH_URL=http://127.0.0.1:PORT [BENCH_SERVER_PID=pid]: measure a server started by hand (e.g. under --cpu-prof) on a
 *     directory prepared by an earlier run (KINDRED_DATA_DIR=$BENCH_DATA_DIR/5k KINDRED_API_KEYS=bench-throughput)
 *   BENCH_OUT=file: where the report is written besides stdout (default bench/results/throughput.md)
 */
const env = process.env;
const list = (value: string): string[] => value.split(',').map((s) => s.trim()).filter(Boolean);
const SIZE_NAMES = ['5k', '82k', '1m'] as const;
type SizeName = (typeof SIZE_NAMES)[number];
const SIZES = list(env.BENCH_SIZES ?? '5k,82k').map((s) => {
  if (!(SIZE_NAMES as readonly string[]).includes(s)) throw new Error(`BENCH_SIZES: ${s} is not one of ${SIZE_NAMES.join(', ')}`);
  return s as SizeName;
});
const IN_FLIGHT = list(env.BENCH_INFLIGHT ?? '1,8,32').map(Number);
const SECONDS = Number(env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(env.BENCH_WARMUP_SECONDS ?? 2);
const ROUNDS = Math.max(1, Number(env.BENCH_ROUNDS ?? 1));
const WORKERS = env.BENCH_WORKERS ? list(env.BENCH_WORKERS).map(Number) : [];
const LOG_LEVEL = env.BENCH_LOG_LEVEL ?? 'info';
const IN_PROCESS = list(env.BENCH_INPROCESS ?? '5k');
const READY_TIMEOUT_MS = Number(env.BENCH_READY_MINUTES ?? 120) * 60_000;
/** The in-flight count the issue's figures and requirements are stated at. */
const JUDGED_IN_FLIGHT = 8;

const KEY = 'bench-throughput';
const ADMIN = 'bench-throughput-admin';
const USERS = 1000;
/** Each base query (document, text, user) is asked with `number` 10, 11, … so that no query repeats. */
const VARIANTS = 40;
const QUERY_CHARS = 1500;
const MARKER = 'bench-throughput.json';

// ---------------------------------------------------------------- corpora

interface Corpus {
  size: SizeName;
  description: string;
  texts: string[];
  /** The 20 Newsgroups label of each text (5k only): its tag, and what users prefer. */
  labels?: string[];
  withUsers: boolean;
}

function corpusOf(size: SizeName): Corpus {
  if (size === '5k') {
    const posts = loadNewsgroups('train').slice(0, 5000);
    return {
      size, texts: posts.map((p) => p.text), labels: posts.map((p) => p.label), withUsers: true,
      description: 'the first 5,000 20 Newsgroups train posts (header block stripped), tagged with their newsgroup; ' +
        `${USERS} users with 10–20 preferences each (seeded), hybrid model trained with \`kindred train\``,
    };
  }
  const real = realTexts();
  if (size === '82k') return { size, texts: real, withUsers: false, description: `${real.length} real texts (the bench:scale corpus: Debian descriptions, then 20 Newsgroups posts)` };
  return { size, texts: generatedCorpus(real, 1_000_000), withUsers: false, description: '1,000,000 generated texts (bench/support generatedCorpus: real words, 2,000 topics)' };
}

/** Held-out 20 Newsgroups test posts: text i starts with post i and runs on into the next ones, cut to QUERY_CHARS. */
function queryTexts(): string[] {
  const posts = loadNewsgroups('test').map((p) => p.text.trim()).filter(Boolean);
  const texts: string[] = [];
  for (let i = 0; i < posts.length; i++) {
    let text = posts[i]!;
    for (let j = i + 1; text.length < QUERY_CHARS && j < posts.length; j++) text += `\n\n${posts[j]}`;
    if (text.length >= QUERY_CHARS) texts.push(text.slice(0, QUERY_CHARS));
  }
  return texts;
}

/** Words of the corpus neither rare nor everywhere, shuffled: what keyword queries ask for. */
function keywordWords(texts: readonly string[]): string[] {
  const sample = evenSample(texts, 20_000);
  const df = new Map<string, number>();
  for (const text of sample) for (const w of new Set(text.toLowerCase().match(/\b[a-z]{4,12}\b/g) ?? [])) df.set(w, (df.get(w) ?? 0) + 1);
  const words = [...df].filter(([, n]) => n >= 3 && n <= sample.length * 0.02).map(([w]) => w).sort();
  return shuffled(words, 7).slice(0, 3000);
}


// ---------------------------------------------------------------- the server and its data

const call = apiCaller(KEY);
const live = new Set<{ kill(signal?: NodeJS.Signals): boolean }>();

function dataDirOf(size: SizeName): { dir: string; kept: boolean } {
  const named = env[`BENCH_DATA_DIR_${size.toUpperCase()}`] ?? (env.BENCH_DATA_DIR ? path.join(env.BENCH_DATA_DIR, size) : undefined);
  if (named) {
    fs.mkdirSync(named, { recursive: true });
    return { dir: named, kept: true };
  }
  return { dir: fs.mkdtempSync(path.join(os.tmpdir(), `kindred-bench-throughput-${size}-`)), kept: false };
}

async function launch(dir: string, extra: Record<string, string> = {}): Promise<KindredProcess> {
  const kindred = await startKindred(KEY, { KINDRED_ADMIN_TOKEN: ADMIN, LOG_LEVEL, ...extra }, { keepDataDir: dir });
  live.add(kindred.child);
  return kindred;
}

async function halt(kindred: KindredProcess): Promise<void> {
  const { child } = kindred;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    kindred.stop();
    await exited;
  }
  live.delete(child);
}

interface Op { method: string; url: string; params?: Record<string, unknown> }

/** Groups of operations packed whole into batches of at most 100 operations. */
function packed(groups: readonly Op[][]): Op[][] {
  const chunks: Op[][] = [];
  for (const group of groups) {
    const last = chunks[chunks.length - 1];
    if (last && last.length + group.length <= 100) last.push(...group);
    else chunks.push([...group]);
  }
  return chunks;
}

/**
 * POST /batch of up to 100 operations, 4 batches in flight; every operation must succeed. A group's operations
 * go in one batch (in order with `sequential`).
 */
async function batches(base: string, groups: readonly Op[][], sequential = false): Promise<void> {
  await inParallel(packed(groups), 4, async (chunk) => {
    const answer = await call(`${base}/batch`, 'POST', { ops: chunk.map((op) => ({ ...op, headers: { 'Subscription-Key': KEY } })), sequential }) as
      { results: Array<{ status: number; body: unknown }> };
    const failed = answer.results.find((r) => r.status >= 400);
    if (failed) throw new Error(`batch operation failed: ${failed.status} ${JSON.stringify(failed.body).slice(0, 200)}`);
  });
}

const ingest = (base: string, texts: readonly string[]) =>
  batches(base, texts.map((text, i) => [{ method: 'POST', url: `/documents/d${i}`, params: { text } }]));

/** Each document tagged with its newsgroup (dots made dashes: tag ids are letters, digits, `-` and `_`). */
const tagAll = (base: string, labels: readonly string[]) =>
  batches(base, labels.map((label, i) => [{ method: 'POST', url: `/documents/d${i}/tags/${label.replace(/\./g, '-')}` }]));

/** USERS users, each with 10–20 preferences: four in five from one newsgroup (their favourite), the rest anywhere. */
function userOps(labels: readonly string[]): Op[][] {
  const next = seededRandom(29);
  const byLabel = new Map<string, number[]>();
  labels.forEach((label, i) => byLabel.set(label, [...byLabel.get(label) ?? [], i]));
  const groups = [...byLabel.values()];
  const ops: Op[][] = [];
  for (let u = 0; u < USERS; u++) {
    const favourite = groups[Math.floor(next() * groups.length)]!;
    const chosen = new Set<number>();
    const count = 10 + Math.floor(next() * 11);
    while (chosen.size < count) chosen.add(next() < 0.8 ? favourite[Math.floor(next() * favourite.length)]! : Math.floor(next() * labels.length));
    ops.push([{ method: 'POST', url: `/users/u${u}` }, ...[...chosen].map((d) => ({ method: 'POST', url: `/users/u${u}/preferences/d${d}` }))]);
  }
  return ops;
}

/** `kindred train` on the stopped server's data directory (the hybrid model is not trained automatically). */
function trainHybrid(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'kindred'), 'train', '--key', KEY], {
      env: { ...process.env, KINDRED_DATA_DIR: dir, MONGODB_URI: '', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'],
    });
    live.add(child);
    child.once('exit', (code) => {
      live.delete(child);
      if (code === 0) resolve();
      else reject(new Error(`kindred train exited with ${code}`));
    });
  });
}

interface Health { indexing: Array<{ indexed: number; stored: number; refitting: boolean; refitDue?: boolean; approximate: string }> }

async function indexedDocuments(base: string): Promise<number> {
  const text = await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${ADMIN}` } }).then((r) => r.text(), () => '');
  return Number(/^kindred_index_documents\{[^}]*\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

/** Every document indexed (/metrics), nothing refitting or due to, the approximate index ready or off (/healthz), three polls in a row. */
async function waitReady(base: string, docs: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (let settled = 0; settled < 3;) {
    if (Date.now() > deadline) throw new Error(`not ready after ${READY_TIMEOUT_MS / 60_000} min`);
    // A request loads the key's indexes after a restart.
    await call(`${base}/documents/similar-to-text`, 'POST', { text: 'warm up', number: 1 }).catch(() => undefined);
    const health = await (await fetch(`${base}/healthz`)).json() as Health;
    const quiet = health.indexing.length > 0 &&
      health.indexing.every((e) => !e.refitting && !e.refitDue && (e.approximate === 'ready' || e.approximate === 'off') && e.indexed === e.stored);
    settled = quiet && (await indexedDocuments(base)) >= docs ? settled + 1 : 0;
    await new Promise((r) => setTimeout(r, 700));
  }
}

/** Until the served hybrid model recognises user u0 (bounded). */
async function waitHybrid(base: string): Promise<boolean> {
  for (let i = 0; i < 60; i++) {
    const answer = await call(`${base}/users/u0/recommendations?use_hybrid=true&number=1`, 'GET').catch(() => undefined) as
      { user_ids?: Array<{ recognised: boolean }> } | undefined;
    if (answer?.user_ids?.[0]?.recognised) return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

interface Prepared { kindred: KindredProcess; dir: string; kept: boolean; setup: string }

/** Starts the server on the size's data directory, ingesting (and adding users, tags, the hybrid model) unless a kept directory holds them. */
async function prepare(corpus: Corpus): Promise<Prepared> {
  const { dir, kept } = dataDirOf(corpus.size);
  const marker = path.join(dir, MARKER);
  const wanted = { docs: corpus.texts.length, users: corpus.withUsers ? USERS : 0 };
  const reused = fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === JSON.stringify(wanted);
  let setup = `reused the key in ${dir}`;
  if (!reused) {
    if (fs.existsSync(path.join(dir, 'lmdb'))) throw new Error(`${dir} holds other data: remove it or choose another directory`);
    const started = performance.now();
    const kindred = await launch(dir);
    try {
      await ingest(kindred.base, corpus.texts);
      if (corpus.labels) await tagAll(kindred.base, corpus.labels);
      if (corpus.withUsers && corpus.labels) await batches(kindred.base, userOps(corpus.labels), true);
      await waitReady(kindred.base, corpus.texts.length);
    } finally {
      await halt(kindred);
    }
    if (corpus.withUsers) await trainHybrid(dir);
    fs.writeFileSync(marker, JSON.stringify(wanted));
    setup = `ingested with POST /batch of 100 creates (4 in flight)${corpus.labels ? ', tagged' : ''}${corpus.withUsers ? ', users and preferences added, hybrid model trained' : ''}, ` +
      `every document indexed, in ${((performance.now() - started) / 1000).toFixed(0)} s${kept ? `; kept in ${dir}` : ''}`;
  }
  // Every run measures a server restarted on the stored key, whether ingested now or before: the same state, no upkeep pending.
  const restarted = performance.now();
  const kindred = await launch(dir);
  await waitReady(kindred.base, corpus.texts.length);
  if (corpus.withUsers) await waitHybrid(kindred.base);
  return { kindred, dir, kept, setup: `${setup}; restart → ready ${((performance.now() - restarted) / 1000).toFixed(1)} s` };
}

// ---------------------------------------------------------------- paths

interface Query { method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string }

interface PathSpec {
  name: string;
  label: string;
  bare?: boolean;
  /** Distinct queries: beyond it they repeat (reported). */
  distinct: number;
  query(i: number): Query;
  /** What a sound answer holds: undefined when it does. */
  check(body: unknown): string | undefined;
}

const v6Get = (p: string): Query => ({ method: 'GET', path: p, headers: { 'Subscription-Key': KEY } });
const v6Post = (p: string, body: unknown): Query =>
  ({ method: 'POST', path: p, headers: { 'Subscription-Key': KEY, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

/** The i-th of `count` base items asked with its variant: item (in a fixed shuffled order) and round. */
function variant(order: readonly number[], i: number): { item: number; round: number } {
  return { item: order[i % order.length]!, round: Math.floor(i / order.length) % VARIANTS };
}

const isList = (min: number) => (body: unknown) => (Array.isArray(body) && body.length >= min ? undefined : `expected a list of ≥ ${min}, got ${JSON.stringify(body).slice(0, 120)}`);

function pathSpecs(corpus: Corpus, texts: readonly string[], words: readonly string[]): PathSpec[] {
  const n = corpus.texts.length;
  const docs = shuffled(Array.from({ length: n }, (_, i) => i), 1);
  const queries = shuffled(Array.from({ length: texts.length }, (_, i) => i), 2);
  const users = shuffled(Array.from({ length: USERS }, (_, i) => i), 3);
  const w = words.length;
  return [
    {
      name: 'similar', label: 'GET /documents/:id/similar?number=10', distinct: n * VARIANTS, check: isList(10),
      query: (i) => { const { item, round } = variant(docs, i); return v6Get(`/documents/d${item}/similar?number=${10 + round}`); },
    },
    {
      name: 'text', label: `POST /documents/similar-to-text (${QUERY_CHARS} characters), number 10`, distinct: texts.length * VARIANTS, check: isList(10),
      query: (i) => { const { item, round } = variant(queries, i); return v6Post('/documents/similar-to-text', { text: texts[item], number: 10 + round }); },
    },
    {
      name: 'user-content', label: 'GET /users/:id/recommendations (content)', distinct: USERS * VARIANTS, check: isList(10),
      query: (i) => { const { item, round } = variant(users, i); return v6Get(`/users/u${item}/recommendations?number=${10 + round}`); },
    },
    {
      name: 'user-hybrid', label: 'GET /users/:id/recommendations?use_hybrid=true', distinct: USERS * VARIANTS,
      check: (body) => {
        const b = body as { results?: unknown[]; user_ids?: Array<{ recognised: boolean }> };
        return (b.results?.length ?? 0) >= 10 && b.user_ids?.[0]?.recognised ? undefined : `user not recognised or short answer: ${JSON.stringify(body).slice(0, 160)}`;
      },
      query: (i) => { const { item, round } = variant(users, i); return v6Get(`/users/u${item}/recommendations?use_hybrid=true&number=${10 + round}`); },
    },
    {
      name: 'keyword', label: 'POST /documents/by-keyword (match, two words, size 10)', distinct: w * (w - 1),
      check: (body) => ((body as { hits?: { hits?: unknown[] } }).hits?.hits?.length ? undefined : `no hits: ${JSON.stringify(body).slice(0, 160)}`),
      query: (i) => {
        const a = i % w;
        const b = (a + 1 + (Math.floor(i / w) % (w - 1))) % w;
        return v6Post('/documents/by-keyword', { es_query: { query: { match: { text: `${words[a]} ${words[b]}` } }, size: 10 } });
      },
    },
    {
      name: 'v1', label: 'v1 POST /v1/recommend-by-id/ (results 11: the document and 10 others)', distinct: n * VARIANTS, check: isList(11),
      query: (i) => {
        const { item, round } = variant(docs, i);
        return {
          method: 'POST', path: `/v1/recommend-by-id/?subscription-key=${KEY}`, headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ document_id: `d${item}`, results: String(11 + round) }).toString(),
        };
      },
    },
    {
      name: 'tags', label: 'GET /documents/:id/tags/suggested?number=10', distinct: n * VARIANTS,
      check: (body) => ((body as { results?: unknown[] }).results?.length ? undefined : `no suggestions: ${JSON.stringify(body).slice(0, 160)}`),
      query: (i) => { const { item, round } = variant(docs, i); return v6Get(`/documents/d${item}/tags/suggested?number=${10 + round}`); },
    },
    {
      name: 'read', label: 'GET /documents/:id', distinct: n,
      check: (body) => (typeof (body as { text?: unknown }).text === 'string' ? undefined : `not a document: ${JSON.stringify(body).slice(0, 120)}`),
      query: (i) => v6Get(`/documents/d${docs[i % n]}`),
    },
    {
      name: 'bare', label: 'bare Express GET /documents/:id (bench/bare-server.ts, the same answers from memory)', bare: true, distinct: n,
      check: (body) => (typeof (body as { text?: unknown }).text === 'string' ? undefined : 'not a document'),
      query: (i) => ({ method: 'GET', path: `/documents/d${docs[i % n]}`, headers: {} }),
    },
  ];
}

function selectedPaths(corpus: Corpus, all: PathSpec[]): PathSpec[] {
  const names = env.BENCH_PATHS ? list(env.BENCH_PATHS) : corpus.withUsers ? all.map((p) => p.name) : ['similar', 'text', 'read', 'bare'];
  for (const name of names) if (!all.some((p) => p.name === name)) throw new Error(`BENCH_PATHS: no path ${name}`);
  return all.filter((p) => names.includes(p.name) && (corpus.withUsers || !p.name.startsWith('user-')) && (corpus.labels || p.name !== 'tags'));
}

/** Queries a path's check asks, until one answers soundly; each asked must answer 2xx (a document that already carries its one tag rightly gets no suggestions). */
const CHECKED_QUERIES = 10;

async function checkPath(base: string, spec: PathSpec): Promise<string | undefined> {
  let unsound: string | undefined;
  for (let i = 0; i < CHECKED_QUERIES; i++) {
    const q = spec.query(i);
    try {
      const res = await fetch(`${base}${q.path}`, { method: q.method, headers: q.headers, body: q.body });
      const text = await res.text();
      if (res.status >= 300) return `${res.status} ${text.slice(0, 160)}`;
      unsound = spec.check(JSON.parse(text));
      if (unsound === undefined) return undefined;
    } catch (error) {
      return String(error);
    }
  }
  return `none of the first ${CHECKED_QUERIES} queries: ${unsound}`;
}

// ---------------------------------------------------------------- one cell

interface Cell {
  rps: number;
  p50: number;
  p99: number;
  failed: number;
  requests: number;
  /** CPU µs per request: the server's main thread, and every other thread of it. */
  mainUs: number;
  otherUs: number;
  /** Share of one core: the main thread, and the busiest other thread. */
  mainBusy: number;
  busiestOther: number;
  /** Share of the whole machine used by other processes than the server and this benchmark (autocannon included). */
  othersShare: number;
  clientShare: number;
  repeated: boolean;
}

interface Sample { at: number; server?: ThreadCpu; machine: { busy: number; total: number }; client: number }

function sample(pid: number): Sample {
  const u = process.cpuUsage();
  return { at: performance.now(), server: threadCpu(pid), machine: machineCpu(), client: (u.user + u.system) / 1e6 };
}

/** The monotonic clock in µs: the clock of V8's CPU profiles, so a --cpu-prof can be cut to a cell's window. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** The busiest thread other than the main one: its CPU seconds between two samples. */
function busiestOtherThread(pid: number, before: ThreadCpu, after: ThreadCpu): number {
  let most = 0;
  for (const [tid, cpu] of after.threads) if (tid !== pid) most = Math.max(most, cpu - (before.threads.get(tid) ?? 0));
  return most;
}

class Feed {
  private next = 0;
  constructor(readonly spec: PathSpec) {}
  take(): Query {
    return this.spec.query(this.next++);
  }
  get issued(): number {
    return this.next;
  }
}

function fire(url: string, feed: Feed, inFlight: number, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url, connections: inFlight, duration: seconds,
    requests: [{ setupRequest: (req) => ({ ...req, ...feed.take() }) }],
  });
}

interface Target { url: string; pid: number }

/** After a (re)start: pool threads decode the model, the JIT warms up; the first cell would pay for it (p99 ×10 seen). */
async function serverWarmUp(target: Target, feed: Feed): Promise<void> {
  if (WARMUP_SECONDS > 0) await fire(target.url, feed, JUDGED_IN_FLIGHT, 3 * WARMUP_SECONDS);
}

async function runCell(target: Target, feed: Feed, inFlight: number): Promise<Cell> {
  if (WARMUP_SECONDS > 0) await fire(target.url, feed, inFlight, WARMUP_SECONDS);
  const before = sample(target.pid);
  const window = monotonicUs();
  const result = await fire(target.url, feed, inFlight, SECONDS);
  console.error(`cell ${feed.spec.name}@${inFlight}: monotonic window ${window} ${monotonicUs()} µs`);
  const after = sample(target.pid);
  const wall = (after.at - before.at) / 1000;
  const total = Math.max(1, result.requests.total);
  const b = before.server;
  const a = after.server;
  const main = a && b ? a.main - b.main : NaN;
  const all = a && b ? a.total - b.total : NaN;
  const client = after.client - before.client;
  const machineBusy = after.machine.busy - before.machine.busy;
  const capacity = after.machine.total - before.machine.total;
  return {
    rps: result.requests.total / result.duration, p50: result.latency.p50, p99: result.latency.p99,
    failed: result.errors + result.non2xx, requests: result.requests.total,
    mainUs: (main * 1e6) / total, otherUs: ((all - main) * 1e6) / total,
    mainBusy: main / wall, busiestOther: a && b ? busiestOtherThread(target.pid, b, a) / wall : NaN,
    othersShare: Math.max(0, machineBusy - all - client) / capacity, clientShare: client / capacity,
    repeated: feed.issued > feed.spec.distinct,
  };
}

/** Per cell the median over rounds of each figure (failures summed, repeats if any round repeated). */
function medianCell(cells: Cell[]): Cell {
  const m = (f: (c: Cell) => number) => median(cells.map(f));
  return {
    rps: m((c) => c.rps), p50: m((c) => c.p50), p99: m((c) => c.p99), failed: cells.reduce((s, c) => s + c.failed, 0),
    requests: m((c) => c.requests), mainUs: m((c) => c.mainUs), otherUs: m((c) => c.otherUs), mainBusy: m((c) => c.mainBusy),
    busiestOther: m((c) => c.busiestOther), othersShare: m((c) => c.othersShare), clientShare: m((c) => c.clientShare),
    repeated: cells.some((c) => c.repeated),
  };
}

// ---------------------------------------------------------------- the in-process reference

interface InProcess { qps: number; candidatesUs: number; queryUs: number; rerankUs: number; queries: number; model: string }

/**
 * The similar query without HTTP, storage or threads, through the server's own calls: the same kind of model fitted
 * on the same texts (at most 30,000, as the server samples), an exact VectorIndex holding each document's terms,
 * an exact search for 800 candidates (the document excluded), their terms packed, the query's TF-IDF terms and the
 * second stage, all on this thread.
 */
async function inProcessSimilar(texts: readonly string[]): Promise<InProcess> {
  const model = fitModelSync(evenSample(texts, 30_000));
  const { vectors, dim, sparse } = embedBatch(model, texts, model.kind === 'word-vectors' ? loadWordVectors() : undefined);
  const second = model.kind === 'lsa' && usesSecondStage(serializeModel(model)) ? model as LsaModel : undefined;
  const index = new VectorIndex(dim, { approximate: false, initialRows: texts.length, terms: second !== undefined });
  for (let i = 0; i < texts.length; i++) index.upsert(`d${i}`, vectors.subarray(i * dim, (i + 1) * dim), second ? sparse[i] : undefined);
  const order = shuffled(Array.from({ length: texts.length }, (_, i) => i), 1);
  const spent = { candidates: 0, query: 0, rerank: 0 };
  let queries = 0;
  const started = performance.now();
  while (performance.now() - started < SECONDS * 1000 && queries < order.length) {
    const d = order[queries]!;
    const vector = vectors.subarray(d * dim, (d + 1) * dim);
    const exclude = new Set([`d${d}`]);
    const t0 = performance.now();
    if (second) {
      const hits = await index.search(vector, 800, { exclude });
      const rows = hits.map((h) => Number(h.id.slice(1)));
      const terms = packSparse(rows.map((r) => sparse[r]!));
      const candidateVectors = new Float32Array(rows.length * dim);
      rows.forEach((r, i) => candidateVectors.set(vectors.subarray(r * dim, (r + 1) * dim), i * dim));
      const t1 = performance.now();
      const query = combinedQuery(second, [texts[d]!]);
      const t2 = performance.now();
      const scores = rerankCandidates(query, terms, { denseScores: Float32Array.from(hits, (h) => h.score), candidateVectors });
      rankByScore(scores).slice(0, 10);
      spent.candidates += t1 - t0;
      spent.query += t2 - t1;
      spent.rerank += performance.now() - t2;
    } else {
      await index.search(vector, 10, { exclude });
      spent.candidates += performance.now() - t0;
    }
    queries++;
  }
  const seconds = (performance.now() - started) / 1000;
  index.close();
  const us = (ms: number) => (ms * 1000) / queries;
  return {
    qps: queries / seconds, candidatesUs: us(spent.candidates), queryUs: us(spent.query), rerankUs: us(spent.rerank), queries,
    model: `${model.kind}, dim ${dim}${second ? '' : ', no second stage'}`,
  };
}

// ---------------------------------------------------------------- the issue's figures

interface Judged { now: string; check?: (c: Cell) => boolean; required?: string }

/** Issue 29's figures at 8 in flight, by size and path. */
function judged(size: SizeName, path: string): Judged | undefined {
  const each800 = { now: 'not measured', required: '≥ 800 q/s', check: (c: Cell) => c.rps >= 800 };
  const table: Partial<Record<SizeName, Record<string, Judged>>> = {
    '5k': {
      similar: { now: '265–423 q/s, p50 11–29 ms, p99 54–67 ms', required: '≥ 1,200 q/s, p99 ≤ 20 ms', check: (c) => c.rps >= 1200 && c.p99 <= 20 },
      text: { now: '305 q/s, p50 24 ms, p99 55 ms', required: '≥ 800 q/s', check: (c) => c.rps >= 800 },
      'user-content': each800, 'user-hybrid': each800, keyword: each800, v1: each800,
    },
    '82k': { similar: { now: '341 q/s (4 in flight)', required: '≥ 1,000 q/s, p99 ≤ 25 ms', check: (c) => c.rps >= 1000 && c.p99 <= 25 } },
    '1m': { similar: { now: '315 q/s (4 in flight)', required: '≥ 600 q/s, p99 ≤ 25 ms', check: (c) => c.rps >= 600 && c.p99 <= 25 } },
  };
  return table[size]?.[path];
}

const tick = (ok: boolean | undefined) => (ok === undefined ? '' : ok ? '✔' : '✘');

// ---------------------------------------------------------------- the report

const lines: string[] = [];
const say = (line = '') => {
  lines.push(line);
  console.log(line);
};
const fixed = (x: number, digits = 0) => (Number.isFinite(x) ? x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '?');
const pct = (x: number) => `${fixed(x * 100)} %`;

function busiest(): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,pcpu,pmem,etime,args', '--sort=-pcpu'], { encoding: 'utf8' }).split('\n');
  return out.slice(1).map((l) => l.trim().replace(/\s+/g, ' ')).filter((l) => l && !/^\d+ \S+ \S+ \S+ ps /.test(l)).slice(0, 5).map((l) => l.slice(0, 110));
}

function loadAverage(): string {
  return os.loadavg().map((x) => x.toFixed(2)).join(' / ');
}

function matrixTable(size: SizeName, specs: PathSpec[], cells: Map<string, Cell>): void {
  say('| path | in flight | q/s | p50 ms | p99 ms | errors + non-2xx | main thread CPU µs/req | other threads CPU µs/req | main busy | busiest other thread | other processes (machine share) | issue now (8 in flight) | required | |');
  say('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const spec of specs) {
    for (const inFlight of IN_FLIGHT) {
      const c = cells.get(`${spec.name}@${inFlight}`);
      if (!c) continue;
      const j = inFlight === JUDGED_IN_FLIGHT ? judged(size, spec.name) : undefined;
      say(`| ${spec.label}${c.repeated ? ' (queries repeated)' : ''} | ${inFlight} | ${fixed(c.rps)} | ${fixed(c.p50, 1)} | ${fixed(c.p99, 1)} | ${c.failed} | ` +
        `${spec.bare ? '–' : fixed(c.mainUs)} | ${spec.bare ? '–' : fixed(c.otherUs)} | ${pct(c.mainBusy)} | ${pct(c.busiestOther)} | ${pct(c.othersShare)} | ` +
        `${j?.now ?? ''} | ${j?.required ?? ''} | ${tick(j?.check?.(c))} |`);
    }
  }
}

/** The issue's document-read ratio and main-thread CPU rows, from the matrix. */
function derivedRows(size: SizeName, cells: Map<string, Cell>): void {
  const at = (name: string) => cells.get(`${name}@${JUDGED_IN_FLIGHT}`);
  const read = at('read');
  const bare = at('bare');
  const similar = at('similar');
  if (!read && !similar) return;
  say('');
  say(`| issue 29 figure (${JUDGED_IN_FLIGHT} in flight) | now (issue) | this run | required | |`);
  say('|---|---|---|---|---|');
  if (read && bare) {
    const ratio = read.rps / bare.rps;
    const byCpu = IN_FLIGHT.map((f) => `${f}: ${fixed((cells.get(`read@${f}`)?.rps ?? NaN) / (cells.get(`bare@${f}`)?.rps ?? NaN), 2)}×`).join(', ');
    say(`| GET /documents/:id against the bare Express handler, same run | 0.68–0.83× | ${fixed(ratio, 2)}× (by in flight ${byCpu}) | ≥ 0.9× | ${tick(ratio >= 0.9)} |`);
  }
  if (similar) {
    say(`| main-thread CPU per similar query (${size} key) | ≈ 2 ms | ${fixed(similar.mainUs / 1000, 2)} ms (other threads ${fixed(similar.otherUs / 1000, 2)} ms) | ≤ 0.3 ms | ${tick(similar.mainUs <= 300)} |`);
  }
}

// ---------------------------------------------------------------- main

/** Runs every selected path at every in-flight count, ROUNDS times over (rounds outermost: noise spreads over all); the median cells. */
async function measurePaths(size: SizeName, specs: PathSpec[], feeds: Map<string, Feed>, targetOf: (spec: PathSpec) => Target): Promise<Map<string, Cell>> {
  const runs = new Map<string, Cell[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const spec of specs) {
      for (const inFlight of IN_FLIGHT) {
        const cell = await runCell(targetOf(spec), feeds.get(spec.name)!, inFlight);
        runs.set(`${spec.name}@${inFlight}`, [...runs.get(`${spec.name}@${inFlight}`) ?? [], cell]);
        console.error(`${size} round ${round + 1}/${ROUNDS} ${spec.name} @${inFlight}: ${cell.rps.toFixed(0)} q/s, p99 ${cell.p99} ms, main ${cell.mainUs.toFixed(0)} µs/req`);
      }
    }
  }
  return new Map([...runs].map(([k, v]) => [k, medianCell(v)]));
}

/**
 * Kindred's answers to GET /documents/d0…d{n-1}, written to a file for the bare server (bench/bare-server.ts): the
 * reference then writes the same bytes per request as Kindred does (20NG posts average several KB; a fixed small
 * document made the reference cheaper than the work compared with it).
 */
async function answersOf(base: string, n: number): Promise<string> {
  const answers: Array<[string, unknown]> = [];
  for (let start = 0; start < n; start += 16) {
    const ids = Array.from({ length: Math.min(16, n - start) }, (_, i) => `d${start + i}`);
    answers.push(...await Promise.all(ids.map(async (id): Promise<[string, unknown]> => {
      const res = await fetch(`${base}/documents/${id}`, { headers: { 'Subscription-Key': KEY } });
      if (!res.ok) throw new Error(`GET /documents/${id}: ${res.status}`);
      return [id, await res.json()];
    })));
  }
  const file = path.join(os.tmpdir(), `kindred-bare-${process.pid}.json`);
  fs.writeFileSync(file, JSON.stringify(answers));
  return file;
}

async function checkPaths(specs: PathSpec[], targetOf: (spec: PathSpec) => Target): Promise<string> {
  const problems: string[] = [];
  for (const spec of specs) {
    const problem = await checkPath(targetOf(spec).url, spec);
    if (problem) problems.push(`${spec.name}: ${problem}`);
  }
  return problems.length ? `**${problems.join('; ')}**` : `every path answered 2xx, with a full answer among its first ${CHECKED_QUERIES} queries`;
}

/**
 * BENCH_URL (and BENCH_SERVER_PID for the CPU columns): a server started by hand (e.g. under --cpu-prof) on a data
 * directory this benchmark prepared, serving the key `bench-throughput`; nothing is started, stopped or swept.
 */
function externalServer(): Target | undefined {
  return env.BENCH_URL ? { url: env.BENCH_URL.replace(/\/$/, ''), pid: Number(env.BENCH_SERVER_PID ?? NaN) } : undefined;
}

async function measureSize(size: SizeName, texts: readonly string[]): Promise<void> {
  const corpus = corpusOf(size);
  const external = externalServer();
  const prepared = external ? undefined : await prepare(corpus);
  let kindred = prepared?.kindred;
  let bare: Spawned | undefined;
  let bareDocuments: string | undefined;
  try {
    const specs = selectedPaths(corpus, pathSpecs(corpus, texts, keywordWords(corpus.texts)));
    const server = (): Target => external ?? { url: kindred!.base, pid: kindred!.child.pid! };
    if (specs.some((s) => s.bare)) {
      bareDocuments = await answersOf(server().url, corpus.texts.length);
      bare = await spawnServer(path.join(__dirname, 'bare-server.js'), { BARE_DOCUMENTS: bareDocuments });
      live.add(bare.child);
    }
    const targetOf = (spec: PathSpec): Target => (spec.bare ? { url: bare!.url, pid: bare!.child.pid! } : server());
    const checked = await checkPaths(specs, targetOf);
    const feeds = new Map(specs.map((s) => [s.name, new Feed(s)]));
    const first = specs.find((s) => !s.bare);
    if (first) await serverWarmUp(server(), feeds.get(first.name)!);
    const cells = await measurePaths(size, specs, feeds, targetOf);
    say(`### ${size} key: ${corpus.description}`);
    say('');
    say(`Setup: ${prepared?.setup ?? `a server already running at ${external!.url} (pid ${external!.pid})`}. Answers checked before timing: ${checked}.`);
    say('');
    matrixTable(size, specs, cells);
    derivedRows(size, cells);
    const similar = specs.find((s) => s.name === 'similar');
    if (WORKERS.length && prepared && kindred && similar) kindred = await workerSweep(corpus, prepared.dir, kindred, feeds.get('similar')!);
  } finally {
    if (kindred) await halt(kindred);
    if (bare) {
      await bare.stop();
      live.delete(bare.child);
    }
    if (bareDocuments) fs.rmSync(bareDocuments, { force: true });
    if (prepared && !prepared.kept) fs.rmSync(prepared.dir, { recursive: true, force: true });
  }
  if (IN_PROCESS.includes(size)) {
    const ref = await inProcessSimilar(corpus.texts);
    say('');
    say(`In-process reference (${external ? 'after the HTTP cells' : 'the server stopped'}; ${ref.model}; an exact VectorIndex: 800 candidates and their terms, ` +
      `the query's TF-IDF terms and the second stage on one thread, no HTTP, storage or pool): **${fixed(ref.qps)} similar queries/s** on one thread ` +
      `(${ref.queries} queries; per query ${fixed(ref.candidatesUs)} µs search and candidates, ${fixed(ref.queryUs)} µs query terms, ${fixed(ref.rerankUs)} µs second stage).`);
  }
  say('');
}

/** The similar path with KINDRED_WORKERS at each of BENCH_WORKERS, the server restarted on the same data; returns the server left running. */
async function workerSweep(corpus: Corpus, dir: string, running: KindredProcess, feed: Feed): Promise<KindredProcess> {
  let kindred = running;
  const rows: string[] = [];
  for (const workers of WORKERS) {
    await halt(kindred);
    kindred = await launch(dir, { KINDRED_WORKERS: String(workers) });
    await waitReady(kindred.base, corpus.texts.length);
    await serverWarmUp({ url: kindred.base, pid: kindred.child.pid! }, feed);
    const cells: string[] = [];
    for (const inFlight of IN_FLIGHT) {
      const c = await runCell({ url: kindred.base, pid: kindred.child.pid! }, feed, inFlight);
      cells.push(`${fixed(c.rps)} q/s, p99 ${fixed(c.p99, 1)} ms`);
      console.error(`${corpus.size} KINDRED_WORKERS=${workers} @${inFlight}: ${c.rps.toFixed(0)} q/s`);
    }
    rows.push(`| ${workers} | ${cells.join(' | ')} |`);
  }
  say('');
  say(`GET /documents/:id/similar against KINDRED_WORKERS (${corpus.size} key, ${os.cpus().length} cores; one round each, ${SECONDS} s per cell):`);
  say('');
  say(`| KINDRED_WORKERS | ${IN_FLIGHT.map((f) => `${f} in flight`).join(' | ')} |`);
  say(`|---|${IN_FLIGHT.map(() => '---').join('|')}|`);
  for (const row of rows) say(row);
  return kindred;
}

async function main(): Promise<void> {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
  const loadBefore = loadAverage();
  const psBefore = busiest();
  const texts = queryTexts();
  say(`## bench:throughput — ${new Date().toISOString().replace('T', ' ').slice(0, 16)} UTC, commit ${commit}${dirty ? ' (with uncommitted changes)' : ''}`);
  say('');
  say(`Command: \`npm run bench:throughput\` with BENCH_SIZES=${SIZES.join(',')} BENCH_INFLIGHT=${IN_FLIGHT.join(',')} BENCH_SECONDS=${SECONDS} ` +
    `BENCH_WARMUP_SECONDS=${WARMUP_SECONDS} BENCH_ROUNDS=${ROUNDS} BENCH_LOG_LEVEL=${LOG_LEVEL}${WORKERS.length ? ` BENCH_WORKERS=${WORKERS.join(',')}` : ''}` +
    `${env.BENCH_PATHS ? ` BENCH_PATHS=${env.BENCH_PATHS}` : ''}. ${os.cpus().length} cores, Node ${process.version}; KINDRED_WORKERS unset (one per core) outside the sweep.`);
  say('');
  say(`Each cell: autocannon (in this process, keep-alive) with that many requests in flight for ${SECONDS} s after ${WARMUP_SECONDS} s of warm-up ` +
    `(and ${3 * WARMUP_SECONDS} s of the first path at ${JUDGED_IN_FLIGHT} in flight after each server start); ` +
    `every request a different query (documents, held-out 20 Newsgroups test texts cut to ${QUERY_CHARS} characters, users and keyword pairs in a ` +
    `seeded order, each asked with number 10, 11, … on later passes); "(queries repeated)" marks a cell that ran out of distinct queries. CPU per ` +
    `request from /proc/<pid>/task: the main thread (tid = pid) and every other thread of the server (pool threads, libuv, V8). ` +
    `"main busy" and "busiest other thread" are shares of one core; "other processes" is the machine's CPU used by neither the server ` +
    `nor this benchmark. ${ROUNDS > 1 ? `Medians of ${ROUNDS} rounds.` : 'One round.'} The issue's figures are at ${JUDGED_IN_FLIGHT} in flight.`);
  say('');
  say(`Load average (1 / 5 / 15 min) before: ${loadBefore}. Busiest processes before (ps, CPU share over each one's lifetime):`);
  for (const l of psBefore) say(`    ${l}`);
  say('');
  for (const size of SIZES) await measureSize(size, texts);
  say(`Load average after: ${loadAverage()}. Busiest processes after:`);
  for (const l of busiest()) say(`    ${l}`);
  const out = env.BENCH_OUT ?? path.join(ROOT, 'bench', 'results', 'throughput.md');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${lines.join('\n')}\n`);
}

function stopAll(): void {
  for (const child of live) child.kill('SIGTERM');
}

process.once('SIGINT', () => {
  stopAll();
  process.exit(130);
});
process.once('SIGTERM', () => {
  stopAll();
  process.exit(143);
});

main().catch((error: unknown) => {
  console.error(error);
  stopAll();
  process.exit(1);
});
