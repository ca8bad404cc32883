/**
 * bench:hybrid — MovieLens-100k quality (popularity vs plain ALS vs the hybrid blend, same split, same run), the
 * blend-weight search on a validation split carved from the training data, a cold-start check, and training speed
 * (ML-100k and a generated 10M-interaction set, 64 factors, 2 worker threads) with peak RSS.
 * Usage: node dist/bench/hybrid.js [quality|serving|speed|grid|all]   (default all)
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildCsr, type Csr } from '../src/models/als/csr';
import { Rng } from '../src/random';
import { trainAls, type AlsParams, DEFAULT_ALS_PARAMS, type IterationReport } from '../src/models/als/train';
import { PoolExecutor } from '../src/models/als/executor';
import { MetricsAccumulator, pairsFromLists, splitPerUser, type RankingMetrics } from '../src/models/hybrid/evaluate';
import { HybridRecommender } from '../src/models/hybrid/recommender';
import type { BlendWeights } from '../src/models/hybrid/scoring';
import { topK } from '../src/models/hybrid/topk';
import { DEFAULT_HYBRID_PARAMS, trainHybrid, type ContentVectors, type Interactions } from '../src/models/hybrid/train';
import type { HybridParams } from '../src/models/hybrid/model';
import { WorkerPool } from '../src/pool';

const DATA = process.env.ML100K_DIR ?? path.join(__dirname, '..', '..', '..', 'shared', 'data', 'movielens-100k');
const SPLIT_SEED = 1;
const VALIDATION_SEED = 2;
const VALIDATION_SEEDS = [2, 3, 4];

interface MovieLens {
  nUsers: number;
  nItems: number;
  itemsByUser: Int32Array[];
  /** 19 genre flags per movie, L2-normalised: the stand-in "content embedding" (MovieLens has no text). */
  genres: Float32Array;
}

const GENRES = 19;

function loadMovieLens(dir: string): MovieLens {
  const lines = fs.readFileSync(path.join(dir, 'u.data'), 'utf8').trim().split('\n');
  const byUser = new Map<number, number[]>();
  let nUsers = 0;
  let nItems = 0;
  for (const line of lines) {
    const [u, i] = line.split('\t').map(Number);
    const list = byUser.get(u - 1) ?? [];
    list.push(i - 1);
    byUser.set(u - 1, list);
    nUsers = Math.max(nUsers, u);
    nItems = Math.max(nItems, i);
  }
  const itemsByUser: Int32Array[] = [];
  for (let u = 0; u < nUsers; u++) itemsByUser.push(Int32Array.from(byUser.get(u) ?? []).sort());
  const genres = new Float32Array(nItems * GENRES);
  for (const line of fs.readFileSync(path.join(dir, 'u.item'), 'latin1').trim().split('\n')) {
    const f = line.split('|');
    const i = Number(f[0]) - 1;
    const flags = f.slice(5, 5 + GENRES).map(Number);
    const norm = Math.sqrt(flags.reduce((s, v) => s + v * v, 0)) || 1;
    flags.forEach((v, g) => (genres[i * GENRES + g] = v / norm));
  }
  return { nUsers, nItems, itemsByUser, genres };
}

function toCsr(itemsByUser: Int32Array[], nItems: number): Csr {
  const t = toInteractions(itemsByUser, nItems);
  return buildCsr({ rows: t.users, cols: t.items, values: new Float32Array(t.users.length).fill(1) }, itemsByUser.length, nItems);
}

/** Ids are "u<index>" / "m<index>"; every item id is listed so model indices equal MovieLens indices. */
function toInteractions(itemsByUser: Int32Array[], nItems: number): Interactions {
  const { users, items } = pairsFromLists(itemsByUser);
  return {
    userIds: itemsByUser.map((_, u) => `u${u}`),
    itemIds: Array.from({ length: nItems }, (_, i) => `m${i}`),
    users,
    items,
  };
}

function genreContent(ml: MovieLens, items?: number[]): ContentVectors {
  const list = items ?? Array.from({ length: ml.nItems }, (_, i) => i);
  const vectors = new Float32Array(list.length * GENRES);
  list.forEach((i, r) => vectors.set(ml.genres.subarray(i * GENRES, (i + 1) * GENRES), r * GENRES));
  return { ids: list.map((i) => `m${i}`), vectors, dim: GENRES };
}

