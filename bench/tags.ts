/**
 * Tag suggestion quality and cost, in process (the fast loop; `npm run bench:quality` confirms through HTTP).
 *
 * 20 Newsgroups: every train post (header block stripped) tagged with its newsgroup; test texts as queries;
 * top-1 accuracy = share of queries whose first suggestion is their newsgroup. Reported on all non-empty test
 * posts and on the first 2,000 (what bench/quality-http.ts asks: the test file is sorted by group, so these are
 * the first six groups, five of them comp.*, the most confusable ones).
 *
 * Baseline: neighbour votes as the service cast them (the 30 nearest documents, each voting for its tags with
 * its similarity), with TF-IDF cosine neighbours standing in for the service's dense + rerank search (an
 * in-process stand-in; the HTTP bench measures the real one).
 *
 * `--http` runs the same protocol through the API instead (a server started from dist/, like bench:quality):
 * train posts ingested with POST /documents and tagged through POST /batch, every test text sent to
 * POST /tags/recommend-by-text (number 1) and, for the baseline in the same run, to POST
 * /documents/similar-to-text (number 30, fields tags), whose hits are voted exactly as the service did before
 * the tag model.
 *
 * `--event-loop` measures what learning taggings costs the server's event loop (a probe preloaded into the server,
 * bench/event-loop-probe.ts): BENCH_TAG_DOCUMENTS train posts (default 3,000, an even sample of the groups) are
 * ingested, then tagged with their group one write at a time (8 in flight): the event loop's longest delay and p99
 * during the writes, the main thread's CPU per write (/proc); then the server restarts on the same data and loads
 * the key (its snapshots restored, the tagged texts learnt again): the same delays until it is ready, and a client's
 * /healthz answered meanwhile (every 10 ms). Suggestions for 50 test texts are compared before and after the restart.
 * BENCH_TAG_SERVERS=label=path/to/server.js,... measures other builds in the same run (e.g. main's), in that order.
 *
 *   node dist/bench/tags.js [--latency-only | --http | --event-loop]     (BENCH_TAG_QUERIES limits the --http queries)
 */
import { TagModel, type TagScore } from '../src/index/tag-model';
import { analyze, countTerms } from '../src/text';
import { analysedText, termCountsOf, termCountsOfMany } from '../src/text/term-counts-task';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LoopDelays } from './event-loop-probe';
import {
  apiCaller, freePort, inParallel, machineCpu, median, peakRssMb, SERVER_ENTRY, startKindred, loadNewsgroups, threadCpu, type NewsgroupPost,
} from './support';

const NEIGHBOURS = 30;
const FIRST = 2000;


/** Sublinear-tf TF-IDF, L2-normalised, over an inverted index: the neighbour search stand-in. */
class TfidfNeighbours {
  private readonly vocabulary = new Map<string, number>();
  private idf: Float64Array = new Float64Array(0);
  private postings: Array<Array<[number, number]>> = [];

  constructor(private readonly docs: readonly NewsgroupPost[]) {
    const bags = docs.map((d) => countTerms(analyze(d.text).terms));
    const df: number[] = [];
    for (const bag of bags) {
      for (const term of bag.keys()) {
        let id = this.vocabulary.get(term);
        if (id === undefined) this.vocabulary.set(term, (id = df.length)), df.push(0);
        df[id]++;
      }
    }
    this.idf = Float64Array.from(df, (n) => Math.log((1 + docs.length) / (1 + n)) + 1);
    this.postings = df.map(() => []);
    bags.forEach((bag, row) => {
      for (const [id, w] of this.vector(bag)) this.postings[id]!.push([row, w]);
    });
  }

