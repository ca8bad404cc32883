/**
 * Article extraction benchmark on mozilla/readability's test pages.
 *   npm run bench:extract [-- --dir <pages dir>] [--out bench/results/extract.md]
 * Quality: body token F1 against the text of expected.html; exact match of title, author
 * (byline) and published (same instant) against expected-metadata.json — for our extractor and
 * for plain Readability in the same run. A "noisy" variant injects typical page furniture
 * (share bar, newsletter box, ad labels, related links, comment thread) into each page's
 * densest text container and scores both again against the same expected text.
 * Speed: in-thread latency p50/p99 of both, and pages/s through the worker pool with 1, 2, 4 workers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readability } from '@mozilla/readability';
import { WorkerPool } from '../src/pool';
import { extractArticle, parseHtml } from '../src/parser/extract';
import { paragraphsOf, wordTokens } from '../src/parser/text';
import type { ArticleResult } from '../src/parser/types';

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

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
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

const NOISE_TOP =
  '<div class="share-bar"><a href="/s/fb">Share on Facebook</a> <a href="/s/tw">Share on Twitter</a> <a href="/s/mail">Email this article</a></div>' +
  '<div class="ad-slot"><p>Advertisement</p></div>' +
  '<div class="newsletter-signup"><h3>Get our morning briefing</h3><p>Sign up for our daily newsletter and never miss the stories that matter to you, delivered every morning.</p><form><input type="email"><button>Subscribe</button></form></div>';
const NOISE_BOTTOM =
  '<div class="related-articles"><h3>Related stories</h3><ul><li><a href="/a1">Ten things you did not know about the weather this week</a></li><li><a href="/a2">Why the housing market keeps surprising economists</a></li><li><a href="/a3">The best gadgets of the year, reviewed by our experts</a></li></ul></div>' +
  '<div id="comments" class="comments"><h3>42 Comments</h3><div class="comment"><p>Great article, thanks for sharing this with everyone here!</p></div><div class="comment"><p>I completely disagree with the author on this point and I think the whole premise is wrong.</p></div></div>' +
  '<div class="cookie-consent"><p>We use cookies to improve your experience on our site. By continuing you agree to our cookie policy.</p><button>Accept</button></div>';

/** Adds page furniture at the start and end of the element holding the most paragraph text. */
function injectNoise(source: string): string {
  const dom = parseHtml(source, PAGE_URL);
  const doc = dom.window.document;
  let best: Element | null = null;
  let bestScore = 0;
  const scores = new Map<Element, number>();
  for (const p of Array.from(doc.querySelectorAll('p'))) {
    const parent = p.parentElement;
    if (!parent) continue;
    const s = (scores.get(parent) ?? 0) + (p.textContent ?? '').length;
    scores.set(parent, s);
    if (s > bestScore) {
      bestScore = s;
      best = parent;
    }
  }
  const target = best ?? doc.body;
  if (target) {
    target.insertAdjacentHTML('afterbegin', NOISE_TOP);
    target.insertAdjacentHTML('beforeend', NOISE_BOTTOM);
  }
  const html = dom.serialize();
  dom.window.close();
  return html;
}

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

const NOTES = [
  '## Reading these figures',
  '',
  '- expected.html and expected-metadata.json are what Readability itself produced (mozilla\'s fixtures), so plain',
  '  Readability scores ~1.0 body F1 and ~100% metadata on clean pages by construction; on this corpus "better than',
  '  Readability" can only show on the noise-injected variant, where the same expected text is the target and both',
  '  extractors see the same furniture (share bar, ad label, newsletter box, related links, comments, cookie notice)',
  '  inserted into the densest text container of every page.',
  '- Body differences on clean pages are mostly by design: comment threads that Readability keeps (firefox-nightly-blog)',
  '  and "Share"/newsletter/ad blocks are removed, as the brief asks.',
  '- Title: the brief\'s rule (og:/twitter: title first, site-name suffix trimmed) differs from Readability\'s (JSON-LD,',
  '  dc:title before og:title, og:title untrimmed, guessing on <title>); most misses are trimmed " | Site" suffixes (counted',
  '  by the loose figure), dc:title/parsely test pages, and JSON-LD headlines that differ from og:title.',
  '- Author: we drop the "By " prefix and any date glued to the byline, Readability keeps them (loose figure).',
  '- Published: Readability reads only JSON-LD, article:published_time and parsely-pub-date; we also read other meta',
  '  tags, <time datetime> and URL dates, so most "misses" are dates the metadata lacks (the "extra dates" column).',
  '',
];

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