function evaluateScores(train: Int32Array[], test: Int32Array[], nItems: number, score: (u: number, out: Float64Array) => void): RankingMetrics {
  const acc = new MetricsAccumulator(10);
  const scores = new Float64Array(nItems);
  const skip = new Uint8Array(nItems);
  for (let u = 0; u < train.length; u++) {
    if (test[u].length === 0) continue;
    score(u, scores);
    skip.fill(0);
    for (const i of train[u]) skip[i] = 1;
    acc.add(topK(scores, 10, skip), new Set(test[u]));
  }
  return acc.result();
}

function popularityMetrics(train: Int32Array[], test: Int32Array[], nItems: number): RankingMetrics {
  const counts = new Float64Array(nItems);
  for (const l of train) for (const i of l) counts[i]++;
  return evaluateScores(train, test, nItems, (_u, out) => out.set(counts));
}

async function plainAlsMetrics(train: Int32Array[], test: Int32Array[], nItems: number, p: AlsParams): Promise<RankingMetrics> {
  const f = await trainAls(toCsr(train, nItems), p);
  const k = p.factors;
  return evaluateScores(train, test, nItems, (u, out) => {
    for (let i = 0; i < nItems; i++) {
      let s = 0;
      for (let a = 0; a < k; a++) s += f.userFactors[u * k + a] * f.itemFactors[i * k + a];
      out[i] = s;
    }
  });
}

/** Through the serving API: string ids, unseen_only exclusion done by the recommender itself. */
async function recommenderMetrics(rec: HybridRecommender, train: Int32Array[], test: Int32Array[]): Promise<RankingMetrics> {
  const acc = new MetricsAccumulator(10);
  for (let u = 0; u < train.length; u++) {
    if (test[u].length === 0) continue;
    const ans = await rec.recommendForUser({ userId: `u${u}`, number: 10 });
    acc.add(ans.results.map((r) => Number(r.id.slice(1))), new Set(test[u]));
  }
  return acc.result();
}

function fmt(m: RankingMetrics): string {
  return `${m.precision.toFixed(4)} | ${m.ndcg.toFixed(4)} | ${m.map.toFixed(4)}`;
}

function weightGrid(): BlendWeights[] {
  const out: BlendWeights[] = [];
  for (const itemItem of [0, 0.25, 0.5, 1]) for (const content of [0, 0.05, 0.15]) for (const popularity of [0, 0.1]) out.push({ factor: 1, itemItem, content, popularity });
  out.push({ factor: 0, itemItem: 1, content: 0, popularity: 0 });
  return out;
}