  private vector(bag: Map<string, number>): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    let norm = 0;
    for (const [term, count] of bag) {
      const id = this.vocabulary.get(term);
      if (id === undefined) continue;
      const w = (1 + Math.log(count)) * this.idf[id]!;
      out.push([id, w]);
      norm += w * w;
    }
    norm = Math.sqrt(norm) || 1;
    return out.map(([id, w]) => [id, w / norm]);
  }

  nearest(text: string, k: number): Array<{ row: number; similarity: number }> {
    const scores = new Float64Array(this.docs.length);
    for (const [id, w] of this.vector(countTerms(analyze(text).terms))) for (const [row, x] of this.postings[id]!) scores[row] += w * x;
    // Keeps the k best in a sorted array (k is small): no sort of every row.
    const best: Array<{ row: number; similarity: number }> = [];
    for (let row = 0; row < scores.length; row++) {
      const s = scores[row]!;
      if (s <= 0 || (best.length === k && s <= best[k - 1]!.similarity)) continue;
      let p = best.length === k ? k - 1 : best.length;
      if (best.length < k) best.push({ row, similarity: s });
      while (p > 0 && best[p - 1]!.similarity < s) best[p] = best[--p]!;
      best[p] = { row, similarity: s };
    }
    return best;
  }
}

/** The service's vote: tags of the neighbours weighted by similarity, divided by the tagged neighbours' total. */
function neighbourVotes(neighbours: Array<{ row: number; similarity: number }>, train: readonly NewsgroupPost[]): Map<string, number> {
  const votes = new Map<string, number>();
  let total = 0;
  for (const n of neighbours) {
    total += n.similarity;
    const tag = train[n.row]!.label;
    votes.set(tag, (votes.get(tag) ?? 0) + n.similarity);
  }
  for (const [tag, v] of votes) votes.set(tag, v / (total || 1));
  return votes;
}

function top(scores: Map<string, number>): string | undefined {
  let best: string | undefined;
  let bestScore = -Infinity;
  for (const [tag, s] of scores) if (s > bestScore || (s === bestScore && best !== undefined && tag < best)) (best = tag), (bestScore = s);
  return best;
}

function blend(model: TagScore[], votes: Map<string, number>, w: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const [tag, v] of votes) out.set(tag, (1 - w) * v);
  for (const s of model) out.set(s.tag, (out.get(s.tag) ?? 0) + w * s.probability);
  return out;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** A document learnt in process as the service learns it (its text analysed as a pool thread does, then learnt). */
function sync(model: TagModel, id: string, text: string, tags: readonly string[]): void {
  model.learn(id, analysedText(termCountsOfMany({ texts: [text], languages: model.languageCounts(id) }), 0), tags);
}

/** The model's scores for a text analysed as the service does (in its documents' main language when too short to tell). */
function score(model: TagModel, text: string, limit?: number): TagScore[] {
  const analysed = termCountsOf(model.languageHint === undefined ? { text } : { text, hint: model.languageHint });
  return model.scoreTerms(analysed, limit);
}

function train(model: TagModel, posts: readonly NewsgroupPost[], tagsOf: (p: NewsgroupPost, i: number) => string[]): void {
  posts.forEach((p, i) => sync(model, p.id, p.text, tagsOf(p, i)));
}

/**
 * Learns posts as the service does at a key's load: 64 texts analysed in one pool task, then learnt on the event
 * loop. CPU milliseconds a document of each part.
 */
function trainInTasks(model: TagModel, posts: readonly NewsgroupPost[], tagsOf: (p: NewsgroupPost, i: number) => string[]): { analyseMs: number; learnMs: number } {
  let analyse = 0;
  let learn = 0;
  for (let start = 0; start < posts.length; start += 64) {
    const chunk = posts.slice(start, start + 64);
    let cpu = process.cpuUsage();
    const many = termCountsOfMany({ texts: chunk.map((p) => p.text), languages: model.languageCounts(chunk[0]!.id) });
    analyse += process.cpuUsage(cpu).user;
    cpu = process.cpuUsage();
    chunk.forEach((p, k) => {
      if (!model.learn(p.id, analysedText(many, k), tagsOf(p, start + k))) throw new Error(`${p.id}: analysed with another hint`);
    });
    learn += process.cpuUsage(cpu).user;
  }
  return { analyseMs: analyse / 1000 / posts.length, learnMs: learn / 1000 / posts.length };
}

