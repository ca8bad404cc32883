/**
 * How much the Reuters cell of issue 32 depends on which 800 held-out articles ask (fifteenth session): Kindred's
 * model (fitted as the service fits it, its second stage in process: the same figures as through HTTP) and the
 * baselines (TF-IDF, LSA-64/128/256) answer all 1,936 held-out articles; then random draws of 800 of them give the
 * spread of "Kindred − best baseline", the figure whose bar is +0.02, beside the draw bench:quality uses (the first 800).
 *
 *   node dist/bench/reuters-draws.js   (BENCH_DRAWS=2000)
 */
import { embedBatch, fitModelSync, packSparse, rankByScore, rerankCandidates } from '../src/embedding';
import { reuters, REUTERS_QUERIES, type CorpusSplit } from './corpora';
import { denseCandidates, TfidfBaselineRanker } from './quality';
import { shuffled } from './support';

const DRAWS = Number(process.env.BENCH_DRAWS ?? 2000);

/** Each query's hits in its top 10 by a dense model: the service's second stage when `secondStage`, else dense only. */
function modelHits(split: CorpusSplit, options: { dim?: number }, secondStage: boolean): Uint8Array {
  const model = fitModelSync(split.train.map((d) => d.text), { minDocsForCorpusModel: 0, ...options });
  if (model.kind !== 'lsa') throw new Error('expected a corpus model');
  const train = embedBatch(model, split.train.map((d) => d.text));
  const test = embedBatch(model, split.test.map((d) => d.text));
  const dim = model.dim;
  return Uint8Array.from(split.test, (doc, q) => {
    const query = test.vectors.subarray(q * dim, (q + 1) * dim);
    const { rows, dense, vectors } = denseCandidates(train.vectors, dim, query, secondStage ? model.shape!.candidates : 10);
    let top = rows.slice(0, 10);
    if (secondStage) {
      const scores = rerankCandidates(test.sparse[q]!, packSparse(rows.map((r) => train.sparse[r]!)), {
        ...model.shape!.weights, denseScores: dense, candidateVectors: vectors,
      });
      top = rankByScore(scores).slice(0, 10).map((i) => rows[i]!);
    }
    return top.filter((r) => split.train[r]!.label === doc.label).length;
  });
}

async function tfidfHits(split: CorpusSplit): Promise<Uint8Array> {
  const ranker = new TfidfBaselineRanker();
  await ranker.index(split.train);
  const labelOf = new Map(split.train.map((d) => [d.id, d.label] as const));
  const results = await ranker.topK(split.test.map((d) => d.text), 10);
  return Uint8Array.from(results, (ids, q) => ids.filter((id) => labelOf.get(id) === split.test[q]!.label).length);
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function main(): Promise<void> {
  const split = reuters(Infinity);
  const n = split.test.length;
  const kindred = modelHits(split, {}, true);
  const baselines: Record<string, Uint8Array> = { 'TF-IDF': await tfidfHits(split) };
  for (const dim of [64, 128, 256]) baselines[`LSA-${dim}`] = modelHits(split, { dim }, false);
  const precision = (hits: Uint8Array, queries: readonly number[]): number => queries.reduce((s, q) => s + hits[q]!, 0) / (10 * queries.length);
  const lead = (queries: readonly number[]): number =>
    precision(kindred, queries) - Math.max(...Object.values(baselines).map((h) => precision(h, queries)));
  const all = Array.from({ length: n }, (_x, i) => i);
  const first = all.slice(0, REUTERS_QUERIES);
  const rest = all.slice(REUTERS_QUERIES);
  const leads = Array.from({ length: DRAWS }, (_x, d) => lead(shuffled(all, 32 + d).slice(0, REUTERS_QUERIES)));
  leads.sort((a, b) => a - b);
  const issueDraw = lead(first);
  const below = leads.filter((x) => x < issueDraw).length / DRAWS;
  const f = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(4)}`;
  console.log(`## Reuters: Kindred − best baseline by which ${REUTERS_QUERIES} of the ${n} held-out articles ask — ${new Date().toISOString()}`);
  console.log('');
  console.log('| queries | Kindred | ' + Object.keys(baselines).join(' | ') + ' | Kindred − best baseline |');
  console.log('|---|---|' + Object.keys(baselines).map(() => '---|').join('') + '---|');
  for (const [name, queries] of [['the first 800 (bench:quality)', first], [`the other ${rest.length}`, rest], [`all ${n}`, all]] as const) {
    console.log(`| ${name} | ${precision(kindred, queries).toFixed(4)} | ${Object.values(baselines).map((h) => precision(h, queries).toFixed(4)).join(' | ')} | ${f(lead(queries))} |`);
  }
  console.log('');
  console.log(`${DRAWS} random draws of ${REUTERS_QUERIES}: Kindred − best baseline 5th / 50th / 95th percentile ` +
    `${f(quantile(leads, 0.05))} / ${f(quantile(leads, 0.5))} / ${f(quantile(leads, 0.95))}; ≥ +0.02 in ${(100 * leads.filter((x) => x >= 0.02).length / DRAWS).toFixed(1)} % of draws; ` +
    `the first 800 (${f(issueDraw)}) sit at the ${(100 * below).toFixed(1)}th percentile.`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