async function quality(): Promise<void> {
  const ml = loadMovieLens(DATA);
  const { train, test } = splitPerUser(ml.itemsByUser, 0.25, SPLIT_SEED);
  const params: HybridParams = { ...DEFAULT_HYBRID_PARAMS, weights: { factor: 1, itemItem: 1, content: 1, popularity: 1 } };
  console.log(`## Quality: MovieLens-100k, per-user random 75/25 split (seed ${SPLIT_SEED}), top-10 excluding training items`);
  console.log(`ALS params: ${JSON.stringify(DEFAULT_ALS_PARAMS)}; EASE lambda ${params.itemItemLambda}; content = 19 genre flags (L2-normalised)\n`);

  // 1. blend weights: searched on validation splits of the training data only (averaged over seeds: one split is noisy)
  const grid = weightGrid();
  const sums = new Float64Array(grid.length);
  for (const seed of VALIDATION_SEEDS) {
    const { train: vtrain, test: vtest } = splitPerUser(train, 0.25, seed);
    const vmodel = await trainHybrid(toInteractions(vtrain, ml.nItems), params, { content: genreContent(ml) });
    for (let g = 0; g < grid.length; g++) {
      const rec = new HybridRecommender(vmodel, { weights: grid[g] });
      rec.attachContent(genreContent(ml));
      sums[g] += (await recommenderMetrics(rec, vtrain, vtest)).precision / VALIDATION_SEEDS.length;
    }
  }
  let bestG = 0;
  console.log(`### Blend-weight search (mean val P@10 over ${VALIDATION_SEEDS.length} validation splits of the training data, seeds ${VALIDATION_SEEDS.join(', ')})\n`);
  console.log('| factor | item-item | content | popularity | mean val P@10 |\n|---|---|---|---|---|');
  grid.forEach((w, g) => {
    console.log(`| ${w.factor} | ${w.itemItem} | ${w.content} | ${w.popularity} | ${sums[g].toFixed(4)} |`);
    if (sums[g] > sums[bestG]) bestG = g;
  });
  const best = { w: grid[bestG], precision: sums[bestG] };
  console.log(`\nchosen on validation: ${JSON.stringify(best.w)} (mean val P@10 ${best.precision.toFixed(4)})\n`);

  // 2. test figures, all methods on the same split in the same run
  const t0 = Date.now();
  const model = await trainHybrid(toInteractions(train, ml.nItems), params, { content: genreContent(ml) });
  const trainSeconds = (Date.now() - t0) / 1000;
  const rows: Array<[string, RankingMetrics]> = [];
  rows.push(['item popularity', popularityMetrics(train, test, ml.nItems)]);
  rows.push(['plain ALS, common defaults (64 f, alpha 40, lambda 0.1)', await plainAlsMetrics(train, test, ml.nItems, { ...DEFAULT_ALS_PARAMS, factors: 64, alpha: 40, regularization: 0.1, regExponent: 0 })]);
  rows.push(['plain ALS, best without frequency scaling (32 f, alpha 2, lambda 30)', await plainAlsMetrics(train, test, ml.nItems, { ...DEFAULT_ALS_PARAMS, factors: 32, alpha: 2, regularization: 30, regExponent: 0 })]);
  rows.push([`plain ALS, tuned defaults (${DEFAULT_ALS_PARAMS.factors} f, alpha ${DEFAULT_ALS_PARAMS.alpha}, lambda ${DEFAULT_ALS_PARAMS.regularization} x n^${DEFAULT_ALS_PARAMS.regExponent})`, await plainAlsMetrics(train, test, ml.nItems, DEFAULT_ALS_PARAMS)]);
  const ease = new HybridRecommender(model, { weights: { factor: 0, itemItem: 1, content: 0, popularity: 0 } });
  rows.push([`EASE alone (lambda ${params.itemItemLambda})`, await recommenderMetrics(ease, train, test)]);
  const hybrid = new HybridRecommender(model, { weights: best.w });
  hybrid.attachContent(genreContent(ml));
  rows.push([`hybrid blend ${JSON.stringify(best.w)}`, await recommenderMetrics(hybrid, train, test)]);
  const defaults = new HybridRecommender(model, { weights: DEFAULT_HYBRID_PARAMS.weights });
  defaults.attachContent(genreContent(ml));
  rows.push([`hybrid, shipped default weights ${JSON.stringify(DEFAULT_HYBRID_PARAMS.weights)}`, await recommenderMetrics(defaults, train, test)]);
  const withEase = new HybridRecommender(model, { weights: { factor: 1, itemItem: 0.25, content: 0, popularity: 0 } });
  rows.push(['for reference, not chosen by validation: ALS + EASE {"factor":1,"itemItem":0.25}', await recommenderMetrics(withEase, train, test)]);
  const noContent = new HybridRecommender(model, { weights: DEFAULT_HYBRID_PARAMS.weights });
  rows.push(['shipped weights without content attached (popularity blend only)', await recommenderMetrics(noContent, train, test)]);
  console.log('### Test split\n\n| method | P@10 | NDCG@10 | MAP@10 |\n|---|---|---|---|');
  for (const [name, m] of rows) console.log(`| ${name} | ${fmt(m)} |`);
  console.log(`\nusers evaluated: ${rows[0][1].users}; hybrid training (ALS ${DEFAULT_ALS_PARAMS.iterations} it + EASE + content map, in-thread): ${trainSeconds.toFixed(1)} s\n`);

  await coldStart(ml, train, test);
}