function heapMb(): number {
  global.gc?.();
  return process.memoryUsage().heapUsed / 1e6;
}

function latency(trainPosts: readonly NewsgroupPost[], test: readonly NewsgroupPost[]): void {
  // 1,000 tags: each post carries its newsgroup's sub-tag `<group>/<i mod 50>` (≈ 11 posts a tag) and its
  // newsgroup (so 1,020 tags, two per post); queries are test texts cut or repeated to 300 words.
  const before = heapMb();
  const model = new TagModel();
  const started = performance.now();
  const build = trainInTasks(model, trainPosts, (p, i) => [`${p.label}/${i % 50}`, p.label]);
  const buildMs = performance.now() - started;
  const after = heapMb();
  // A tagging added to a tenth of the documents: each re-sync subtracts the old vector and adds the new one.
  const retagCpu = process.cpuUsage();
  const retagged = trainPosts.filter((_, i) => i % 10 === 0);
  retagged.forEach((p, i) => sync(model, p.id, p.text, [`${p.label}/${(i * 10) % 50}`, p.label, 'extra']));
  const retagCpuMs = process.cpuUsage(retagCpu).user / 1000 / retagged.length;
  retagged.forEach((p, i) => sync(model, p.id, p.text, [`${p.label}/${(i * 10) % 50}`, p.label]));
  const queries = test.slice(0, 1000).map((p) => {
    const words = p.text.split(/\s+/).filter(Boolean);
    const out: string[] = [];
    while (out.length < 300 && words.length) out.push(...words.slice(0, 300 - out.length));
    return out.join(' ');
  });
  // First pass: cold (each term's weights cached on first use after a write); then warm passes.
  const coldCpu = process.cpuUsage();
  // The service asks for the top `number + voted tags` (10 + up to 30 by default) and the voted tags.
  const limit = 40;
  for (const q of queries) score(model, q, limit);
  const coldMs = process.cpuUsage(coldCpu).user / 1000 / queries.length;
  const times: number[] = [];
  const cpuPerPass: number[] = [];
  for (let pass = 0; pass < 3; pass++) {
    const cpu = process.cpuUsage();
    for (const q of queries) {
      const t0 = performance.now();
      score(model, q, limit);
      times.push(performance.now() - t0);
    }
    cpuPerPass.push(process.cpuUsage(cpu).user / 1000 / queries.length);
  }
  times.sort((a, b) => a - b);
  cpuPerPass.sort((a, b) => a - b);
  const est = model.memoryEstimate();
  console.log(`latency: ${model.tagCount} tags, ${model.documentCount} documents (2 tags each), ${model.vocabularySize} terms, ` +
    `${est.postings} (term, tag) pairs; build ${buildMs.toFixed(0)} ms wall, CPU a document ${build.analyseMs.toFixed(3)} ms analysing (a pool thread's, ` +
    `64 texts a task) + ${build.learnMs.toFixed(3)} ms learning (the event loop's); ` +
    `re-sync after a tagging ${retagCpuMs.toFixed(3)} ms CPU a document`);
  console.log(`  score(300-word text, top ${limit}), ${queries.length} queries × 3 passes, wall: p50 ${quantile(times, 0.5).toFixed(3)} ms, p99 ${quantile(times, 0.99).toFixed(3)} ms, ` +
    `mean ${(times.reduce((a, b) => a + b, 0) / times.length).toFixed(3)} ms; CPU per query (median pass) ${cpuPerPass[1]!.toFixed(3)} ms, ` +
    `first pass after the build (weights cached on first use) ${coldMs.toFixed(3)} ms`);
  console.log(`  heap held by the model: ${(after - before).toFixed(1)} MB measured${global.gc ? '' : ' (run with --expose-gc for a clean figure)'}, ` +
    `${(est.bytes / 1e6).toFixed(1)} MB estimated (features ${est.features})`);
}

