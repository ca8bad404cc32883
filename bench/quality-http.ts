import os from 'node:os';
import { apiCaller, inParallel, median, peakRssMb, startKindred, loadNewsgroups, type NewsgroupPost } from './support';
import { DenseRanker, EmbeddingPipeline, evenSample, precisionAt, TfidfBaselineRanker, type Ranker } from './quality';

/**
 * bench:quality, through the HTTP API: 20 Newsgroups train split ingested with POST /documents
 * (and tagged with its newsgroup), test split texts as POST /documents/similar-to-text queries:
 * precision@10, tag suggestion top-1 accuracy, ingest rate, query latency. Beside it, in the same run and
 * on the same split, TF-IDF and LSA baselines (in-process, exact); then a corpus-size sweep: even samples
 * of the train split in keys of their own, Kindred against the best baseline at each size.
 *
 *   BENCH_QUERIES=7532  BENCH_TAG_QUERIES=2000  BENCH_SWEEP=1000,5000  BENCH_SWEEP_QUERIES=2000  BENCH_LSA=64,128,256
 */
const KEY = 'bench-quality';
const QUERY_LIMIT = Number(process.env.BENCH_QUERIES ?? 7532);
const TAG_QUERIES = Number(process.env.BENCH_TAG_QUERIES ?? 2000);
const SWEEP = (process.env.BENCH_SWEEP ?? '1000,5000').split(',').filter(Boolean).map(Number);
const SWEEP_QUERIES = Number(process.env.BENCH_SWEEP_QUERIES ?? 2000);
const LSA_DIMS = (process.env.BENCH_LSA ?? '64,128,256').split(',').filter(Boolean).map(Number);

const call = apiCaller(KEY);

/** Posts every document into `key` and waits until the last one is its own nearest neighbour. */
async function ingest(base: string, key: string, train: NewsgroupPost[]): Promise<void> {
  const post = apiCaller(key);
  await inParallel(train, 32, (p) => post(`${base}/documents/${p.id}`, 'POST', { text: p.text }));
  await waitIndexed(base, key, train[train.length - 1]!);
}

/** Scheduled refits every few seconds (node-cron, seconds field): with BENCH_SETTLE=1 the queries wait for one after the last write. */
const SETTLE_REFIT_CRON = '*/15 * * * * *';
const SETTLE = process.env.BENCH_SETTLE === '1';

/**
 * Waits until the last document is its own nearest neighbour; with BENCH_SETTLE=1 also for a scheduled refit
 * that started after the last write, so the queries meet the model fitted on the whole corpus whatever the
 * machine's speed (without it, precision depends on which growth refit has landed when the queries start:
 * 0.57–0.69 across runs of one build).
 */
