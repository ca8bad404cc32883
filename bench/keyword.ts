import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import zlib from 'node:zlib';
import { performance } from 'node:perf_hooks';
import MiniSearch from 'minisearch';
import { KeywordDocument } from '../src/keyword/document';
import { KeywordIndex } from '../src/keyword/index';
import { analyze } from '../src/keyword/analyzer';
import { KeywordWorkerHost } from '../src/keyword/host';

/**
 * bench:keyword — the keyword engine on Debian package descriptions (63k real texts), beside
 * MiniSearch on the same documents and the same queries, in the same run.
 * Documents: text = summary + long description, meta = {title: summary, section, priority, source},
 * tags = debtags; the corpus has no dates, so published_at is derived from a hash of the id
 * (2015–2024), deterministically.
 */
const DATA = process.env.KEYWORD_DATA ?? path.resolve(__dirname, '..', '..', '..', 'shared', 'data', 'debian-packages', 'debian-packages-bookworm.jsonl.gz');
const QUERIES = Number(process.env.BENCH_QUERIES ?? 300);

interface Package { id: string; source: string; section: string; priority: string; tags: string[]; summary: string; description: string }

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function load(): KeywordDocument[] {
  const lines = zlib.gunzipSync(fs.readFileSync(DATA)).toString('utf8').split('\n').filter((l) => l.trim() !== '');
  const start = Date.UTC(2015, 0, 1);
  const span = Date.UTC(2025, 0, 1) - start;
  return lines.map((l) => {
    const p = JSON.parse(l) as Package;
    const published = new Date(start + (hash(p.id) % 10_000) / 10_000 * span).toISOString();
    return {
      id: p.id,
      text: `${p.summary}\n\n${p.description}`,
      meta: { title: p.summary, section: p.section, priority: p.priority, source: p.source },
      tags: p.tags,
      published_at: published,
      created_at: published,
      updated_at: published,
    };
  });
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function time(fn: () => void, n: number): { p50: number; p99: number } {
  const ts: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    fn();
    ts.push(performance.now() - t);
  }
  ts.sort((a, b) => a - b);
  return { p50: pct(ts, 50), p99: pct(ts, 99) };
}

function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(0);
}

interface Row { name: string; ours: { p50: number; p99: number }; mini: { p50: number; p99: number }; hitsOurs: number; hitsMini: number }

