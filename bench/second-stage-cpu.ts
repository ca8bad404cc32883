/**
 * bench:second-stage-cpu — time of the second stage (`rerankCandidates`) per query on real candidates: 20NG fitted
 * as the service fits it, held-out posts as queries, the 800 best dense candidates each, the corpus's terms in one
 * packed array in a shuffled row order (as a key's rows lie after writes in any order). With `--baseline <rerank.js>`
 * (another build's dist/src/embedding/rerank.js) both run on the same spans in rotating order, so that neither
 * reads caches the other warmed, and the ratio is printed, with how many queries' top 10 differ between the two and
 * the largest difference of a score. In the server the first stage's scan streams the key's vectors through the cache
 * just before: `--evict MB` (default 5, a 5k key's rows at 256 dimensions) reads that much memory before each call.
 *   node dist/bench/second-stage-cpu.js [--queries 500] [--candidates 800] [--evict 5] [--baseline /path/to/rerank.js]
 */
import { packSparse, type SparseVector } from '../src/embedding/sparse';
import { rankByScore, rerankCandidates } from '../src/embedding/rerank';
import { DEFAULT_SECOND_STAGE } from '../src/embedding/model';
import { seededRandom } from '../src/random';
import { newsgroups } from './corpora';
import { EmbeddingPipeline } from './quality';
import { shuffled } from './support';
import { arg } from './extract-fields';

type Rerank = typeof rerankCandidates;

async function main(): Promise<void> {
  const queryCount = Number(arg('--queries', '500'));
  const candidateCount = Number(arg('--candidates', '800'));
  const baselineFile = arg('--baseline', '');
  const evicting = new Float32Array(Number(arg('--evict', '5')) * 2 ** 18);
  let evicted = 0;
  const versions: Array<[string, Rerank]> = [['this build', rerankCandidates]];
  if (baselineFile) versions.push(['baseline', (require(baselineFile) as { rerankCandidates: Rerank }).rerankCandidates]);

  const split = newsgroups();
  const step = Math.max(1, Math.floor(split.test.length / queryCount));
  const queries = split.test.filter((_, i) => i % step === 0).slice(0, queryCount);
  const pipeline = new EmbeddingPipeline(candidateCount, 2, {});
  await pipeline.index(split.train);
  const { candidates, querySparse, corpusSparse } = await pipeline.candidates(queries.map((q) => q.text));
  await pipeline.close();

  const order = shuffled([...corpusSparse.keys()], 29);
  const packed = packSparse(order.map((row) => corpusSparse[row] as SparseVector));
  const place = new Uint32Array(order.length);
  order.forEach((row, at) => { place[row] = at; });

  const ns = versions.map(() => 0);
  let terms = 0;
  const random = seededRandom(29);
  let differingAnswers = 0;
  let largestDifference = 0;
  const ROUNDS = 4;
  for (let round = 0; round < ROUNDS; round++) {
    candidates.forEach((c, i) => {
      const starts = Uint32Array.from(c.rows, (r) => packed.offsets[place[r]!]!);
      const ends = Uint32Array.from(c.rows, (r) => packed.offsets[place[r]! + 1]!);
      const spans = { starts, ends, ids: packed.ids, weights: packed.weights };
      const options = { ...DEFAULT_SECOND_STAGE, denseScores: c.dense, denseFeedbackOf: () => c.dense };
      const first = Math.floor(random() * versions.length);
      const scores: Float32Array[] = [];
      for (let j = 0; j < versions.length; j++) {
        const v = (first + j) % versions.length;
        for (let k = 0; k < evicting.length; k += 16) evicted += evicting[k]!;
        const started = process.hrtime.bigint();
        scores[v] = versions[v]![1](querySparse[i]!, spans, options);
        if (round > 0) ns[v]! += Number(process.hrtime.bigint() - started);
      }
      if (round === 0 && scores.length === 2) {
        const [mine, theirs] = scores as [Float32Array, Float32Array];
        if (rankByScore(mine).slice(0, 10).join() !== rankByScore(theirs).slice(0, 10).join()) differingAnswers++;
        mine.forEach((score, k) => { largestDifference = Math.max(largestDifference, Math.abs(score - theirs[k]!)); });
      }
      if (round === 0) for (let k = 0; k < starts.length; k++) terms += ends[k]! - starts[k]!;
    });
  }
  const timed = candidates.length * (ROUNDS - 1);
  const perTerm = (v: number): string => (ns[v]! / timed / (2 * terms / candidates.length)).toFixed(1);
  console.log(`20NG: ${split.train.length} posts, ${candidates.length} queries, ${candidateCount} candidates, ${(terms / candidates.length / candidateCount).toFixed(0)} terms a candidate`);
  versions.forEach(([name], v) => {
    const ratio = v > 0 ? `, ${(ns[0]! / ns[v]!).toFixed(2)}× this build's time against it` : '';
    console.log(`${name}: ${(ns[v]! / timed / 1000).toFixed(0)} µs a query (${perTerm(v)} ns a term, two passes)${ratio}`);
  });
  if (evicted !== 0) throw new Error('the eviction buffer is zeros');
  if (versions.length === 2) console.log(`top 10 differing: ${differingAnswers} of ${candidates.length} queries; largest score difference ${largestDifference.toExponential(2)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