async function main(): Promise<void> {
  if (process.argv.includes('--speed-only')) return speedOnly(arg('--dir', path.join(__dirname, '..', '..', '..', 'shared', 'data', 'readability-pages')));
  const dir = arg('--dir', path.join(__dirname, '..', '..', '..', 'shared', 'data', 'readability-pages'));
  const out = arg('--out', path.join(__dirname, '..', '..', 'bench', 'results', 'extract.md'));
  const skipPool = process.argv.includes('--no-pool');
  const pages = await loadPages(dir);
  const names = pages.map((p) => p.name);
  console.log(`${pages.length} pages from ${dir}`);

  const ours: Scores[] = [];
  const plain: Scores[] = [];
  const oursNoisy: Scores[] = [];
  const plainNoisy: Scores[] = [];
  const oursMs: number[] = [];
  const plainMs: number[] = [];
  let peakRss = process.memoryUsage().rss;
  const details: string[] = [];
  for (const page of pages) {
    await yieldToEventLoop();
    let t = performance.now();
    const mine = extractArticle(page.source, PAGE_URL);
    oursMs.push(performance.now() - t);
    t = performance.now();
    const base = plainReadability(page.source);
    plainMs.push(performance.now() - t);
    const s = score(page, mine);
    ours.push(s);
    plain.push(score(page, base));
    oursNoisy.push(score(page, extractArticle(page.noisy, PAGE_URL)));
    plainNoisy.push(score(page, plainReadability(page.noisy)));
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    if (process.env.BENCH_VERBOSE) {
      if (!s.title) details.push(`${page.name} title: ${JSON.stringify(mine.title)} vs ${JSON.stringify(page.meta.title)}`);
      if (!s.author) details.push(`${page.name} author: ${JSON.stringify(mine.author)} vs ${JSON.stringify(page.meta.byline)}`);
      if (!s.published) details.push(`${page.name} published: ${JSON.stringify(mine.published)} vs ${JSON.stringify(page.meta.publishedTime)}`);
    }
  }
  if (details.length) console.log(details.join('\n'));

  const results = {
    ours: summarise(names, ours),
    plain: summarise(names, plain),
    oursNoisy: summarise(names, oursNoisy),
    plainNoisy: summarise(names, plainNoisy),
  };
  const sortedOurs = [...oursMs].sort((a, b) => a - b);
  const sortedPlain = [...plainMs].sort((a, b) => a - b);

  const throughput: { threads: number; pagesPerSecond: number }[] = [];
  if (!skipPool) {
    for (const threads of [1, 2, 4]) {
      throughput.push({ threads, pagesPerSecond: await poolThroughput(pages, threads, 1) });
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }
  }
  const maxRssMb = process.resourceUsage().maxRSS / 1024;

  const row = (label: string, s: Summary): string =>
    `| ${label} | ${f3(s.meanF1)} | ${f3(s.medianF1)} | ${pct(s.title)} (${pct(s.titleLoose)}) | ${pct(s.author)} (${pct(s.authorLoose)}) | ${pct(s.published)} | ${s.publishedFound} | ${s.publishedExtra} |`;
  const worst = (s: Summary): string => s.worst.map((w) => `${w.name} ${f3(w.f1)}`).join(', ');
  const lines = [
    '# Article extraction benchmark',
    '',
    `- Command: \`npx tsc -p tsconfig.parser.json && npm run bench:extract\``,
    `- Date: ${new Date().toISOString()}`,
    `- Corpus: ${pages.length} pages of mozilla/readability test-pages (/work/shared/data/readability-pages), URL ${PAGE_URL}`,
    `- Machine: ${require('node:os').cpus().length} cores (shared, noisy), Node ${process.version}`,
    '',
    'Body F1 is bag-of-words token F1 of `body` against the text of expected.html (itself Readability output, so',
    'plain Readability is the reference the corpus was made with). Title/author compare exact strings after',
    'whitespace normalisation; published compares instants (our ISO string vs the raw metadata string; null = null).',
    '',
    'In brackets: title also counted when the expected title is ours plus a trailing " | Site" we trimmed on purpose;',
    'author with case, whitespace and a leading "By"/"Par" ignored. "dates found": pages where the metadata has a date',
    'and ours is the same instant (±1 s); "extra dates": pages where the metadata has none and we found one.',
    '',
    '| extractor | mean body F1 | median F1 | title exact (loose) | author exact (loose) | published exact | dates found | extra dates |',
    '|---|---|---|---|---|---|---|---|',
    row('Kindred (clean pages)', results.ours),
    row('plain Readability (clean pages)', results.plain),
    row('Kindred (noise injected)', results.oursNoisy),
    row('plain Readability (noise injected)', results.plainNoisy),
    '',
    `Worst 5 body F1, Kindred: ${worst(results.ours)}`,
    '',
    `Worst 5 body F1, plain Readability: ${worst(results.plain)}`,
    '',
    `Worst 5 body F1 with injected noise, Kindred: ${worst(results.oursNoisy)}; plain Readability: ${worst(results.plainNoisy)}`,
    '',
    '## Speed',
    '',
    `In-thread latency per page (sequential): Kindred p50 ${f3(percentile(sortedOurs, 50))} ms, p99 ${f3(percentile(sortedOurs, 99))} ms;` +
      ` plain Readability p50 ${f3(percentile(sortedPlain, 50))} ms, p99 ${f3(percentile(sortedPlain, 99))} ms` +
      ` (ratio of medians ${(percentile(sortedOurs, 50) / percentile(sortedPlain, 50)).toFixed(2)}).`,
    '',
    ...(throughput.length
      ? ['| workers | pages/s (Kindred, worker pool, whole corpus once) |', '|---|---|', ...throughput.map((t) => `| ${t.threads} | ${t.pagesPerSecond.toFixed(1)} |`)]
      : ['(pool throughput skipped)']),
    '',
    `Peak RSS of the bench process (main thread; workers share it): ${maxRssMb.toFixed(0)} MB.`,
    '',
    ...NOTES,
  ];
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
