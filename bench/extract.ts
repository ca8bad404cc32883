/**
 * Article extraction benchmark through the service's own code path (issue 30).
 *   npm run bench:extract [-- --corpus all|eval|readability] [--every 3 [--offset 0|1|2]] [--threads 2] [--out bench/results/extract.md]
 * Pages are served from a local HTTP server on 127.0.0.1, fetched by the parser's fetcher and extracted by the
 * `extract` pool task (what GET /parser/ runs). Two corpora:
 * - extraction-eval (trafilatura's 990 pages): body precision/recall/F by the set's own score.mjs, title exact,
 *   author, date (same day), pages/s in the pool (fetch excluded), beside the published figures of other extractors;
 * - mozilla/readability's test pages: body token F1 against expected.html, title/author/date exact, clean and with
 *   injected page furniture, beside plain Readability on the same HTML.
 * Misses (title/author/date) are written to a file for inspection (--misses, default in the temp dir).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { Readability } from '@mozilla/readability';
import { WorkerPool } from '../src/pool';
import { parseHtml } from '../src/parser/extract';
import { fetchArticlePage } from '../src/parser/fetch';
import { paragraphsOf, wordTokens } from '../src/parser/text';
import type { ArticleResult, ExtractPayload } from '../src/parser/types';
import { arg, authorKey, sameDay, squashSpace } from './extract-fields';
import { injectNoise } from './extract-noise';

const PAGE_URL = 'http://fakehost/test/page.html';

interface Page {
  name: string;
  source: string;
  noisy: string;
  expectedTokens: string[];
  meta: { title: string | null; byline: string | null; publishedTime: string | null; readerable: boolean };
}

interface Scores {
  f1: number;
  title: boolean;
  /** Exact, or the expected title is ours plus a trailing " <separator> <site name>" we trimmed on purpose. */
  titleLoose: boolean;
  author: boolean;
  /** Case, whitespace and a leading "By"/"Par"/"Von" ignored. */
  authorLoose: boolean;
  published: boolean;
  /** Expected has a date and ours is the same instant (to the second). */
  publishedFound: boolean;
  publishedExpected: boolean;
  /** Expected has no date, ours has one. */
  publishedExtra: boolean;
}


export function tokenF1(predicted: string[], expected: string[]): number {
  if (predicted.length === 0 && expected.length === 0) return 1;
  if (predicted.length === 0 || expected.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const t of expected) counts.set(t, (counts.get(t) ?? 0) + 1);
  let overlap = 0;
  for (const t of predicted) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      overlap++;
      counts.set(t, c - 1);
    }
  }
  const precision = overlap / predicted.length;
  const recall = overlap / expected.length;
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}

const norm = (s: string | null | undefined): string => (s ?? '').replace(/\s+/g, ' ').trim();
const sameInstant = (a: string | null | undefined, b: string | null | undefined): boolean => {
  if (!a && !b) return true;
  if (!a || !b) return false;
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  return !Number.isNaN(ta) && ta === tb;
};

/** jsdom frees a closed window's memory only after the event loop turns; a tight loop over pages would run out of heap. */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

async function loadPages(dir: string): Promise<Page[]> {
  const pages: Page[] = [];
  for (const name of fs.readdirSync(dir).sort()) {
    const folder = path.join(dir, name);
    if (!fs.statSync(folder).isDirectory() || !fs.existsSync(path.join(folder, 'source.html'))) continue;
    const source = fs.readFileSync(path.join(folder, 'source.html'), 'utf8');
    const expectedDom = parseHtml(fs.readFileSync(path.join(folder, 'expected.html'), 'utf8'), PAGE_URL);
    const expectedTokens = wordTokens(paragraphsOf(expectedDom.window.document.body).join('\n'));
    expectedDom.window.close();
    const meta = JSON.parse(fs.readFileSync(path.join(folder, 'expected-metadata.json'), 'utf8')) as Page['meta'];
    pages.push({ name, source, noisy: injectNoise(source), expectedTokens, meta });
    await yieldToEventLoop();
  }
  return pages;
}

interface PlainResult {
  title: string;
  author: string;
  published: string | null;
  body: string;
}

function plainReadability(html: string): PlainResult {
  const dom = parseHtml(html, PAGE_URL);
  try {
    const article = new Readability(dom.window.document, { classesToPreserve: ['caption'] }).parse();
    return {
      title: article?.title ?? '',
      author: article?.byline ?? '',
      published: article?.publishedTime ?? null,
      body: article?.textContent ?? '',
    };
  } catch {
    return { title: '', author: '', published: null, body: '' };
  } finally {
    dom.window.close();
  }
}