/** Adds everything, removes and re-adds half (some under another tag first): scores must equal a fresh model's. */
function incrementalCheck(trainPosts: readonly NewsgroupPost[], test: readonly NewsgroupPost[]): void {
  const sample = trainPosts.filter((_, i) => i % 4 === 0);
  const fresh = new TagModel();
  train(fresh, sample, (p) => [p.label]);
  const churned = new TagModel();
  train(churned, sample, (p, i) => (i % 2 ? ['scratch', p.label] : [p.label]));
  sample.forEach((p, i) => {
    if (i % 3 === 0) churned.removeDocument(p.id);
    else if (i % 2) sync(churned, p.id, `${p.text} extra words`, [p.label]);
  });
  train(churned, sample, (p) => [p.label]);
  let maxDiff = 0;
  for (const q of test.slice(0, 200)) {
    const a = new Map(score(fresh, q.text).map((s) => [s.tag, s.probability]));
    for (const s of score(churned, q.text)) maxDiff = Math.max(maxDiff, Math.abs(s.probability - (a.get(s.tag) ?? 0)));
  }
  console.log(`incremental check: after churn ${churned.tagCount} tags (fresh ${fresh.tagCount}), vocabulary ${churned.vocabularySize} (fresh ${fresh.vocabularySize}), ` +
    `max |Δ probability| over 200 queries ${maxDiff.toExponential(2)}`);
}