async function waitIndexed(base: string, key: string, last: NewsgroupPost): Promise<void> {
  const post = apiCaller(key);
  for (;;) {
    const hits = await post(`${base}/documents/similar-to-text`, 'POST', { text: last.text, number: 1 }) as Array<{ id: string }>;
    if (hits[0]?.id === last.id) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  if (!SETTLE) return;
  const refitting = async () => ((await (await fetch(`${base}/healthz`)).json()) as { indexing: Array<{ refitting: boolean }> }).indexing.some((e) => e.refitting);
  while (await refitting()) await new Promise((r) => setTimeout(r, 200));
  while (!(await refitting())) await new Promise((r) => setTimeout(r, 200));
  while (await refitting()) await new Promise((r) => setTimeout(r, 200));
}

/** Kindred's precision@10 through POST /documents/similar-to-text, with each query's latency. */
async function kindredPrecision(base: string, key: string, train: NewsgroupPost[], test: NewsgroupPost[]): Promise<{ precision: number; returned: number; latencies: number[]; seconds: number }> {
  const post = apiCaller(key);
  const labelOf = new Map(train.map((p) => [p.id, p.label]));
  const latencies: number[] = [];
  let hitsSameLabel = 0;
  let returned = 0;
  const started = Date.now();
  await inParallel(test, 4, async (q) => {
    const t0 = performance.now();
    const results = await post(`${base}/documents/similar-to-text`, 'POST', { text: q.text, number: 10 }) as Array<{ id: string }>;
    latencies.push(performance.now() - t0);
    returned += results.length;
    hitsSameLabel += results.filter((r) => labelOf.get(r.id) === q.label).length;
  });
  return { precision: hitsSameLabel / (test.length * 10), returned, latencies, seconds: (Date.now() - started) / 1000 };
}

/** The baselines' precision@10 on the same split, by name. */
async function baselines(train: NewsgroupPost[], test: NewsgroupPost[]): Promise<Map<string, number>> {
  const labelOf = new Map(train.map((p) => [p.id, p.label]));
  const texts = test.map((q) => q.text);
  const out = new Map<string, number>();
  const pipelines = LSA_DIMS.map((dim) => new EmbeddingPipeline(10, 2, { dim, minDocsForCorpusModel: 0 }));
  const rankers: Ranker[] = [new TfidfBaselineRanker(), ...pipelines.map((p, i) => new DenseRanker(p, `LSA-${LSA_DIMS[i]}`))];
  for (const ranker of rankers) {
    await ranker.index(train);
    out.set(ranker.name === 'TF-IDF cosine (baseline)' ? 'TF-IDF' : ranker.name, precisionAt(10, test, await ranker.topK(texts, 10), labelOf));
  }
  for (const p of pipelines) await p.close();
  return out;
}

function best(figures: Map<string, number>): [string, number] {
  return [...figures].reduce((a, b) => (b[1] > a[1] ? b : a));
}

async function main(): Promise<void> {
  const train = loadNewsgroups('train');
  // A post whose body is empty once the headers are stripped cannot be a query (the API answers 400).
  const test = loadNewsgroups('test').filter((p) => p.text.trim() !== '').slice(0, QUERY_LIMIT);
  const sweepKeys = SWEEP.map((n) => `${KEY}-${n}`);
  const kindred = await startKindred([KEY, ...sweepKeys].join(','), { KINDRED_REFIT_GROWTH: '1.3', ...(SETTLE ? { KINDRED_REFIT_CRON: SETTLE_REFIT_CRON } : {}) });
  const { base, child } = kindred;
  try {
    const started = Date.now();
    await inParallel(train, 32, (p) => call(`${base}/documents/${p.id}`, 'POST', { text: p.text }));
    const acked = Date.now();
    await waitIndexed(base, KEY, train[train.length - 1]!);
    const indexed = Date.now();
    const batches: NewsgroupPost[][] = [];
    for (let i = 0; i < train.length; i += 100) batches.push(train.slice(i, i + 100));
    await inParallel(batches, 4, (batch) => call(`${base}/batch`, 'POST', {
      sequential: false,
      ops: batch.map((p) => ({ method: 'POST', url: `/documents/${p.id}/tags/${p.label.replace(/\./g, '_')}`, headers: { 'Subscription-Key': KEY } })),
    }));

    const full = await kindredPrecision(base, KEY, train, test);
    const { latencies, returned } = full;
    const querySeconds = full.seconds;
    let tagCorrect = 0;
    const tagQueries = test.slice(0, TAG_QUERIES);
    await inParallel(tagQueries, 4, async (q) => {
      const res = await call(`${base}/tags/recommend-by-text`, 'POST', { text: q.text, number: 1 }) as { results: Array<{ id: string }> };
      if (res.results[0]?.id === q.label.replace(/\./g, '_')) tagCorrect++;
    });
    const rss = peakRssMb(child.pid!);
    const sweep: Array<{ docs: number; queries: number; kindred: number; baselines: Map<string, number> }> = [];
    for (const [i, size] of SWEEP.entries()) {
      const sample = evenSample(train, size);
      const queries = evenSample(test, SWEEP_QUERIES);
      await ingest(base, sweepKeys[i]!, sample);
      const k = await kindredPrecision(base, sweepKeys[i]!, sample, queries);
      sweep.push({ docs: sample.length, queries: queries.length, kindred: k.precision, baselines: await baselines(sample, queries) });
    }
    const fullBaselines = await baselines(train, test);
    sweep.push({ docs: train.length, queries: test.length, kindred: full.precision, baselines: fullBaselines });
    latencies.sort((a, b) => a - b);
    console.log(`## bench:quality (through HTTP) — ${new Date().toISOString().slice(0, 10)}`);
    console.log(`20 Newsgroups: ${train.length} train posts ingested, ${test.length} test posts as queries, header block stripped; ` +
      `KINDRED_REFIT_GROWTH=1.3${SETTLE ? `, queries after a scheduled refit on the whole corpus (BENCH_SETTLE=1, KINDRED_REFIT_CRON='${SETTLE_REFIT_CRON}')` : ''}, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}`);
    console.log('');
    console.log('| measure | value |');
    console.log('|---|---|');
    console.log(`| precision@10, POST /documents/similar-to-text | ${full.precision.toFixed(4)} (results returned: ${returned}) |`);
    for (const [name, value] of fullBaselines) console.log(`| precision@10, baseline ${name} (in-process, exact, same split) | ${value.toFixed(4)} |`);
    console.log(`| tag suggestion top-1 accuracy, POST /tags/recommend-by-text (${tagQueries.length} queries) | ${(tagCorrect / tagQueries.length).toFixed(4)} |`);
    console.log(`| ingest, acknowledged (32 concurrent POSTs) | ${(train.length / ((acked - started) / 1000)).toFixed(0)} docs/s |`);
    console.log(`| ingest, searchable (embedding and index included) | ${(train.length / ((indexed - started) / 1000)).toFixed(0)} docs/s |`);
    console.log(`| similar-to-text latency p50 / p99 (4 concurrent) | ${median(latencies).toFixed(1)} / ${latencies[Math.floor(latencies.length * 0.99)].toFixed(1)} ms |`);
    console.log(`| similar-to-text throughput | ${(test.length / querySeconds).toFixed(0)} queries/s |`);
    console.log(`| server peak RSS | ${rss?.toFixed(0) ?? '?'} MB |`);
    console.log('');
    console.log(`Corpus-size sweep (even samples of the train split, each in its own key; ${SWEEP_QUERIES} even-sampled queries below the full size):`);
    console.log('');
    console.log(`| train docs | queries | Kindred (HTTP) | TF-IDF | ${LSA_DIMS.map((d) => `LSA-${d}`).join(' | ')} | Kindred − best baseline |`);
    console.log(`|---|---|---|---|${LSA_DIMS.map(() => '---|').join('')}---|`);
    for (const row of sweep) {
      const [, top] = best(row.baselines);
      console.log(`| ${row.docs} | ${row.queries} | ${row.kindred.toFixed(4)} | ${[...row.baselines.values()].map((v) => v.toFixed(4)).join(' | ')} | ${(row.kindred - top >= 0 ? '+' : '')}${(row.kindred - top).toFixed(4)} |`);
    }
  } finally {
    kindred.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
