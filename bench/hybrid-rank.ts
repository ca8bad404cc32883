/**
 * bench:hybrid-rank — time of the hybrid scorer (`rank`, src/models/hybrid/scoring.ts) per query, the pool-thread
 * work of GET /users/:id/recommendations?use_hybrid=true. Arrays shaped like bench:throughput's 5k key (5,000
 * items, 64 factors, EASE over the trained items, 64-dimension content vectors) filled from a seeded generator:
 * the scorer's time depends on these shapes, not on the values. Queries: users of 10–20 preferences (user mode)
 * and, every other query, the same seeds as documents (items mode). With `--baseline <scoring.js>` (another build's
 * dist/src/models/hybrid/scoring.js) both run on the same queries in rotating order and the answers are compared.
 *   node dist/bench/hybrid-rank.js [--items 5000] [--trained 4000] [--queries 400] [--baseline /path/to/scoring.js]
 */
import { rank, type RankQuery, type ServingArrays } from '../src/models/hybrid/scoring';
import { seededRandom } from '../src/random';
import { arg } from './extract-fields';

type Rank = typeof rank;

function arrays(items: number, trained: number, random: () => number): ServingArrays {
  const filled = (n: number, scale = 1): Float32Array => {
    const out = new Float32Array(new SharedArrayBuffer(n * 4));
    for (let i = 0; i < n; i++) out[i] = (random() - 0.5) * scale;
    return out;
  };
  const k = 64;
  const contentDim = 64;
  const itemFactors = filled(items * k);
  const itemNorms = new Float32Array(items);
  for (let i = 0; i < items; i++) itemNorms[i] = Math.hypot(...itemFactors.subarray(i * k, (i + 1) * k));
  return {
    k, nTrained: trained, nItems: items, itemFactors, itemNorms, popularity: filled(items).map(Math.abs),
    itemItem: filled(trained * trained, 0.01), content: filled(items * contentDim), contentDim, hasContent: new Uint8Array(items).fill(1),
  };
}

function queries(count: number, s: ServingArrays, random: () => number): RankQuery[] {
  return Array.from({ length: count }, (_, q) => {
    const seeds = Int32Array.from({ length: 10 + Math.floor(random() * 11) }, () => Math.floor(random() * s.nTrained));
    const mode = q % 2 === 0 ? 'user' as const : 'items' as const;
    const userVector = mode === 'user' ? Float32Array.from({ length: s.k }, () => random() - 0.5) : undefined;
    return { userVector, seeds, mode, skip: seeds, number: 10, weights: { factor: 1, itemItem: 1, content: 1, popularity: 0 } };
  });
}

function timeOf(score: Rank, s: ServingArrays, qs: RankQuery[]): number {
  const started = process.hrtime.bigint();
  for (const q of qs) score(s, q);
  return Number(process.hrtime.bigint() - started) / 1e3 / qs.length;
}

function main(): void {
  const items = Number(arg('--items', '5000'));
  const trained = Number(arg('--trained', '4000'));
  const count = Number(arg('--queries', '400'));
  const baselineFile = arg('--baseline', '');
  const random = seededRandom(29);
  const s = arrays(items, trained, random);
  const qs = queries(count, s, random);
  const versions: Array<[string, Rank]> = [['this build', rank]];
  if (baselineFile) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const baseline = (require(baselineFile) as { rank: Rank }).rank;
    versions.push(['baseline', baseline]);
    const differing = qs.filter((q) => JSON.stringify(rank(s, q)) !== JSON.stringify(baseline(s, q))).length;
    console.log(`answers differing from the baseline's: ${differing} of ${qs.length}`);
  }
  const times = new Map<string, number[]>(versions.map(([name]) => [name, []]));
  for (let round = 0; round < 6; round++) {
    const order = round % 2 === 0 ? versions : [...versions].reverse();
    for (const [name, score] of order) times.get(name)!.push(timeOf(score, s, qs));
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`${items} items (${trained} trained), 64 factors, 64-dimension content, ${count} queries of 10–20 seeds`);
  for (const [name, xs] of times) console.log(`${name}: ${median(xs).toFixed(0)} µs a query (median of ${xs.length} rounds)`);
  if (baselineFile) console.log(`ratio this build / baseline: ${(median(times.get('this build')!) / median(times.get('baseline')!)).toFixed(2)}×`);
}

main();