async function main(): Promise<void> {
  const docs = load();
  const rand = rng(42);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
  const words = (d: KeywordDocument): string[] => analyze(String((d.meta as Record<string, unknown>).title)).filter((w) => w.length > 3);

  // Query sets, drawn from the corpus's own summaries.
  const matchQs: string[] = [];
  const phraseQs: string[] = [];
  while (matchQs.length < QUERIES) {
    const w = words(pick(docs));
    if (w.length >= 2) matchQs.push(`${pick(w)} ${pick(w)}`);
  }
  while (phraseQs.length < QUERIES) {
    const t = analyze(String((pick(docs).meta as Record<string, unknown>).title));
    if (t.length >= 3) { const i = Math.floor(rand() * (t.length - 1)); phraseQs.push(`${t[i]} ${t[i + 1]}`); }
  }
  const cut = new Date(Date.UTC(2020, 0, 1)).toISOString();

  // ---------------------------------------------------------------- indexing
  const rss0 = process.memoryUsage().rss;
  const heap0 = process.memoryUsage().heapUsed;
  let t = performance.now();
  const ix = new KeywordIndex();
  ix.build(docs);
  const buildMs = performance.now() - t;
  const heapOurs = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - heap0;
  let peakRss = process.memoryUsage().rss;

  t = performance.now();
  const mini = new MiniSearch<KeywordDocument>({
    fields: ['text', 'title'],
    storeFields: ['tags', 'published_at', 'text'],
    extractField: (d, f) => (f === 'title' ? String((d.meta as Record<string, unknown>).title) : (d as unknown as Record<string, unknown>)[f] as string),
  });
  mini.addAll(docs);
  const miniMs = performance.now() - t;
  peakRss = Math.max(peakRss, process.memoryUsage().rss);

  // single-document upserts into the built index (the write path)
  const updates = docs.slice(0, 2000).map((d) => ({ ...d, text: `${d.text} updated` }));
  t = performance.now();
  for (const d of updates) ix.upsert(d);
  const upsertMs = (performance.now() - t) / updates.length;

  // ---------------------------------------------------------------- queries
  const rows: Row[] = [];
  const run = (name: string, ours: (i: number) => number, theirs: (i: number) => number): void => {
    // warm-up, then measure
    for (let i = 0; i < 30; i++) { ours(i); theirs(i); }
    let i = 0, hitsOurs = 0, hitsMini = 0;
    const o = time(() => { hitsOurs += ours(i++ % QUERIES); }, QUERIES);
    i = 0;
    const m = time(() => { hitsMini += theirs(i++ % QUERIES); }, QUERIES);
    rows.push({ name, ours: o, mini: m, hitsOurs: hitsOurs / QUERIES, hitsMini: hitsMini / QUERIES });
  };

  run('match (2 words, OR, top 10)',
    (i) => ix.search({ query: { match: { text: matchQs[i] } } }).hits.total.value,
    (i) => mini.search(matchQs[i], { fields: ['text'] }).slice(0, 10).length && mini.search(matchQs[i], { fields: ['text'] }).length);
  run('bool: must match + range published_at + must_not tag',
    (i) => ix.search({ query: { bool: { must: [{ match: { text: matchQs[i] } }], filter: [{ range: { published_at: { gte: cut } } }], must_not: [{ term: { tags: 'role::shared-lib' } }] } } }).hits.total.value,
    (i) => mini.search(matchQs[i], { fields: ['text'], filter: (r) => String(r.published_at) >= cut && !(r.tags as string[]).includes('role::shared-lib') }).length);
  run('match_phrase (2 words)',
    (i) => ix.search({ query: { match_phrase: { text: phraseQs[i] } } }).hits.total.value,
    (i) => {
      const needle = phraseQs[i];
      // MiniSearch has no phrase query: AND search, then check the phrase in the stored text.
      return mini.search(needle, { fields: ['text'], combineWith: 'AND', filter: (r) => analyze(String(r.text)).join(' ').includes(needle) }).length;
    });
  run('terms agg on tags (over a match, size 0)',
    (i) => {
      const r = ix.search({ size: 0, query: { match: { text: matchQs[i] } }, aggs: { t: { terms: { field: 'tags', size: 10 } } } });
      return (r.aggregations?.t as { buckets: unknown[] }).buckets.length;
    },
    (i) => {
      const counts = new Map<string, number>();
      for (const r of mini.search(matchQs[i], { fields: ['text'] })) for (const tg of r.tags as string[]) counts.set(tg, (counts.get(tg) ?? 0) + 1);
      return [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10).length;
    });
  const allAgg = time(() => { ix.search({ size: 0, aggs: { t: { terms: { field: 'tags', size: 10 } } } }); }, 30);
  const miniAll = time(() => {
    const counts = new Map<string, number>();
    for (const d of docs) for (const tg of d.tags ?? []) counts.set(tg, (counts.get(tg) ?? 0) + 1);
    [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10);
  }, 30);
  const qs = time(() => { ix.search({ query: { query_string: { query: 'python AND (library OR module) NOT doc*' } }, size: 10 }); }, 50);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);

  // ---------------------------------------------------------------- through the worker thread
  const host = new KeywordWorkerHost();
  t = performance.now();
  await host.build('bench', docs);
  const hostBuildMs = performance.now() - t;
  const asyncTime = async (fn: (i: number) => Promise<unknown>, n: number): Promise<{ p50: number; p99: number }> => {
    for (let i = 0; i < 30; i++) await fn(i);
    const ts: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await fn(i % QUERIES);
      ts.push(performance.now() - t0);
    }
    ts.sort((a, b) => a - b);
    return { p50: pct(ts, 50), p99: pct(ts, 99) };
  };
  const wMatch = await asyncTime((i) => host.search('bench', { query: { match: { text: matchQs[i] } } }), QUERIES);
  const wBool = await asyncTime((i) => host.search('bench', { query: { bool: { must: [{ match: { text: matchQs[i] } }], filter: [{ range: { published_at: { gte: cut } } }], must_not: [{ term: { tags: 'role::shared-lib' } }] } } }), QUERIES);
  // Stored fields come from the documents (storage's in the server; here the corpus in memory), added on the worker.
  const byId = new Map(docs.map((d) => [d.id, d]));
  const wFields = await asyncTime(async (i) => {
    const result = await host.search('bench', { query: { match: { text: matchQs[i] } } });
    return host.decorate(result, result.response.hits.hits.map((h) => byId.get(h.id)), ['text', 'meta', 'tags', 'published_at']);
  }, QUERIES);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  await host.close();

  const f = (x: number): string => x.toFixed(2);
  const out: string[] = [];
  out.push(`corpus: ${docs.length} documents (${path.basename(DATA)}), ${QUERIES} queries per type, node ${process.version}, ${os.cpus().length} cores, load average at end ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')}`);
  out.push('');
  out.push('| indexing | ours (KeywordIndex) | MiniSearch |');
  out.push('|---|---|---|');
  out.push(`| bulk build | ${f(buildMs / 1000)} s (${Math.round(docs.length / (buildMs / 1000))} docs/s) | ${f(miniMs / 1000)} s (${Math.round(docs.length / (miniMs / 1000))} docs/s) |`);
  out.push(`| single upsert into the built index | ${f(upsertMs * 1000)} µs/doc | — |`);
  out.push(`| heap + array buffers after build (ours) | ${mb(heapOurs)} MB | — |`);
  out.push(`| RSS before load / peak | ${mb(rss0)} MB / ${mb(peakRss)} MB (both indexes + corpus) | |`);
  out.push('');
  out.push('| query | ours p50 ms | ours p99 ms | MiniSearch p50 ms | MiniSearch p99 ms | mean hits ours / MiniSearch |');
  out.push('|---|---|---|---|---|---|');
  for (const r of rows) out.push(`| ${r.name} | ${f(r.ours.p50)} | ${f(r.ours.p99)} | ${f(r.mini.p50)} | ${f(r.mini.p99)} | ${Math.round(r.hitsOurs)} / ${Math.round(r.hitsMini)} |`);
  out.push(`| terms agg on tags over all docs (size 0, match_all) | ${f(allAgg.p50)} | ${f(allAgg.p99)} | ${f(miniAll.p50)} (plain JS count) | ${f(miniAll.p99)} | |`);
  out.push(`| query_string \`python AND (library OR module) NOT doc*\` | ${f(qs.p50)} | ${f(qs.p99)} | | | |`);
  out.push('');
  out.push('| through KeywordWorkerHost (worker thread, round trip) | p50 ms | p99 ms |');
  out.push('|---|---|---|');
  out.push(`| build 63k docs in the worker (chunks of 5000) | ${f(hostBuildMs / 1000)} s total | ${Math.round(docs.length / (hostBuildMs / 1000))} docs/s |`);
  out.push(`| match (ids + scores) | ${f(wMatch.p50)} | ${f(wMatch.p99)} |`);
  out.push(`| match with fields text,meta,tags,published_at in hits | ${f(wFields.p50)} | ${f(wFields.p99)} |`);
  out.push(`| bool + range + must_not | ${f(wBool.p50)} | ${f(wBool.p99)} |`);
  console.log(out.join('\n'));
}