const looseAuthor = (s: string | null | undefined): string => norm(s).toLowerCase().replace(/^(?:by|par|von|por)\s+/, '');
const sameSecond = (a: string | null | undefined, b: string | null | undefined): boolean =>
  !!a && !!b && Math.abs(Date.parse(a) - Date.parse(b)) < 1000;

function score(page: Page, result: { title: string; author: string; published: string | null; body: string }): Scores {
  const title = norm(result.title);
  const expectedTitle = norm(page.meta.title);
  const expectedDate = page.meta.publishedTime;
  return {
    f1: tokenF1(wordTokens(result.body), page.expectedTokens),
    title: title === expectedTitle,
    titleLoose: title === expectedTitle || (title !== '' && expectedTitle.startsWith(title) && /^\s*[|\-–—:·•»]\s/.test(expectedTitle.slice(title.length))),
    author: norm(result.author) === norm(page.meta.byline),
    authorLoose: looseAuthor(result.author) === looseAuthor(page.meta.byline),
    published: sameInstant(result.published, expectedDate),
    publishedFound: !!expectedDate && sameSecond(result.published, expectedDate),
    publishedExpected: !!expectedDate,
    publishedExtra: !expectedDate && !!result.published,
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface Summary {
  meanF1: number;
  medianF1: number;
  worst: { name: string; f1: number }[];
  title: number;
  titleLoose: number;
  author: number;
  authorLoose: number;
  published: number;
  publishedFound: string;
  publishedExtra: number;
}

function summarise(names: string[], scores: Scores[]): Summary {
  const n = scores.length;
  const f1s = scores.map((s) => s.f1);
  const sorted = [...f1s].sort((a, b) => a - b);
  return {
    meanF1: f1s.reduce((a, b) => a + b, 0) / n,
    medianF1: percentile(sorted, 50),
    worst: names
      .map((name, i) => ({ name, f1: f1s[i] }))
      .sort((a, b) => a.f1 - b.f1)
      .slice(0, 5),
    title: scores.filter((s) => s.title).length / n,
    titleLoose: scores.filter((s) => s.titleLoose).length / n,
    author: scores.filter((s) => s.author).length / n,
    authorLoose: scores.filter((s) => s.authorLoose).length / n,
    published: scores.filter((s) => s.published).length / n,
    publishedFound: `${scores.filter((s) => s.publishedFound).length}/${scores.filter((s) => s.publishedExpected).length}`,
    publishedExtra: scores.filter((s) => s.publishedExtra).length,
  };
}

async function poolThroughput(pages: Page[], threads: number, rounds: number): Promise<number> {
  const pool = new WorkerPool({ threads, maxQueue: pages.length * rounds + 16 });
  try {
    // warm-up: load jsdom/readability in every worker
    await Promise.all(Array.from({ length: threads * 2 }, (_, i) => pool.run<ArticleResult>('extract', { html: pages[i % pages.length].source, url: PAGE_URL })));
    const started = process.hrtime.bigint();
    const jobs: Promise<ArticleResult>[] = [];
    for (let r = 0; r < rounds; r++) for (const page of pages) jobs.push(pool.run<ArticleResult>('extract', { html: page.source, url: PAGE_URL }));
    await Promise.all(jobs);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return (pages.length * rounds) / seconds;
  } finally {
    await pool.close();
  }
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const f3 = (x: number): string => x.toFixed(3);

/** `--speed-only`: just the worker-pool throughput, printed (for re-measuring when the machine is quieter). */
async function speedOnly(dir: string): Promise<void> {
  const pages: Page[] = [];
  for (const name of fs.readdirSync(dir).sort()) {
    const file = path.join(dir, name, 'source.html');
    if (!fs.existsSync(file)) continue;
    pages.push({ name, source: fs.readFileSync(file, 'utf8'), noisy: '', expectedTokens: [], meta: { title: null, byline: null, publishedTime: null, readerable: true } });
  }
  for (const threads of [1, 2, 4]) {
    const rate = await poolThroughput(pages, threads, 1);
    console.log(`| ${threads} | ${rate.toFixed(1)} | load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} |`);
  }
}


// ---------------------------------------------------------------------------------------------
// The service's own code path: pages served from a local HTTP server on 127.0.0.1, fetched with
// the parser's fetcher (SSRF checks on, private addresses allowed for the bench only), then the
// `extract` pool task that GET /parser/ runs. Pages/s counts the pool work only (fetch excluded).
// ---------------------------------------------------------------------------------------------

interface EvalRow {
  id: string;
  file: string;
  url?: string;
  title?: string;
  author?: string;
  date?: string;
}

interface Served {
  /** URL path → bytes. */
  bodies: Map<string, Buffer>;
}

function startServer(served: Served): Promise<{ server: http.Server; base: string }> {
  const server = http.createServer((req, res) => {
    const body = served.bodies.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (!body) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found\n');
      return;
    }
    // no charset in the header: the extractor finds the encoding in the bytes, as the eval set's serve.mjs does
    res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': body.length });
    res.end(body);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({ server, base: `http://127.0.0.1:${port}` });
    });
  });
}

