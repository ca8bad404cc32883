import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { apiCaller, inParallel, median, peakRssMb, startKindred } from './support';

/**
 * bench:similar, through HTTP: real texts (Debian package descriptions, then 20 Newsgroups posts)
 * ingested with POST /documents, then GET /documents/:id/similar latency and throughput, ingest rate
 * (acknowledged, and searchable with embedding and index), peak RSS.
 */
const SHARED = path.join(__dirname, '..', '..', '..', 'shared', 'data');
const KEY = 'bench-similar';
const DOCS = Number(process.env.BENCH_DOCS ?? 100_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 1000);

function lines(file: string): string[] {
  return zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').split('\n').filter(Boolean);
}

function corpus(): string[] {
  const texts = lines(path.join(SHARED, 'debian-packages', 'debian-packages-bookworm.jsonl.gz')).map((l) => {
    const o = JSON.parse(l) as { summary?: string; description?: string };
    return `${o.summary ?? ''}\n${o.description ?? ''}`;
  });
  for (const split of ['train', 'test']) {
    for (const l of lines(path.join(SHARED, '20newsgroups', `20newsgroups-bydate-${split}.jsonl.gz`))) {
      const text = (JSON.parse(l) as { text: string }).text;
      texts.push(text.slice(text.indexOf('\n\n') + 2));
    }
  }
  return texts.filter((t) => t.trim()).slice(0, DOCS);
}

const call = apiCaller(KEY);


async function main(): Promise<void> {
  const texts = corpus();
  const kindred = await startKindred(KEY);
  const { base, child } = kindred;
  try {
    const started = Date.now();
    await inParallel(texts, 32, (text, i) => call(`${base}/documents/d${i}`, 'POST', { text }));
    const acked = Date.now();
    const last = `d${texts.length - 1}`;
    for (;;) {
      const hits = await call(`${base}/documents/similar-to-ids`, 'POST', { ids: [last], number: 1 }).catch(() => []);
      if (hits.length) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const searchable = Date.now();
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
    console.log(`${texts.length} real texts (Debian package descriptions, then 20 Newsgroups posts) ingested with POST /documents/:id (32 concurrent); ` +
      `${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}`);
    console.log('');
    console.log('| measure | value |');
    console.log('|---|---|');
    console.log(`| ingest, acknowledged | ${(texts.length / ((acked - started) / 1000)).toFixed(0)} docs/s |`);
    console.log(`| ingest, searchable (embedding, refits and index included) | ${(texts.length / ((searchable - started) / 1000)).toFixed(0)} docs/s |`);
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
