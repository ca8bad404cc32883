import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { apiCaller, generatedCorpus, inParallel, median, peakRssMb, realTexts, startKindred } from './support';

/**
 * bench:similar, through HTTP: real texts (Debian package descriptions, then 20 Newsgroups posts)
 * ingested with POST /documents, then GET /documents/:id/similar latency and throughput, ingest rate
 * (acknowledged, and searchable with embedding and index), peak RSS.
 */
const KEY = 'bench-similar';
const ADMIN = 'bench-admin';
const DOCS = Number(process.env.BENCH_DOCS ?? 100_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 1000);

function corpus(): string[] {
  const real = realTexts();
  return GENERATED ? generatedCorpus(real, DOCS) : real.slice(0, DOCS);
}

const GENERATED = process.env.BENCH_CORPUS === 'generated';
const BATCHED = process.env.BENCH_INGEST === 'batch';
/** BENCH_DATA_DIR: ingest into this directory and keep it; when it already holds the corpus, skip ingest and time the restart. */
const KEEP_DIR = process.env.BENCH_DATA_DIR;

const call = apiCaller(KEY);


async function main(): Promise<void> {
  const texts = corpus();
  const reused = KEEP_DIR !== undefined && fs.existsSync(path.join(KEEP_DIR, 'lmdb'));
  const launched = Date.now();
  const kindred = await startKindred(KEY, { KINDRED_ADMIN_TOKEN: ADMIN }, { keepDataDir: KEEP_DIR });
  const { base, child } = kindred;
  // The key's indexes exist from the start, so ingest pays for keeping them current (refits included).
  await call(`${base}/documents/similar-to-text`, 'POST', { text: 'warm up', number: 1 }).catch(() => []);
  const started = Date.now();
  try {
    if (reused) {
      // The corpus is already stored: what is timed is the restart (content model fit, embedding, index) until searchable.
    } else if (BATCHED) {
      // POST /batch of 100 creates, 4 batches in flight (what `kindred import` sends).
      const batches = Array.from({ length: Math.ceil(texts.length / 100) }, (_, b) => b);
      await inParallel(batches, 4, async (b) => {
        const ops = texts.slice(b * 100, (b + 1) * 100).map((text, j) => ({
          method: 'POST', url: `/documents/d${b * 100 + j}`, headers: { 'Subscription-Key': KEY }, params: { text },
        }));
        await call(`${base}/batch`, 'POST', { ops, sequential: false });
      });
    } else {
      await inParallel(texts, 32, async (text, i) => {
        await call(`${base}/documents/d${i}`, 'POST', { text });
        if ((i + 1) % 100_000 === 0) console.error(`${i + 1} acknowledged after ${((Date.now() - started) / 1000).toFixed(0)} s, server RSS ${peakRssMb(child.pid!)?.toFixed(0)} MB peak`);
      });
    }
    const acked = Date.now();
    // Searchable = every document is in the content index (its size, from /metrics) and a query answers.
    const last = `d${texts.length - 1}`;
    for (;;) {
      const hits = await call(`${base}/documents/similar-to-ids`, 'POST', { ids: [last], number: 1 }).catch(() => []);
      const metrics = await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${ADMIN}` } }).then((r) => r.text(), () => '');
      const indexed = Number(/^kindred_index_documents\{[^}]*\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
      if (hits.length && indexed >= texts.length) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const searchable = Date.now();
    // BENCH_SETTLE_SECONDS: let background upkeep (e.g. an approximate index rebuilt with more lists after a restart) finish before timing queries.
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.BENCH_SETTLE_SECONDS ?? 0) * 1000));
    const ids = Array.from({ length: QUERIES }, (_, i) => `d${Math.floor((i * 7919) % texts.length)}`);
    const sequential: number[] = [];
    for (const id of ids.slice(0, Math.min(300, QUERIES))) {
      const t0 = performance.now();
      await call(`${base}/documents/${id}/similar?number=10`, 'GET');
      sequential.push(performance.now() - t0);
    }
    const qpsStart = Date.now();
    await inParallel(ids, 4, (id) => call(`${base}/documents/${id}/similar?number=10`, 'GET'));
    const qps = ids.length / ((Date.now() - qpsStart) / 1000);
    sequential.sort((a, b) => a - b);
    console.log(`## bench:similar (through HTTP) — ${new Date().toISOString().slice(0, 10)}`);
    const what = GENERATED ? 'generated texts (real words, 2,000 topics; BENCH_CORPUS=generated)' : 'real texts (Debian package descriptions, then 20 Newsgroups posts)';
    console.log(`${texts.length} ${what} ingested with ${BATCHED ? 'POST /batch of 100 creates (4 in flight; BENCH_INGEST=batch)' : 'POST /documents/:id (32 concurrent)'}; ` +
      `${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}`);
    console.log('');
    console.log('| measure | value |');
    console.log('|---|---|');
    if (reused) {
      console.log(`| restart on the stored corpus until searchable (from its snapshot when one was written, else model fit, embedding, index build) | ${((searchable - launched) / 1000).toFixed(0)} s |`);
    } else {
      console.log(`| ingest, acknowledged | ${(texts.length / ((acked - started) / 1000)).toFixed(0)} docs/s |`);
      console.log(`| ingest, searchable (embedding, refits and index included) | ${(texts.length / ((searchable - started) / 1000)).toFixed(0)} docs/s |`);
    }
    console.log(`| GET /documents/:id/similar p50 / p99, one at a time (${sequential.length}) | ${median(sequential).toFixed(1)} / ${sequential[Math.floor(sequential.length * 0.99)].toFixed(1)} ms |`);
    console.log(`| GET /documents/:id/similar throughput, 4 in flight (${ids.length}) | ${qps.toFixed(0)} queries/s |`);
    console.log(`| server peak RSS | ${peakRssMb(child.pid!)?.toFixed(0) ?? '?'} MB |`);
  } finally {
    kindred.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
