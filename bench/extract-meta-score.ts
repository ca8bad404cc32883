/**
 * Scores the title and author rules on a dump of bench/extract-meta.ts in seconds: per third of extraction-eval
 * (index mod 3) and on the readability pages, as bench:extract compares them (title exact after whitespace,
 * author by authorKey). With --misses N the misses of third N are listed; with --changed old.json the pages
 * whose result differs from that earlier score file (written by --save) are listed.
 *   node dist/bench/extract-meta-score.js [--dump /tmp/meta-dump.json] [--misses 0] [--save /tmp/a.json] [--changed /tmp/a.json]
 */
import fs from 'node:fs';
import { chooseAuthor } from '../src/parser/author';
import { chooseTitle } from '../src/parser/title';
import type { MetaDumpRow } from './extract-meta';
import { arg, authorKey, squashSpace } from './extract-fields';

interface PageResult {
  title: string;
  author: string;
}

function resultOf(row: MetaDumpRow): PageResult {
  const title = chooseTitle(row.title, row.title.readability);
  const author = chooseAuthor(row.author, row.author.readability, row.title.siteNames);
  return { title, author };
}

function main(): void {
  const rows = JSON.parse(fs.readFileSync(arg('--dump', '/tmp/meta-dump.json'), 'utf8')) as MetaDumpRow[];
  const missThird = process.argv.includes('--misses') ? Number(arg('--misses', '0')) : null;
  const groups = ['eval 0', 'eval 1', 'eval 2', 'readability'];
  const tally = new Map(groups.map((g) => [g, { title: [0, 0], author: [0, 0] }]));
  const results: Record<string, PageResult> = {};
  const before = process.argv.includes('--changed') ? (JSON.parse(fs.readFileSync(arg('--changed', ''), 'utf8')) as Record<string, PageResult>) : null;
  for (const row of rows) {
    const group = row.corpus === 'eval' ? `eval ${row.index % 3}` : 'readability';
    const counts = tally.get(group)!;
    const result = resultOf(row);
    const key = `${row.corpus}/${row.file}`;
    results[key] = result;
    const { title: expectedTitle, author: expectedAuthor } = row.expected;
    const titleHit = squashSpace(result.title) === squashSpace(expectedTitle);
    const authorHit = row.corpus === 'eval' ? authorKey(result.author) === authorKey(expectedAuthor) : squashSpace(result.author) === squashSpace(expectedAuthor);
    if (expectedTitle !== undefined && expectedTitle !== null) {
      counts.title[1]++;
      if (titleHit) counts.title[0]++;
    }
    if (expectedAuthor !== undefined && expectedAuthor !== null) {
      counts.author[1]++;
      if (authorHit) counts.author[0]++;
    }
    const inThird = row.corpus === 'eval' && row.index % 3 === missThird;
    if (inThird && expectedTitle && !titleHit) console.log(`title  ${row.file}: ${JSON.stringify(result.title)} expected ${JSON.stringify(expectedTitle)}`);
    if (inThird && expectedAuthor && !authorHit) console.log(`author ${row.file}: ${JSON.stringify(result.author)} expected ${JSON.stringify(expectedAuthor)}`);
    const old = before?.[key];
    if (old && (old.title !== result.title || old.author !== result.author)) {
      const field = old.title !== result.title ? 'title' : 'author';
      const hit = field === 'title' ? titleHit : authorHit;
      console.log(`changed ${group} ${field} ${hit ? '+' : '-'} ${row.file}: ${JSON.stringify(old[field])} -> ${JSON.stringify(result[field])} expected ${JSON.stringify(row.expected[field])}`);
    }
  }
  for (const [group, counts] of tally) {
    const share = ([hit, all]: number[]): string => `${hit}/${all} ${((100 * hit) / Math.max(1, all)).toFixed(1)}%`;
    console.log(`${group.padEnd(12)} title ${share(counts.title)}  author ${share(counts.author)}`);
  }
  if (process.argv.includes('--save')) fs.writeFileSync(arg('--save', ''), JSON.stringify(results));
}

main();
