import os from 'node:os';
import { apiCaller, inParallel, median, peakRssMb, startKindred, loadNewsgroups, type NewsgroupPost } from './support';

/**
 * bench:quality, through the HTTP API: 20 Newsgroups train split ingested with POST /documents
 * (and tagged with its newsgroup), test split texts as POST /documents/similar-to-text queries:
 * precision@10, tag suggestion top-1 accuracy, ingest rate, query latency.
 */
const KEY = 'bench-quality';
const QUERY_LIMIT = Number(process.env.BENCH_QUERIES ?? 7532);
const TAG_QUERIES = Number(process.env.BENCH_TAG_QUERIES ?? 2000);



const call = apiCaller(KEY);

async function main(): Promise<void> {
  const train = loadNewsgroups('train');
  // A post whose body is empty once the headers are stripped cannot be a query (the API answers 400).
  const test = loadNewsgroups('test').filter((p) => p.text.trim() !== '').slice(0, QUERY_LIMIT);
  const labelOf = new Map(train.map((p) => [p.id, p.label]));
  const kindred = await startKindred(KEY, { KINDRED_REFIT_GROWTH: '1.3' });
  const { base, child } = kindred;
  try {
    const started = Date.now();
    await inParallel(train, 32, (p) => call(`${base}/documents/${p.id}`, 'POST', { text: p.text }));
    const acked = Date.now();
    // Indexed: the last document is its own nearest neighbour.
    const last = train[train.length - 1];
    for (;;) {
      const hits = await call(`${base}/documents/similar-to-text`, 'POST', { text: last.text, number: 1 });
      if (hits[0]?.id === last.id) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const indexed = Date.now();
    const batches: NewsgroupPost[][] = [];
    for (let i = 0; i < train.length; i += 100) batches.push(train.slice(i, i + 100));
    await inParallel(batches, 4, (batch) => call(`${base}/batch`, 'POST', {
      sequential: false,
      ops: batch.map((p) => ({ method: 'POST', url: `/documents/${p.id}/tags/${p.label.replace(/\./g, '_')}`, headers: { 'Subscription-Key': KEY } })),
    }));

    const latencies: number[] = [];
    let hitsSameLabel = 0;
    let returned = 0;
    const queryStart = Date.now();
    await inParallel(test, 4, async (q) => {
      const t0 = performance.now();
      const results = await call(`${base}/documents/similar-to-text`, 'POST', { text: q.text, number: 10 }) as Array<{ id: string }>;
      latencies.push(performance.now() - t0);
      returned += results.length;
      hitsSameLabel += results.filter((r) => labelOf.get(r.id) === q.label).length;
    });
    const querySeconds = (Date.now() - queryStart) / 1000;
    let tagCorrect = 0;
    const tagQueries = test.slice(0, TAG_QUERIES);
    await inParallel(tagQueries, 4, async (q) => {
      const res = await call(`${base}/tags/recommend-by-text`, 'POST', { text: q.text, number: 1 }) as { results: Array<{ id: string }> };
      if (res.results[0]?.id === q.label.replace(/\./g, '_')) tagCorrect++;
    });
    const rss = peakRssMb(child.pid!);
    latencies.sort((a, b) => a - b);
    console.log(`## bench:quality (through HTTP) — ${new Date().toISOString().slice(0, 10)}`);
    console.log(`20 Newsgroups: ${train.length} train posts ingested, ${test.length} test posts as queries, header block stripped; ` +
      `KINDRED_REFIT_GROWTH=1.3, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}`);
    console.log('');
    console.log('| measure | value |');
    console.log('|---|---|');
    console.log(`| precision@10, POST /documents/similar-to-text | ${(hitsSameLabel / (test.length * 10)).toFixed(4)} (results returned: ${returned}) |`);
    console.log(`| tag suggestion top-1 accuracy, POST /tags/recommend-by-text (${tagQueries.length} queries) | ${(tagCorrect / tagQueries.length).toFixed(4)} |`);
    console.log(`| ingest, acknowledged (32 concurrent POSTs) | ${(train.length / ((acked - started) / 1000)).toFixed(0)} docs/s |`);
    console.log(`| ingest, searchable (embedding and index included) | ${(train.length / ((indexed - started) / 1000)).toFixed(0)} docs/s |`);
    console.log(`| similar-to-text latency p50 / p99 (4 concurrent) | ${median(latencies).toFixed(1)} / ${latencies[Math.floor(latencies.length * 0.99)].toFixed(1)} ms |`);
    console.log(`| similar-to-text throughput | ${(test.length / querySeconds).toFixed(0)} queries/s |`);
    console.log(`| server peak RSS | ${rss?.toFixed(0) ?? '?'} MB |`);
  } finally {
    kindred.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