async function fetchAll(urls: string[]): Promise<ExtractPayload[]> {
  const payloads: ExtractPayload[] = new Array<ExtractPayload>(urls.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < urls.length) {
      const i = next++;
      const page = await fetchArticlePage(urls[i], { allowPrivate: true });
      payloads[i] = { html: page.html, url: page.url };
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return payloads;
}

async function runPool(payloads: ExtractPayload[], threads: number): Promise<{ results: ArticleResult[]; pagesPerSecond: number }> {
  const pool = new WorkerPool({ threads, maxQueue: payloads.length + 16 });
  try {
    await Promise.all(Array.from({ length: threads * 2 }, (_, i) => pool.run<ArticleResult>('extract', payloads[i % payloads.length])));
    const started = process.hrtime.bigint();
    const results = await Promise.all(payloads.map((payload) => pool.run<ArticleResult>('extract', payload)));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { results, pagesPerSecond: payloads.length / seconds };
  } finally {
    await pool.close();
  }
}

const EVAL_PUBLISHED: [string, number, number, number][] = [
  ['trafilatura 2.2.0 (standard)', 0.906, 0.943, 0.924],
  ['trafilatura 2.2.0 (precision)', 0.925, 0.915, 0.92],
  ['trafilatura 2.2.0 (fast)', 0.907, 0.93, 0.918],
  ['trafilatura 2.2.0 (recall)', 0.899, 0.939, 0.918],
  ['magic-html 0.1.8', 0.887, 0.891, 0.889],
  ['justext 3.0.2 (custom)', 0.864, 0.859, 0.862],
  ['news-please 1.6.16', 0.932, 0.758, 0.836],
  ['readability-lxml 0.8.4.1', 0.898, 0.764, 0.826],
  ['baseline (text markup)', 0.767, 0.869, 0.815],
  ['goose3 3.1.22', 0.936, 0.714, 0.81],
  ['boilerpy3 1.0.7 (article mode)', 0.818, 0.796, 0.807],
  ['newspaper4k 0.9.6', 0.878, 0.736, 0.801],
];

interface EvalScore {
  precision: number;
  recall: number;
  f1: number;
  tp: number;
  fp: number;
  fn: number;
  tn: number;
}

function scoreWithEvalScorer(dataDir: string, results: ArticleResult[], rows: EvalRow[]): EvalScore {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-extract-'));
  const file = path.join(tmp, 'extracted.jsonl');
  fs.writeFileSync(file, rows.map((row, i) => JSON.stringify({ file: row.file, text: results[i]?.body ?? null })).join('\n') + '\n');
  const evalFile = path.join(tmp, 'eval.jsonl');
  fs.writeFileSync(evalFile, rows.map((row) => JSON.stringify(row)).join('\n') + '\n');
  const out = execFileSync(process.execPath, [path.join(dataDir, 'score.mjs'), file, '--json', '--worst', '0', '--eval', evalFile], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (process.env.BENCH_KEEP) console.log(`extracted texts kept in ${file}`);
  else fs.rmSync(tmp, { recursive: true, force: true });
  return JSON.parse(out) as EvalScore;
}

interface MetaTally {
  title: [number, number];
  author: [number, number];
  date: [number, number];
}

function tallyEvalMetadata(rows: EvalRow[], results: ArticleResult[], misses: string[]): MetaTally {
  const tally: MetaTally = { title: [0, 0], author: [0, 0], date: [0, 0] };
  rows.forEach((row, i) => {
    const r = results[i];
    if (row.title !== undefined) {
      tally.title[1]++;
      if (squashSpace(r.title) === squashSpace(row.title)) tally.title[0]++;
      else misses.push(`title  ${row.file}: ${JSON.stringify(r.title)} expected ${JSON.stringify(row.title)}`);
    }
    if (row.author !== undefined) {
      tally.author[1]++;
      if (authorKey(r.author) === authorKey(row.author)) tally.author[0]++;
      else misses.push(`author ${row.file}: ${JSON.stringify(r.author)} expected ${JSON.stringify(row.author)}`);
    }
    if (row.date !== undefined) {
      tally.date[1]++;
      if (sameDay(r.published, row.date)) tally.date[0]++;
      else misses.push(`date   ${row.file}: ${JSON.stringify(r.published)} expected ${JSON.stringify(row.date)}`);
    }
  });
  return tally;
}

const share = ([hit, total]: [number, number]): string => `${pct(total ? hit / total : 0)} (${hit}/${total})`;

async function main(): Promise<void> {
  if (process.argv.includes('--speed-only')) return speedOnly(arg('--dir', path.join(__dirname, '..', '..', '..', 'shared', 'data', 'readability-pages')));
  const shared = path.join(__dirname, '..', '..', '..', 'shared', 'data');
  const dir = arg('--dir', path.join(shared, 'readability-pages'));
  const evalDir = arg('--eval', path.join(shared, 'extraction-eval'));
  const out = arg('--out', path.join(__dirname, '..', '..', 'bench', 'results', 'extract.md'));
  const threads = Number(arg('--threads', '2'));
  const only = arg('--corpus', 'all');
  /** Development loop: every k-th page of extraction-eval only (the published comparison needs 1). */
  const every = Math.max(1, Number(arg('--every', '1')));
  /** Which page of each group of `every` (0 = the dev pages; 1 and 2 hold rules out for confirmation). */
  const offset = Math.min(every - 1, Math.max(0, Number(arg('--offset', '0'))));
  const missesFile = arg('--misses', path.join(os.tmpdir(), 'kindred-extract-misses.txt'));
  const lines: string[] = [
    '# Article extraction benchmark',
    '',
    `- Command: \`npx tsc -p tsconfig.json && npm run bench:extract\``,
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${os.cpus().length} cores (shared, noisy), Node ${process.version}; pool of ${threads} worker threads`,
    '- Path: every page is served by a local HTTP server on 127.0.0.1 (Content-Type text/html, no charset), fetched',
    '  by the parser\'s fetcher (`fetchArticlePage`, SSRF checks on with private addresses allowed) and extracted by the',
    '  `extract` pool task that GET /parser/ runs. Pages/s times the pool work only, all pages in flight (fetch excluded).',
    '',
  ];
  const misses: string[] = [];
  const served: Served = { bodies: new Map() };
  const { server, base } = await startServer(served);
  try {
    if (only === 'all' || only === 'eval') {
      const rows = fs
        .readFileSync(path.join(evalDir, 'eval.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as EvalRow)
        .filter((_row, i) => i % every === offset);
      const urls = rows.map((row) => {
        const name = row.file.replace(/\.gz$/, '');
        served.bodies.set(`/eval/${encodeURIComponent(name)}`, zlib.gunzipSync(fs.readFileSync(path.join(evalDir, 'pages', row.file))));
        return `${base}/eval/${encodeURIComponent(name)}`;
      });
      const payloads = await fetchAll(urls);
      const { results, pagesPerSecond } = await runPool(payloads, threads);
      const body = scoreWithEvalScorer(evalDir, results, rows);
      const meta = tallyEvalMetadata(rows, results, misses);
      lines.push(
        `## extraction-eval (${rows.length} pages${every > 1 ? `, every ${every}th from offset ${offset}` : ''}, ${evalDir})`,
        '',
        'Body: the set\'s own `score.mjs` (snippets that must / must not appear, micro-averaged). Title: exact after',
        'whitespace normalisation. Author: equal ignoring case, whitespace, a leading "By"/"Von"… and trailing punctuation.',
        'Date: the same calendar day as the annotation (the first 10 characters of our ISO date).',
        '',
        '| extractor | precision | recall | F-score | title exact | author | date (same day) | pages/s (pool, fetch excluded) |',
        '|---|---|---|---|---|---|---|---|',
        `| **Kindred** (this build) | ${f3(body.precision)} | ${f3(body.recall)} | **${f3(body.f1)}** (${body.f1.toFixed(4)}) | ${share(meta.title)} | ${share(meta.author)} | ${share(meta.date)} | ${pagesPerSecond.toFixed(1)} |`,
        ...EVAL_PUBLISHED.map(([name, p, r, f]) => `| ${name} (published 2026-08-04) | ${f3(p)} | ${f3(r)} | ${f3(f)} | | | | |`),
        '',
        `tp ${body.tp}, fn ${body.fn}, fp ${body.fp}, tn ${body.tn}.`,
        '',
      );
      await yieldToEventLoop();
    }
    if (only === 'all' || only === 'readability') {
      const pages = await loadPages(dir);
      const urls = pages.map((page) => {
        served.bodies.set(`/rd/${encodeURIComponent(page.name)}/page.html`, Buffer.from(page.source, 'utf8'));
        return `${base}/rd/${encodeURIComponent(page.name)}/page.html`;
      });
      const payloads = await fetchAll(urls);
      const { results, pagesPerSecond } = await runPool(payloads, threads);
      const noisy = await runPool(pages.map((page, i) => ({ html: page.noisy, url: payloads[i].url })), threads);
      const ours = pages.map((page, i) => score(page, results[i]));
      const oursNoisy = pages.map((page, i) => score(page, noisy.results[i]));
      const plain: Scores[] = [];
      const plainNoisy: Scores[] = [];
      for (const page of pages) {
        await yieldToEventLoop();
        plain.push(score(page, plainReadability(page.source)));
        plainNoisy.push(score(page, plainReadability(page.noisy)));
      }
      pages.forEach((page, i) => {
        const s = ours[i];
        const mine = results[i];
        if (!s.title) misses.push(`rd-title  ${page.name}: ${JSON.stringify(mine.title)} expected ${JSON.stringify(page.meta.title)}`);
        if (!s.author) misses.push(`rd-author ${page.name}: ${JSON.stringify(mine.author)} expected ${JSON.stringify(page.meta.byline)}`);
        if (!s.published) misses.push(`rd-date   ${page.name}: ${JSON.stringify(mine.published)} expected ${JSON.stringify(page.meta.publishedTime)}`);
      });
      const names = pages.map((p) => p.name);
      const summaries = {
        ours: summarise(names, ours),
        plain: summarise(names, plain),
        oursNoisy: summarise(names, oursNoisy),
        plainNoisy: summarise(names, plainNoisy),
      };
      const row = (label: string, s: Summary): string =>
        `| ${label} | ${f3(s.meanF1)} | ${f3(s.medianF1)} | ${pct(s.title)} (${pct(s.titleLoose)}) | ${pct(s.author)} (${pct(s.authorLoose)}) | ${pct(s.published)} | ${s.publishedFound} | ${s.publishedExtra} |`;
      const worst = (s: Summary): string => s.worst.map((w) => `${w.name} ${f3(w.f1)}`).join(', ');
      lines.push(
        `## readability test pages (${pages.length} pages, ${dir})`,
        '',
        'Body F1 is bag-of-words token F1 of `body` against the text of expected.html (itself Readability output).',
        'Title/author exact after whitespace normalisation; published compares instants (null = null). In brackets: title',
        'also counted when the expected title is ours plus a trailing " | Site"; author ignoring case and a leading "By".',
        'Plain Readability runs in-process on the same HTML; the noise-injected variant goes through the pool without HTTP.',
        '',
        '| extractor | mean body F1 | median F1 | title exact (loose) | author exact (loose) | published exact | dates found | extra dates |',
        '|---|---|---|---|---|---|---|---|',
        row('**Kindred** (clean pages)', summaries.ours),
        row('plain Readability (clean pages)', summaries.plain),
        row('**Kindred** (noise injected)', summaries.oursNoisy),
        row('plain Readability (noise injected)', summaries.plainNoisy),
        '',
        `Pool, ${threads} threads, fetch excluded: ${pagesPerSecond.toFixed(1)} pages/s.`,
        '',
        `Worst 5 body F1, Kindred: ${worst(summaries.ours)}; with injected noise: ${worst(summaries.oursNoisy)}`,
        '',
      );
    }
  } finally {
    server.close();
  }
  lines.push(`Peak RSS of the bench process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB. Misses listed in ${missesFile}.`, '');
  fs.writeFileSync(missesFile, misses.join('\n') + '\n');
  const report = lines.join('\n');
  console.log(report);
  if (!process.argv.includes('--no-write')) {
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, report);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
