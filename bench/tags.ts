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
 *   node dist/bench/tags.js [--latency-only | --http]     (BENCH_TAG_QUERIES limits the --http queries)
 */
import { TagModel, type TagScore } from '../src/index/tag-model';
import { analyze, countTerms } from '../src/text';
import { apiCaller, inParallel, median, peakRssMb, startKindred, loadNewsgroups, type NewsgroupPost } from './support';

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

function train(model: TagModel, posts: readonly NewsgroupPost[], tagsOf: (p: NewsgroupPost, i: number) => string[]): void {
  posts.forEach((p, i) => model.sync(p.id, p.text, tagsOf(p, i)));
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
  const buildCpu = process.cpuUsage();
  train(model, trainPosts, (p, i) => [`${p.label}/${i % 50}`, p.label]);
  const buildCpuMs = process.cpuUsage(buildCpu).user / 1000;
  const buildMs = performance.now() - started;
  const after = heapMb();
  // A tagging added to a tenth of the documents: each re-sync subtracts the old vector and adds the new one.
  const retagCpu = process.cpuUsage();
  const retagged = trainPosts.filter((_, i) => i % 10 === 0);
  retagged.forEach((p, i) => model.sync(p.id, p.text, [`${p.label}/${(i * 10) % 50}`, p.label, 'extra']));
  const retagCpuMs = process.cpuUsage(retagCpu).user / 1000 / retagged.length;
  retagged.forEach((p, i) => model.sync(p.id, p.text, [`${p.label}/${(i * 10) % 50}`, p.label]));
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
  for (const q of queries) model.score(q, limit);
  const coldMs = process.cpuUsage(coldCpu).user / 1000 / queries.length;
  const times: number[] = [];
  const cpuPerPass: number[] = [];
  for (let pass = 0; pass < 3; pass++) {
    const cpu = process.cpuUsage();
    for (const q of queries) {
      const t0 = performance.now();
      model.score(q, limit);
      times.push(performance.now() - t0);
    }
    cpuPerPass.push(process.cpuUsage(cpu).user / 1000 / queries.length);
  }
  times.sort((a, b) => a - b);
  cpuPerPass.sort((a, b) => a - b);
  const est = model.memoryEstimate();
  console.log(`latency: ${model.tagCount} tags, ${model.documentCount} documents (2 tags each), ${model.vocabularySize} terms, ` +
    `${est.postings} (term, tag) pairs; build ${buildMs.toFixed(0)} ms wall, ${(buildCpuMs / trainPosts.length).toFixed(3)} ms CPU a document; ` +
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
    else if (i % 2) churned.sync(p.id, `${p.text} extra words`, [p.label]);
  });
  train(churned, sample, (p) => [p.label]);
  let maxDiff = 0;
  for (const q of test.slice(0, 200)) {
    const a = new Map(fresh.score(q.text).map((s) => [s.tag, s.probability]));
    for (const s of churned.score(q.text)) maxDiff = Math.max(maxDiff, Math.abs(s.probability - (a.get(s.tag) ?? 0)));
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

function main(): void {
  const trainPosts = loadNewsgroups('train');
  const test = loadNewsgroups('test').filter((p) => p.text.trim() !== '');
  const firstN = Math.min(FIRST, test.length);
  console.log(`## bench:tags — ${new Date().toISOString()}`);
  console.log(`20 Newsgroups: ${trainPosts.length} train posts tagged with their group, ${test.length} test posts as queries (first ${firstN} as in bench:quality)`);
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
      const scores = test.map((q) => m.score(q.text));
      const ms = (performance.now() - s0) / test.length;
      models.set(alpha, scores);
      rows.push([`complement NB, α=${alpha} (${ms.toFixed(3)} ms/query)`, scores.map((s) => s[0]?.tag)]);
    }
    for (const temperature of [0.05, 0.1, 0.2]) {
      const m = new TagModel({ alpha: 0.1, temperature });
      train(m, trainPosts, (p) => [p.label]);
      const scores = temperature === 0.1 ? models.get(0.1)! : test.map((q) => m.score(q.text));
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