async function http(trainPosts: readonly NewsgroupPost[], test: readonly NewsgroupPost[]): Promise<void> {
  const key = 'bench-tags';
  const call = apiCaller(key);
  const tagOf = (label: string) => label.replace(/\./g, '_');
  const limit = Number(process.env.BENCH_TAG_QUERIES ?? test.length);
  // An even sample when limited, so every group is in it.
  const queries = limit >= test.length ? test : Array.from({ length: limit }, (_, i) => test[Math.floor((i * test.length) / limit)]!);
  const kindred = await startKindred(key, { KINDRED_REFIT_GROWTH: '1.3' });
  const { base, child } = kindred;
  try {
    const t0 = Date.now();
    await inParallel([...trainPosts], 32, (p) => call(`${base}/documents/${p.id}`, 'POST', { text: p.text }));
    const last = trainPosts[trainPosts.length - 1]!;
    for (;;) {
      const hits = await call(`${base}/documents/similar-to-text`, 'POST', { text: last.text, number: 1 }) as Array<{ id: string }>;
      if (hits[0]?.id === last.id) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const batches: NewsgroupPost[][] = [];
    for (let i = 0; i < trainPosts.length; i += 100) batches.push(trainPosts.slice(i, i + 100));
    const tagStart = Date.now();
    await inParallel(batches, 4, (batch) => call(`${base}/batch`, 'POST', {
      sequential: false,
      ops: batch.map((p) => ({ method: 'POST', url: `/documents/${p.id}/tags/${tagOf(p.label)}`, headers: { 'Subscription-Key': key } })),
    }));
    const tagSeconds = (Date.now() - tagStart) / 1000;
    console.log(`(ingest and index ${((tagStart - t0) / 1000).toFixed(0)} s, tagging ${tagSeconds.toFixed(1)} s = ${(trainPosts.length / tagSeconds).toFixed(0)} taggings/s through /batch)`);
    const suggested: Array<string | undefined> = new Array(queries.length);
    const voted: Array<string | undefined> = new Array(queries.length);
    const latencies: number[] = [];
    const started = Date.now();
    await inParallel([...queries], 4, async (q, i) => {
      const t = performance.now();
      const res = await call(`${base}/tags/recommend-by-text`, 'POST', { text: q.text, number: 1 }) as { results: Array<{ id: string }> };
      latencies.push(performance.now() - t);
      suggested[i] = res.results[0]?.id;
      const hits = await call(`${base}/documents/similar-to-text`, 'POST', { text: q.text, number: NEIGHBOURS, fields: 'tags' }) as Array<{ similarity: number; tags: string[] }>;
      const votes = new Map<string, number>();
      for (const h of hits) for (const tag of h.tags) votes.set(tag, (votes.get(tag) ?? 0) + h.similarity);
      voted[i] = top(votes);
    });
    const seconds = (Date.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const firstN = queries === test ? Math.min(FIRST, queries.length) : 0;
    const accuracy = (predicted: Array<string | undefined>, n: number) => predicted.slice(0, n).filter((p, i) => p === tagOf(queries[i]!.label)).length / n;
    console.log('');
    console.log(`| through HTTP | top-1, ${queries === test ? 'all' : 'even sample of'} ${queries.length} |${firstN ? ` top-1, first ${firstN} |` : ''}`);
    console.log(`|---|---|${firstN ? '---|' : ''}`);
    console.log(`| neighbour votes (similar-to-text top-${NEIGHBOURS}, voted client-side) | ${accuracy(voted, queries.length).toFixed(4)} |${firstN ? ` ${accuracy(voted, firstN).toFixed(4)} |` : ''}`);
    console.log(`| POST /tags/recommend-by-text (model + votes) | ${accuracy(suggested, queries.length).toFixed(4)} |${firstN ? ` ${accuracy(suggested, firstN).toFixed(4)} |` : ''}`);
    console.log('');
    console.log(`recommend-by-text latency (4 in flight, alternating with similar-to-text): p50 ${median(latencies).toFixed(1)} ms, ` +
      `p99 ${latencies[Math.floor(latencies.length * 0.99)]!.toFixed(1)} ms; ${queries.length} query pairs in ${seconds.toFixed(0)} s; ` +
      `server peak RSS ${peakRssMb(child.pid!)?.toFixed(0) ?? '?'} MB`);
  } finally {
    kindred.stop();
  }
}

const PROBE = path.join(__dirname, 'event-loop-probe.js');

interface ProbedServer {
  base: string;
  child: ChildProcess;
  /** The event loop's delays since the last call (or the start). */
  delays(): Promise<LoopDelays>;
  stop(): Promise<void>;
}

/** A server from `entry` on `dataDir`, the probe preloaded; resolves once it answers /healthz (any status). */
async function startProbed(entry: string, dataDir: string, key: string): Promise<ProbedServer> {
  const port = await freePort();
  const probeFile = path.join(dataDir, `loop-${port}.json`);
  const child = spawn(process.execPath, ['--require', PROBE, entry], {
    env: {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', KINDRED_DATA_DIR: dataDir, KINDRED_API_KEYS: key, LOG_LEVEL: 'warn', MONGODB_URI: '',
      KINDRED_CACHE_DIR: process.env.KINDRED_CACHE_DIR ?? path.join(os.tmpdir(), 'kindred-test-cache'), BENCH_LOOP_PROBE_FILE: probeFile,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${entry} exited: ${child.exitCode}`);
    try {
      await fetch(`${base}/healthz`);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  return {
    base,
    child,
    async delays() {
      fs.rmSync(probeFile, { force: true });
      child.kill('SIGUSR2');
      while (!fs.existsSync(probeFile)) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 10));
      return JSON.parse(fs.readFileSync(probeFile, 'utf8')) as LoopDelays;
    },
    stop: () => new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

/** Polls /healthz every `everyMs` until it answers 200: the answers' longest and p99 wait, and the seconds until ready. */
async function healthUntilReady(base: string, everyMs = 10): Promise<{ maxMs: number; p99Ms: number; readySeconds: number }> {
  const started = performance.now();
  const waits: number[] = [];
  for (;;) {
    const t = performance.now();
    const res = await fetch(`${base}/healthz`);
    await res.arrayBuffer();
    waits.push(performance.now() - t);
    if (res.status === 200) break;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  waits.sort((a, b) => a - b);
  return { maxMs: waits[waits.length - 1]!, p99Ms: quantile(waits, 0.99), readySeconds: (performance.now() - started) / 1000 };
}

const formatDelays = (d: LoopDelays) => `max ${d.maxMs.toFixed(1)} ms, p99 ${d.p99Ms.toFixed(2)} ms, p99.9 ${d.p999Ms.toFixed(1)} ms, mean ${d.meanMs.toFixed(2)} ms`;

async function eventLoop(trainPosts: readonly NewsgroupPost[], test: readonly NewsgroupPost[]): Promise<void> {
  const key = 'bench-tag-loop';
  const call = apiCaller(key);
  const tagOf = (label: string) => label.replace(/\./g, '_');
  const size = Math.min(trainPosts.length, Number(process.env.BENCH_TAG_DOCUMENTS ?? 3000));
  const posts = Array.from({ length: size }, (_, i) => trainPosts[Math.floor((i * trainPosts.length) / size)]!);
  const queries = Array.from({ length: 50 }, (_, i) => test[Math.floor((i * test.length) / 50)]!.text);
  const servers = (process.env.BENCH_TAG_SERVERS ?? `this build=${SERVER_ENTRY}`).split(',').map((s) => s.split('=') as [string, string]);
  console.log(`event loop while taggings are learnt: ${size} train posts (an even sample), each tagged with its group by its own write (8 in flight); ` +
    `restart on the same data; machine: ${os.availableParallelism()} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at the start`);
  console.log('');
  console.log('| server | tagging writes: event loop | main-thread CPU a write | writes/s | restart until ready: event loop | /healthz while loading: longest, p99 | ready after | suggestions after restart: same top-3 / max abs(Δ score) |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [label, entry] of servers) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-bench-loop-'));
    const machine0 = machineCpu();
    let server = await startProbed(entry, dataDir, key);
    try {
      await healthUntilReady(server.base);
      await inParallel([...posts], 16, (p) => call(`${server.base}/documents/${p.id}`, 'POST', { text: p.text }));
      const last = posts[posts.length - 1]!;
      for (;;) {
        const hits = await call(`${server.base}/documents/similar-to-text`, 'POST', { text: last.text, number: 1 }) as Array<{ id: string }>;
        if (hits[0]?.id === last.id) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      // Settled: no refit or index build under way when the writes start.
      await new Promise((r) => setTimeout(r, 3000));
      await server.delays();
      const cpu0 = threadCpu(server.child.pid!)!;
      const t0 = performance.now();
      await inParallel([...posts], 8, (p) => call(`${server.base}/documents/${p.id}/tags/${tagOf(p.label)}`, 'POST'));
      // A suggestion waits for every write told so far to be learnt.
      await call(`${server.base}/tags/recommend-by-text`, 'POST', { text: queries[0], number: 3 });
      const writeSeconds = (performance.now() - t0) / 1000;
      const cpu1 = threadCpu(server.child.pid!)!;
      const writes = await server.delays();
      const suggest = (base: string) => Promise.all(queries.map((text) => call(`${base}/tags/recommend-by-text`, 'POST', { text, number: 3 }) as Promise<{ results: Array<{ id: string; score: number }> }>));
      const before = await suggest(server.base);
      await server.stop();
      server = await startProbed(entry, dataDir, key);
      const health = await healthUntilReady(server.base);
      const restart = await server.delays();
      const after = await suggest(server.base);
      let same = 0;
      let maxDiff = 0;
      before.forEach((b, i) => {
        const a = after[i]!.results;
        if (a.map((r) => r.id).join() === b.results.map((r) => r.id).join()) same++;
        b.results.forEach((r, k) => (maxDiff = Math.max(maxDiff, Math.abs(r.score - (a[k]?.score ?? 0)))));
      });
      const mainMs = ((cpu1.main - cpu0.main) * 1000) / posts.length;
      console.log(`| ${label} | ${formatDelays(writes)} | ${mainMs.toFixed(3)} ms (all threads ${(((cpu1.total - cpu0.total) * 1000) / posts.length).toFixed(3)} ms) | ` +
        `${(posts.length / writeSeconds).toFixed(0)} | ${formatDelays(restart)} | ${health.maxMs.toFixed(1)} ms, ${health.p99Ms.toFixed(1)} ms | ${health.readySeconds.toFixed(1)} s | ` +
        `${same}/${queries.length}, ${maxDiff.toExponential(1)} |`);
    } finally {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    const machine1 = machineCpu();
    console.error(`(${label}: machine busy ${(((machine1.busy - machine0.busy) / (machine1.total - machine0.total)) * 100).toFixed(0)} % of all cores during its run)`);
  }
}

function main(): void {
  const trainPosts = loadNewsgroups('train');
  const test = loadNewsgroups('test').filter((p) => p.text.trim() !== '');
  const firstN = Math.min(FIRST, test.length);
  console.log(`## bench:tags — ${new Date().toISOString()}`);
  console.log(`20 Newsgroups: ${trainPosts.length} train posts tagged with their group, ${test.length} test posts as queries (first ${firstN} as in bench:quality)`);
  if (process.argv.includes('--event-loop')) {
    eventLoop(trainPosts, test).catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
    return;
  }
  if (process.argv.includes('--http')) {
    http(trainPosts, test).catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
    return;
  }
  if (!process.argv.includes('--latency-only')) {
    const t0 = performance.now();
    const neighbours = new TfidfNeighbours(trainPosts);
    const votes = test.map((q) => neighbourVotes(neighbours.nearest(q.text, NEIGHBOURS), trainPosts));
    const voteMs = performance.now() - t0;
    const rows: Array<[string, Array<string | undefined>]> = [[`neighbour votes, TF-IDF top-${NEIGHBOURS} (baseline)`, votes.map(top)]];
    const models = new Map<number, TagScore[][]>();
    for (const alpha of [0.01, 0.1, 0.3, 1]) {
      const m = new TagModel({ alpha, temperature: 0.1 });
      train(m, trainPosts, (p) => [p.label]);
      const s0 = performance.now();
      const scores = test.map((q) => score(m, q.text));
      const ms = (performance.now() - s0) / test.length;
      models.set(alpha, scores);
      rows.push([`complement NB, α=${alpha} (${ms.toFixed(3)} ms/query)`, scores.map((s) => s[0]?.tag)]);
    }
    for (const temperature of [0.05, 0.1, 0.2]) {
      const m = new TagModel({ alpha: 0.1, temperature });
      train(m, trainPosts, (p) => [p.label]);
      const scores = temperature === 0.1 ? models.get(0.1)! : test.map((q) => score(m, q.text));
      for (const w of [0.3, 0.5, 0.6, 0.7]) {
        rows.push([`blend w·CNB(α=0.1, T=${temperature}) + (1−w)·votes, w=${w}`, scores.map((s, i) => top(blend(s, votes[i]!, w)))]);
      }
    }
    console.log(`(neighbour stand-in: index + ${test.length} queries ${(voteMs / 1000).toFixed(1)} s)`);
    console.log('');
    console.log(`| variant | top-1, all ${test.length} | top-1, first ${firstN} |`);
    console.log('|---|---|---|');
    for (const [name, predicted] of rows) {
      const all = predicted.filter((p, i) => p === test[i]!.label).length / test.length;
      const first = predicted.slice(0, firstN).filter((p, i) => p === test[i]!.label).length / firstN;
      console.log(`| ${name} | ${all.toFixed(4)} | ${first.toFixed(4)} |`);
    }
    console.log('');
    incrementalCheck(trainPosts, test);
  }
  latency(trainPosts, test);
}

main();
