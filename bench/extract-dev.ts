/**
 * Development loop for article extraction (issue 30): extraction-eval pages through the `extract` pool task,
 * without the HTTP server (pages decoded as the fetcher does), scored page by page with the set's own snippet
 * rule, so a rule can be tried on the pages it concerns and then confirmed on held-out pages.
 *   node dist/bench/extract-dev.js [--every 3] [--offset 0] [--files a.html.gz,b.html.gz] [--threads 2]
 *     [--save /tmp/run.json] [--against /tmp/before.json] [--show errors|changed|none]
 * `--against` prints the pages whose body score or metadata changed since a saved run.
 * The published figures come from `npm run bench:extract`, not from here.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { WorkerPool } from '../src/pool';
import { decodeHtml } from '../src/parser/charset';
import type { ArticleResult, ExtractPayload } from '../src/parser/types';
import { arg, authorKey, sameDay, squashSpace } from './extract-fields';

interface EvalRow {
  file: string;
  with: string[];
  without: string[];
  title?: string;
  author?: string;
  date?: string;
}

interface PageRun {
  file: string;
  missed: string[];
  leaked: string[];
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  title: boolean;
  author: boolean;
  date: boolean;
  result: Pick<ArticleResult, 'title' | 'author' | 'published' | 'body'>;
}

function scorePage(row: EvalRow, result: ArticleResult): PageRun {
  const text = squashSpace(result.body);
  const missed = row.with.filter((w) => !text.includes(squashSpace(w)));
  const leaked = row.without.filter((w) => text.includes(squashSpace(w)));
  return {
    file: row.file,
    missed,
    leaked,
    tp: row.with.length - missed.length,
    fn: missed.length,
    fp: leaked.length,
    tn: row.without.length - leaked.length,
    title: row.title === undefined || squashSpace(result.title) === squashSpace(row.title),
    author: row.author === undefined || authorKey(result.author) === authorKey(row.author),
    date: row.date === undefined || sameDay(result.published, row.date),
    result: { title: result.title, author: result.author, published: result.published, body: result.body },
  };
}

async function main(): Promise<void> {
  const evalDir = arg('--eval', path.join(__dirname, '..', '..', '..', 'shared', 'data', 'extraction-eval'));
  const every = Math.max(1, Number(arg('--every', '3')));
  const offset = Number(arg('--offset', '0'));
  const files = arg('--files', '');
  const show = arg('--show', 'errors');
  const all = fs
    .readFileSync(path.join(evalDir, 'eval.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as EvalRow);
  const wanted = files ? new Set(files.split(',')) : null;
  const rows = wanted ? all.filter((row) => wanted.has(row.file)) : all.filter((_row, i) => i % every === offset);
  const payloads: ExtractPayload[] = rows.map((row) => {
    const bytes = zlib.gunzipSync(fs.readFileSync(path.join(evalDir, 'pages', row.file)));
    return { html: decodeHtml(bytes, 'text/html').text, url: `http://127.0.0.1:8080/eval/${encodeURIComponent(row.file.replace(/\.gz$/, ''))}` };
  });
  const pool = new WorkerPool({ threads: Number(arg('--threads', '2')), maxQueue: payloads.length + 16 });
  const started = process.hrtime.bigint();
  let results: ArticleResult[];
  try {
    results = await Promise.all(payloads.map((payload) => pool.run<ArticleResult>('extract', payload)));
  } finally {
    await pool.close();
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const runs = rows.map((row, i) => scorePage(row, results[i]));
  const before = new Map<string, PageRun>();
  const against = arg('--against', '');
  if (against) for (const run of JSON.parse(fs.readFileSync(against, 'utf8')) as PageRun[]) before.set(run.file, run);
  for (const run of runs) {
    const old = before.get(run.file);
    const changed = old && (old.tp !== run.tp || old.fp !== run.fp || old.title !== run.title || old.author !== run.author || old.date !== run.date);
    const errors = run.fn + run.fp > 0 || !run.title || !run.author || !run.date;
    if (show === 'none' || (show === 'changed' && !changed) || (show === 'errors' && !errors && !changed)) continue;
    const delta = old ? ` (was tp ${old.tp} fp ${old.fp}${old.title !== run.title ? ` title ${old.title}` : ''}${old.author !== run.author ? ` author ${old.author}` : ''}${old.date !== run.date ? ` date ${old.date}` : ''})` : '';
    console.log(`== ${run.file}: tp ${run.tp} fn ${run.fn} fp ${run.fp}${delta}`);
    for (const m of run.missed) console.log(`   missed: ${JSON.stringify(m)}`);
    for (const l of run.leaked) console.log(`   leaked: ${JSON.stringify(l)}`);
    const row = rows.find((r) => r.file === run.file);
    if (!run.title) console.log(`   title: ${JSON.stringify(run.result.title)} expected ${JSON.stringify(row?.title)}`);
    if (!run.author) console.log(`   author: ${JSON.stringify(run.result.author)} expected ${JSON.stringify(row?.author)}`);
    if (!run.date) console.log(`   date: ${JSON.stringify(run.result.published)} expected ${JSON.stringify(row?.date)}`);
  }
  const sum = (key: 'tp' | 'fp' | 'fn' | 'tn'): number => runs.reduce((total, run) => total + run[key], 0);
  const [tp, fp, fn] = [sum('tp'), sum('fp'), sum('fn')];
  const share = (key: 'title' | 'author' | 'date', field: 'title' | 'author' | 'date'): string => {
    const having = rows.filter((row) => row[field] !== undefined).length;
    const hits = runs.filter((run, i) => rows[i][field] !== undefined && run[key]).length;
    return `${((100 * hits) / Math.max(1, having)).toFixed(1)}% (${hits}/${having})`;
  };
  console.log(
    `${rows.length} pages: P ${(tp / (tp + fp)).toFixed(3)} R ${(tp / (tp + fn)).toFixed(3)} F ${((2 * tp) / (2 * tp + fp + fn)).toFixed(4)} ` +
      `(tp ${tp} fn ${fn} fp ${fp}); title ${share('title', 'title')}, author ${share('author', 'author')}, date ${share('date', 'date')}; ` +
      `${(rows.length / seconds).toFixed(2)} pages/s`,
  );
  const save = arg('--save', '');
  if (save) fs.writeFileSync(save, JSON.stringify(runs));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
