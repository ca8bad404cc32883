/**
 * Does this build extract the same as another build of the parser (e.g. main's)? Runs both on every page of
 * extraction-eval (decoded as the fetcher does) and of the readability test pages (as served, and with bench:extract's
 * injected furniture), and reports the pages where any field of the answer differs (title, author, published, url,
 * image, videos, keywords, summary, body).
 *   node dist/bench/extract-same.js --baseline /path/to/other/dist/src/parser/extract.js [--cache /tmp/main-answers.json]
 *     [--every 1] [--offset 0] [--corpus all|eval|readability]
 * --cache: the baseline's answers are read from this file when it exists (same pages), else computed and written to it,
 * so that several candidate builds are checked against one run of the baseline (--cache-only: write it and stop).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { decodeHtml } from '../src/parser/charset';
import { extractArticle } from '../src/parser/extract';
import type { ArticleResult } from '../src/parser/types';
import { arg } from './extract-fields';
import { injectNoise } from './extract-noise';

type Extract = typeof extractArticle;

interface SamePage {
  id: string;
  html: string;
  url: string;
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

function evalPages(evalDir: string, every: number, offset: number): SamePage[] {
  return fs
    .readFileSync(path.join(evalDir, 'eval.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { file: string }).file)
    .filter((_file, i) => i % every === offset)
    .map((file) => ({
      id: `eval/${file}`,
      html: decodeHtml(zlib.gunzipSync(fs.readFileSync(path.join(evalDir, 'pages', file))), 'text/html').text,
      url: `http://127.0.0.1:8080/eval/${encodeURIComponent(file)}`,
    }));
}

function readabilityPages(dir: string): SamePage[] {
  const pages: SamePage[] = [];
  for (const name of fs.readdirSync(dir).sort()) {
    const file = path.join(dir, name, 'source.html');
    if (!fs.existsSync(file)) continue;
    const source = fs.readFileSync(file, 'utf8');
    const url = `http://127.0.0.1:8080/rd/${encodeURIComponent(name)}/page.html`;
    pages.push({ id: `rd/${name}`, html: source, url }, { id: `rd-noisy/${name}`, html: injectNoise(source), url });
  }
  return pages;
}

const FIELDS: (keyof ArticleResult)[] = ['title', 'author', 'published', 'url', 'image', 'videos', 'keywords', 'summary', 'body'];

async function answersOf(extract: Extract, pages: readonly SamePage[]): Promise<Record<string, ArticleResult>> {
  const answers: Record<string, ArticleResult> = {};
  for (const page of pages) {
    answers[page.id] = extract(page.html, page.url);
    await yieldToEventLoop();
  }
  return answers;
}

const shown = (value: unknown): string => {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
};

async function main(): Promise<void> {
  const shared = path.join(__dirname, '..', '..', '..', 'shared', 'data');
  const evalDir = arg('--eval', path.join(shared, 'extraction-eval'));
  const rdDir = arg('--dir', path.join(shared, 'readability-pages'));
  const every = Math.max(1, Number(arg('--every', '1')));
  const offset = Number(arg('--offset', '0'));
  const corpus = arg('--corpus', 'all');
  const baselinePath = arg('--baseline', '');
  const cache = arg('--cache', '');
  if (!baselinePath && !(cache && fs.existsSync(cache))) throw new Error('--baseline <other build\'s dist/src/parser/extract.js> or an existing --cache is required');
  const pages = [
    ...(corpus === 'readability' ? [] : evalPages(evalDir, every, offset)),
    ...(corpus === 'eval' ? [] : readabilityPages(rdDir)),
  ];
  let theirs: Record<string, ArticleResult>;
  if (cache && fs.existsSync(cache)) {
    theirs = JSON.parse(fs.readFileSync(cache, 'utf8')) as Record<string, ArticleResult>;
  } else {
    const baseline = (require(path.resolve(baselinePath)) as { extractArticle: Extract }).extractArticle;
    theirs = await answersOf(baseline, pages);
    if (cache) fs.writeFileSync(cache, JSON.stringify(theirs));
    if (process.argv.includes('--cache-only')) return;
  }
  const ours = await answersOf(extractArticle, pages);
  const differing = new Map<keyof ArticleResult, number>();
  let pagesDiffering = 0;
  let missing = 0;
  for (const page of pages) {
    const before = theirs[page.id];
    if (!before) {
      missing++;
      continue;
    }
    const after = ours[page.id];
    const fields = FIELDS.filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]));
    if (fields.length === 0) continue;
    pagesDiffering++;
    for (const field of fields) differing.set(field, (differing.get(field) ?? 0) + 1);
    if (pagesDiffering <= 20) {
      console.log(`${page.id}:`);
      for (const field of fields) console.log(`  ${field}: ${shown(before[field])} → ${shown(after[field])}`);
    }
  }
  const byField = [...differing].map(([field, count]) => `${field} ${count}`).join(', ');
  console.log(
    `${pages.length - missing} pages compared (${corpus}, eval every ${every}th from ${offset}; readability pages clean and noisy): ` +
      `${pagesDiffering} differ${byField ? ` (${byField})` : ''}${missing ? `; ${missing} not in the cache` : ''}`,
  );
  if (pagesDiffering > 0 || missing > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