/** Hold 10% of items out of training entirely; rank them for users by content-mapped factors vs genre cosine vs random. */
async function coldStart(ml: MovieLens, train: Int32Array[], test: Int32Array[]): Promise<void> {
  const rng = new Rng(3);
  const cold = new Set<number>();
  const order = Array.from({ length: ml.nItems }, (_, i) => i);
  rng.shuffle(order);
  for (const i of order.slice(0, Math.round(ml.nItems * 0.1))) cold.add(i);
  const warmTrain = train.map((l) => l.filter((i) => !cold.has(i)));
  const warmItems = order.filter((i) => !cold.has(i));
  const base = toInteractions(warmTrain, ml.nItems);
  // only warm items are known to the model: re-index items
  const warmIndex = new Map<number, number>();
  warmItems.forEach((i, j) => warmIndex.set(i, j));
  const data: Interactions = { ...base, itemIds: warmItems.map((i) => `m${i}`), items: base.items.map((i) => warmIndex.get(i) ?? -1) };
  const model = await trainHybrid(data, { ...DEFAULT_HYBRID_PARAMS, weights: { factor: 1, itemItem: 0, content: 0, popularity: 0 } }, { content: genreContent(ml, warmItems) });
  const coldIds = [...cold].map((i) => `m${i}`);
  const variants: Array<[string, BlendWeights]> = [
    ['mapped factors (ridge content->factors)', { factor: 1, itemItem: 0, content: 0, popularity: 0 }],
    ['content cosine only', { factor: 0, itemItem: 0, content: 1, popularity: 0 }],
    ['mapped factors + content', { factor: 1, itemItem: 0, content: 1, popularity: 0 }],
  ];
  console.log(`### Cold start: ${cold.size} items (10%, seed 3) removed from training; rank only those items for users with one in test\n`);
  console.log('| method | P@10 | NDCG@10 | MAP@10 |\n|---|---|---|---|');
  for (const [name, w] of variants) {
    const rec = new HybridRecommender(model, { weights: w });
    rec.attachContent(genreContent(ml));
    const acc = new MetricsAccumulator(10);
    for (let u = 0; u < train.length; u++) {
      const rel = new Set(test[u].filter((i) => cold.has(i)));
      if (rel.size === 0) continue;
      const ans = await rec.recommendForUser({ userId: `u${u}`, number: 10, selectFrom: coldIds });
      acc.add(ans.results.map((r) => Number(r.id.slice(1))), rel);
    }
    console.log(`| ${name} | ${fmt(acc.result())} |`);
  }
  const acc = new MetricsAccumulator(10);
  const r2 = new Rng(4);
  for (let u = 0; u < train.length; u++) {
    const rel = new Set(test[u].filter((i) => cold.has(i)));
    if (rel.size === 0) continue;
    const shuffled = [...cold];
    r2.shuffle(shuffled);
    acc.add(shuffled.slice(0, 10), rel);
  }
  console.log(`| random order (baseline) | ${fmt(acc.result())} |\n`);
}

/** The ALS hyper-parameter search: each setting scored on the validation split (and, for the record, on test). */
async function grid(): Promise<void> {
  const ml = loadMovieLens(DATA);
  const { train, test } = splitPerUser(ml.itemsByUser, 0.25, SPLIT_SEED);
  const { train: vtrain, test: vtest } = splitPerUser(train, 0.25, VALIDATION_SEED);
  const factorsList = (process.env.GRID_FACTORS ?? '64').split(',').map(Number);
  const alphas = (process.env.GRID_ALPHA ?? '1.5,2,3').split(',').map(Number);
  const lambdas = (process.env.GRID_LAMBDA ?? '2,3,4').split(',').map(Number);
  const exponents = (process.env.GRID_NU ?? '0.5').split(',').map(Number);
  const iterations = Number(process.env.GRID_ITERATIONS ?? DEFAULT_ALS_PARAMS.iterations);
  console.log('| factors | alpha | lambda | nu | iterations | val P@10 | test P@10 |\n|---|---|---|---|---|---|---|');
  for (const factors of factorsList) for (const alpha of alphas) for (const regularization of lambdas) for (const regExponent of exponents) {
    const p = { ...DEFAULT_ALS_PARAMS, factors, alpha, regularization, regExponent, iterations };
    const v = await plainAlsMetrics(vtrain, vtest, ml.nItems, p);
    const t = await plainAlsMetrics(train, test, ml.nItems, p);
    console.log(`| ${factors} | ${alpha} | ${regularization} | ${regExponent} | ${iterations} | ${v.precision.toFixed(4)} | ${t.precision.toFixed(4)} |`);
  }
}

