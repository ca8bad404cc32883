/**
 * Sorts the author misses of a bench/extract-meta.ts dump by kind, per third of extraction-eval (index mod 3), so the
 * next engineer sees which kinds a rule can reach at all:
 *   - "format": the answer and the annotation name the same person written otherwise (one holds the other,
 *     accents, ß/ss, a handle or a user name spelt as the name);
 *   - "other, in inputs": another name was chosen, and one of the rules' inputs holds the annotation (an order or a
 *     cleaning rule can reach it);
 *   - "other, on page" / "other, not on page": another name was chosen; the annotation is in the page's HTML but in
 *     no input (a new input could reach it), or nowhere in the HTML (the annotator's own choice or the rendered page);
 *   - "none, in inputs" / "none, on page" / "none, not on page": nothing was chosen, and the same three places;
 *   - "annotator's choice" marks annotations that are a user name, an agency code or a site (one lower-case word,
 *     "dpa/lno", a domain) in the last column.
 *   node dist/bench/extract-meta-misses.js [--dump /tmp/meta-dump.json] [--list]
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { chooseAuthor } from '../src/parser/author';
import { decodeHtml } from '../src/parser/charset';
import type { MetaDumpRow } from './extract-meta';
import { arg, authorKey } from './extract-fields';

/** Letters and digits only, without case or accents, ß as ss. */
const folded = (text: string | null | undefined): string =>
  (text ?? '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\p{L}\p{N}]+/gu, '');

/** A user name, an agency code or a site rather than a person's name. */
const looksLikeHandle = (annotation: string): boolean => /^[\p{Ll}\d_.-]+$/u.test(annotation) || /\/|\.(?:de|com|at|ch|org|net)\b/i.test(annotation);

function inputsOf(row: MetaDumpRow): string[] {
  const { author } = row;
  return [author.jsonLd?.name, ...Object.values(author.meta), author.readability, ...author.bylines, ...author.lines, ...author.fallbacks, author.copyright, author.signature, ...row.title.siteNames].filter(
    (text): text is string => !!text,
  );
}

function kindOf(row: MetaDumpRow, answer: string, html: string): string {
  const expected = folded(row.expected.author);
  const got = folded(answer);
  if (got && (got.includes(expected) || expected.includes(got))) return 'format';
  const where = inputsOf(row).some((text) => folded(text).includes(expected)) ? 'in inputs' : folded(html).includes(expected) ? 'on page' : 'not on page';
  return `${answer ? 'other' : 'none'}, ${where}`;
}

function main(): void {
  const rows = JSON.parse(fs.readFileSync(arg('--dump', '/tmp/meta-dump.json'), 'utf8')) as MetaDumpRow[];
  const evalDir = arg('--eval', path.join(__dirname, '..', '..', '..', 'shared', 'data', 'extraction-eval'));
  const table = new Map<string, [number, number, number, number]>();
  for (const row of rows) {
    if (row.corpus !== 'eval' || !row.expected.author) continue;
    const answer = chooseAuthor(row.author, row.author.readability, row.title.siteNames);
    if (authorKey(answer) === authorKey(row.expected.author)) continue;
    const html = decodeHtml(zlib.gunzipSync(fs.readFileSync(path.join(evalDir, 'pages', row.file))), 'text/html').text;
    const kind = kindOf(row, answer, html);
    const counts = table.get(kind) ?? [0, 0, 0, 0];
    counts[row.index % 3]++;
    if (looksLikeHandle(row.expected.author)) counts[3]++;
    table.set(kind, counts);
    if (process.argv.includes('--list')) console.log(`${row.index % 3} ${kind.padEnd(20)} ${row.file}: ${JSON.stringify(answer)} expected ${JSON.stringify(row.expected.author)}`);
  }
  console.log('| kind | third 0 | third 1 | third 2 | all | of them a user name, agency code or site |');
  console.log('|---|---|---|---|---|---|');
  for (const [kind, [a, b, c, handles]] of [...table].sort((x, y) => y[1][0] + y[1][1] + y[1][2] - (x[1][0] + x[1][1] + x[1][2]))) {
    console.log(`| ${kind} | ${a} | ${b} | ${c} | ${a + b + c} | ${handles} |`);
  }
}

main();
