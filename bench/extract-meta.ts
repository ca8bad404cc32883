/**
 * Metadata development loop for issue 30: dumps, for every page of extraction-eval and of the readability test
 * pages, what the title, author and date rules read (declared titles, headings, site names, byline candidates,
 * date sources) beside the annotation, so a rule can be scored on all pages in seconds from the dump and split
 * into the dev third (eval index mod 3 = 0) and the held-out thirds. Readability's own metadata (title, byline,
 * date) is read the way its parse() reads it, without running the article grabber.
 *   node dist/bench/extract-meta.js [--out /tmp/meta-dump.json] [--authors-only]
 * With --authors-only only the pages whose author is annotated are dumped (half the time; title figures then cover those pages only).
 * The published figures come from `npm run bench:extract`, not from here.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Readability } from '@mozilla/readability';
import { authorInputs, type AuthorInputs } from '../src/parser/author';
import { decodeHtml } from '../src/parser/charset';
import { parseHtml } from '../src/parser/extract';
import { titleInputs, type TitleInputs } from '../src/parser/title';
import { readJsonLd, readMetaValues } from '../src/parser/metadata';
import { arg } from './extract-fields';

export interface MetaDumpRow {
  corpus: 'eval' | 'readability';
  /** Position in eval.jsonl (the thirds split), or in the readability folder listing. */
  index: number;
  file: string;
  expected: { title?: string | null; author?: string | null; date?: string | null };
  title: TitleInputs & { readability: string | null };
  author: AuthorInputs & { readability: string | null };
}

interface ReadabilityMetadata {
  title?: string;
  byline?: string;
  publishedTime?: string;
}

/** Readability's metadata step as parse() runs it (JSON-LD, then meta tags, then its <title> heuristics). */
function readabilityMetadata(doc: Document): ReadabilityMetadata & { title: string } {
  const reader = new Readability<Element>(doc) as unknown as {
    _getJSONLD(doc: Document): Record<string, string>;
    _getArticleMetadata(jsonLd: Record<string, string>): ReadabilityMetadata;
    _getArticleTitle(): string;
  };
  const metadata = reader._getArticleMetadata(reader._getJSONLD(doc));
  return { ...metadata, title: metadata.title || reader._getArticleTitle() };
}

function dumpPage(html: string, url: string): Pick<MetaDumpRow, 'title' | 'author'> {
  const dom = parseHtml(html, url);
  try {
    const doc = dom.window.document;
    const values = readMetaValues(doc);
    const jsonLd = readJsonLd(doc);
    const inputs = titleInputs(doc, values, jsonLd, new URL(url).hostname);
    const author = authorInputs(doc, values, jsonLd, readJsonLd(doc, true));
    const readability = readabilityMetadata(doc);
    return { title: { ...inputs, readability: readability.title ?? null }, author: { ...author, readability: readability.byline ?? null } };
  } finally {
    dom.window.close();
  }
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

interface EvalRow {
  file: string;
  title?: string;
  author?: string;
  date?: string;
}

async function main(): Promise<void> {
  const shared = path.join(__dirname, '..', '..', '..', 'shared', 'data');
  const evalDir = arg('--eval', path.join(shared, 'extraction-eval'));
  const rdDir = arg('--dir', path.join(shared, 'readability-pages'));
  const out = arg('--out', '/tmp/meta-dump.json');
  const rows: MetaDumpRow[] = [];
  const evalRows = fs
    .readFileSync(path.join(evalDir, 'eval.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as EvalRow);
  const authorsOnly = process.argv.includes('--authors-only');
  for (const [index, row] of evalRows.entries()) {
    if (authorsOnly && !row.author) continue;
    const bytes = zlib.gunzipSync(fs.readFileSync(path.join(evalDir, 'pages', row.file)));
    const url = `http://127.0.0.1:8080/eval/${encodeURIComponent(row.file.replace(/\.gz$/, ''))}`;
    rows.push({ corpus: 'eval', index, file: row.file, expected: { title: row.title, author: row.author, date: row.date }, ...dumpPage(decodeHtml(bytes, 'text/html').text, url) });
    await yieldToEventLoop();
  }
  const names = fs.readdirSync(rdDir).sort().filter((name) => fs.existsSync(path.join(rdDir, name, 'source.html')));
  for (const [index, name] of names.entries()) {
    const meta = JSON.parse(fs.readFileSync(path.join(rdDir, name, 'expected-metadata.json'), 'utf8')) as { title: string | null; byline: string | null; publishedTime: string | null };
    if (authorsOnly && !meta.byline) continue;
    const html = fs.readFileSync(path.join(rdDir, name, 'source.html'), 'utf8');
    rows.push({ corpus: 'readability', index, file: name, expected: { title: meta.title, author: meta.byline, date: meta.publishedTime }, ...dumpPage(html, 'http://127.0.0.1:8080/rd/page.html') });
    await yieldToEventLoop();
  }
  fs.writeFileSync(out, JSON.stringify(rows));
  console.log(`${rows.length} pages dumped to ${out}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