/** Power-law synthetic interactions: user activity ~ (u+1)^-0.5 (capped), item popularity ~ Zipf(0.8). */
function generateInteractions(nUsers: number, nItems: number, total: number, seed: number): Csr {
  const rng = new Rng(seed);
  const userW = Array.from({ length: nUsers }, (_, u) => (u + 1) ** -0.5);
  const sumW = userW.reduce((a, b) => a + b, 0);
  const perUser = userW.map((w) => Math.max(5, Math.min(5000, Math.round((total * w) / sumW))));
  const have = perUser.reduce((a, b) => a + b, 0);
  const scale = total / have;
  for (let u = 0; u < nUsers; u++) perUser[u] = Math.max(5, Math.min(5000, Math.round(perUser[u] * scale)));
  const cdf = new Float64Array(nItems);
  let acc = 0;
  for (let i = 0; i < nItems; i++) cdf[i] = acc += (i + 1) ** -0.8;
  for (let i = 0; i < nItems; i++) cdf[i] /= acc;
  // scatter item ranks over ids so popular items are not contiguous
  const perm = Int32Array.from({ length: nItems }, (_, i) => i);
  rng.shuffle(perm);
  const n = perUser.reduce((a, b) => a + b, 0);
  const rows = new Int32Array(n);
  const cols = new Int32Array(n);
  let e = 0;
  for (let u = 0; u < nUsers; u++) {
    for (let j = 0; j < perUser[u]; j++) {
      const x = rng.next();
      let lo = 0;
      let hi = nItems - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cdf[mid] < x) lo = mid + 1;
        else hi = mid;
      }
      rows[e] = u;
      cols[e++] = perm[lo];
    }
  }
  return buildCsr({ rows, cols, values: new Float32Array(n).fill(1) }, nUsers, nItems);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function speed(): Promise<void> {
  const threads = Number(process.env.BENCH_THREADS ?? 2);
  const pool = new WorkerPool({ threads });
  const ex = new PoolExecutor(pool);
  console.log(`## Training speed: 64 factors, ${DEFAULT_ALS_PARAMS.cgSteps} CG steps, ${threads} worker threads (Piscina, SharedArrayBuffer factors)\n`);
  console.log('| data | users | items | interactions | wall s/iteration (median) | CPU s/iteration (median, all threads) | wall s per iteration, in order | CPU µs per interaction |\n|---|---|---|---|---|---|---|---|');
  try {
    const ml = loadMovieLens(DATA);
    const mlCsr = toCsr(ml.itemsByUser, ml.nItems);
    const sets: Array<[string, Csr, number]> = [['MovieLens-100k (all ratings)', mlCsr, 10]];
    const genIters = Number(process.env.BENCH_GEN_ITERATIONS ?? 3);
    if (process.env.BENCH_SKIP_10M !== '1') {
      const t0 = Date.now();
      const gen = generateInteractions(100_000, 50_000, 10_000_000, 7);
      console.error(`generated ${gen.indptr[gen.rows]} interactions in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      sets.push(['generated power-law (100k x 50k)', gen, genIters]);
    }
    for (const [name, csr, iterations] of sets) {
      const secs: number[] = [];
      const cpus: number[] = [];
      await trainAls(csr, { ...DEFAULT_ALS_PARAMS, factors: 64, iterations }, {
        executor: ex,
        onIteration: (r: IterationReport) => {
          secs.push(r.seconds);
          cpus.push(r.cpuSeconds);
          console.error(`${name}: iteration ${r.iteration} ${r.seconds.toFixed(3)} s wall, ${r.cpuSeconds.toFixed(3)} s cpu`);
        },
      });
      const nnz = csr.indptr[csr.rows];
      const med = median(secs);
      const cpu = median(cpus);
      console.log(`| ${name} | ${csr.rows} | ${csr.cols} | ${nnz} | ${med.toFixed(3)} | ${cpu.toFixed(3)} | ${secs.map((s) => s.toFixed(2)).join(', ')} | ${((cpu * 1e6) / nnz).toFixed(3)} |`);
    }
    console.log(`\nanchor: implicit (CPU) lastfm-360k 17.5M plays, 64 factors, 8 cores: 1.37 s/iteration = ${((1.37 * 8 * 1e6) / 17.5e6).toFixed(3)} µs-core per interaction`);
  } finally {
    await pool.close();
  }
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function latency(label: string, n: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 5; i++) await fn(i); // warm-up
  const ms: number[] = [];
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await fn(i);
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const total = Number(process.hrtime.bigint() - t0) / 1e9;
  ms.sort((a, b) => a - b);
  console.log(`| ${label} | ${n} | ${percentile(ms, 0.5).toFixed(2)} | ${percentile(ms, 0.99).toFixed(2)} | ${(n / total).toFixed(0)} |`);
}

/** Serving latency, one query at a time: ML-100k model, and a 50k-document model with 256-d content (random factors). */
async function serving(): Promise<void> {
  const pool = new WorkerPool({ threads: 2 });
  try {
    console.log('## Serving latency (sequential queries, top-10)\n');
    console.log('| query | queries | p50 ms | p99 ms | queries/s |\n|---|---|---|---|---|');
    const ml = loadMovieLens(DATA);
    const model = await trainHybrid(toInteractions(ml.itemsByUser, ml.nItems), DEFAULT_HYBRID_PARAMS, { content: genreContent(ml) });
    for (const [where, runner] of [['in-thread', undefined], ['worker', pool]] as const) {
      const rec = new HybridRecommender(model, { runner, workerThreshold: runner ? 0 : Infinity });
      rec.attachContent(genreContent(ml));
      await latency(`ML-100k (1682 docs, 64 f), user recommendations, ${where}`, 500, (i) => rec.recommendForUser({ userId: `u${i % ml.nUsers}`, number: 10 }));
      await latency(`ML-100k, similar to 1 document, ${where}`, 500, (i) => rec.similarToDocuments({ documentIds: [`m${i % ml.nItems}`], number: 10 }));
    }
    const gen = generateInteractions(20_000, 50_000, 1_000_000, 11);
    const users = new Int32Array(gen.indptr[gen.rows]);
    for (let u = 0; u < gen.rows; u++) users.fill(u, gen.indptr[u], gen.indptr[u + 1]);
    const big = await trainHybrid(
      { userIds: Array.from({ length: gen.rows }, (_, u) => `u${u}`), itemIds: Array.from({ length: gen.cols }, (_, i) => `d${i}`), users, items: gen.indices },
      { ...DEFAULT_HYBRID_PARAMS, als: { ...DEFAULT_ALS_PARAMS, iterations: 1 } },
    );
    const rng = new Rng(5);
    const dim = 256;
    const vectors = new Float32Array(gen.cols * dim);
    for (let i = 0; i < vectors.length; i++) vectors[i] = rng.next() - 0.5;
    for (let r = 0; r < gen.cols; r++) {
      let s = 0;
      for (let a = 0; a < dim; a++) s += vectors[r * dim + a] ** 2;
      for (let a = 0; a < dim; a++) vectors[r * dim + a] /= Math.sqrt(s);
    }
    const content: ContentVectors = { ids: big.itemIds, vectors, dim };
    for (const [where, runner] of [['in-thread', undefined], ['worker', pool]] as const) {
      const plain = new HybridRecommender(big, { runner, workerThreshold: runner ? 0 : Infinity });
      await latency(`50k docs x 64 f, user recommendations, no content, ${where}`, 200, (i) => plain.recommendForUser({ userId: `u${i % gen.rows}`, number: 10 }));
      const rec = new HybridRecommender(big, { runner, workerThreshold: runner ? 0 : Infinity });
      rec.attachContent(content);
      await latency(`50k docs x 64 f + 256-d content, user recommendations, ${where}`, 200, (i) => rec.recommendForUser({ userId: `u${i % gen.rows}`, number: 10 }));
    }
    console.log('');
  } finally {
    await pool.close();
  }
}

async function main(): Promise<void> {
  const mode = process.argv[2] ?? 'all';
  console.log(`bench:hybrid ${mode} — ${new Date().toISOString()} — node ${process.version}\n`);
  if (mode === 'grid') await grid();
  if (mode === 'quality' || mode === 'all') await quality();
  if (mode === 'serving' || mode === 'all') await serving();
  if (mode === 'speed' || mode === 'all') await speed();
  console.log(`\npeak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