/**
 * BENCH_SYNTHETIC=<n>: memory and latency of the index alone on n generated short documents
 * (12 words from a Zipf vocabulary of 50k, a 3-word meta.title, 2 of 100 tags, dates).
 */
function synthetic(n: number): void {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const rand = rng(7);
  const V = 50_000;
  const word = (i: number): string => `w${i.toString(36)}`;
  const zipf = (): number => Math.min(V - 1, Math.floor(Math.exp(rand() * Math.log(V))) - 1);
  const base = Date.UTC(2020, 0, 1);
  const docs: KeywordDocument[] = [];
  for (let i = 0; i < n; i++) {
    const words = Array.from({ length: 12 }, () => word(zipf()));
    const d = new Date(base + Math.floor(rand() * 4 * 365) * 86_400_000).toISOString();
    docs.push({ id: `d${i}`, text: words.join(' '), meta: { title: words.slice(0, 3).join(' ') }, tags: [`t${i % 100}`, `t${(i * 7) % 100}`], published_at: d, created_at: d, updated_at: d });
  }
  gc();
  const m0 = process.memoryUsage();
  const t0 = performance.now();
  const ix = new KeywordIndex();
  ix.build(docs);
  const buildS = (performance.now() - t0) / 1000;
  gc();
  const m1 = process.memoryUsage();
  const bytes = m1.heapUsed + m1.arrayBuffers - m0.heapUsed - m0.arrayBuffers;
  const q = (name: string, body: (i: number) => unknown, runs = 30): string => {
    const r = time(() => { ix.search(body(Math.floor(rand() * 1000))); }, runs);
    return `| ${name} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} |`;
  };
  console.log([
    '',
    `synthetic: ${n} documents, build ${buildS.toFixed(1)} s (${Math.round(n / buildS)} docs/s), index alone ${mb(bytes)} MB (${Math.round(bytes / n)} B/doc; documents excluded), RSS ${mb(m1.rss)} MB`,
    '',
    '| query | p50 ms | p99 ms |',
    '|---|---|---|',
    q('match 2 mid-frequency words', (i) => ({ query: { match: { text: `${word(300 + i)} ${word(700 + i)}` } } })),
    q('match 2 frequent words', (i) => ({ query: { match: { text: `${word(i % 20)} ${word((i % 20) + 1)}` } } })),
    q('bool: match + range published_at', (i) => ({ query: { bool: { must: { match: { text: `${word(300 + i)} ${word(700 + i)}` } }, filter: { range: { published_at: { gte: '2022-01-01' } } } } } })),
    q('match_phrase', (i) => ({ query: { match_phrase: { text: `${word(3 + (i % 50))} ${word(5 + (i % 50))}` } } })),
    q('terms agg on tags over all docs', () => ({ size: 0, aggs: { t: { terms: { field: 'tags' } } } }), 10),
  ].join('\n'));
}

if (process.env.BENCH_SYNTHETIC) {
  synthetic(Number(process.env.BENCH_SYNTHETIC));
  process.exit(0);
}

main().catch((e: unknown) => { console.error(e); process.exit(1); });
