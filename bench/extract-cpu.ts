/**
 * CPU cost of extraction per page, this build against another build of the parser (e.g. main's), measured
 * in one process on the same pages, alternating page by page so that load on a shared machine hits both alike.
 *   node dist/bench/extract-cpu.js --baseline /work/main/dist/src/parser/extract.js [--every 10] [--offset 0]
 * CPU time (user + system of this process, one thread) rather than wall time: the pool's pages/s on a
 * dedicated core is 1000 / (ms per page).
 * Without --baseline, this build alone (a driver for `node --cpu-prof dist/bench/extract-cpu.js --every 10`).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { decodeHtml } from '../src/parser/charset';
import { extractArticle } from '../src/parser/extract';
import { arg } from './extract-fields';

type Extract = typeof extractArticle;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

function cpuMs(run: () => void): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

async function main(): Promise<void> {
  const evalDir = arg('--eval', path.join(__dirname, '..', '..', '..', 'shared', 'data', 'extraction-eval'));
  const every = Math.max(1, Number(arg('--every', '10')));
  const offset = Number(arg('--offset', '0'));
  const baselinePath = arg('--baseline', '');
  const baseline = baselinePath ? (require(path.resolve(baselinePath)) as { extractArticle: Extract }).extractArticle : null;
  const files = fs
    .readFileSync(path.join(evalDir, 'eval.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { file: string }).file)
    .filter((_file, i) => i % every === offset);
  const url = 'http://127.0.0.1:8080/eval/page.html';
  const pages = files.map((file) => decodeHtml(zlib.gunzipSync(fs.readFileSync(path.join(evalDir, 'pages', file))), 'text/html').text);
  // warm-up: JIT and lazy module state of both builds
  for (const html of pages.slice(0, 3)) {
    baseline?.(html, url);
    extractArticle(html, url);
    await yieldToEventLoop();
  }
  const load = (): string => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  if (!baseline) {
    let ours = 0;
    for (const html of pages) {
      ours += cpuMs(() => extractArticle(html, url));
      await yieldToEventLoop();
    }
    console.log(`${pages.length} pages (every ${every}th from ${offset}): this build ${(ours / pages.length).toFixed(1)} ms CPU/page; load ${load()}`);
    return;
  }
  let theirs = 0;
  let ours = 0;
  for (const [i, html] of pages.entries()) {
    if (i % 2 === 0) {
      theirs += cpuMs(() => baseline(html, url));
      await yieldToEventLoop();
      ours += cpuMs(() => extractArticle(html, url));
    } else {
      ours += cpuMs(() => extractArticle(html, url));
      await yieldToEventLoop();
      theirs += cpuMs(() => baseline(html, url));
    }
    await yieldToEventLoop();
  }
  console.log(
    `${pages.length} pages (every ${every}th from ${offset}): baseline ${(theirs / pages.length).toFixed(1)} ms CPU/page ` +
      `(${((1000 * pages.length) / theirs).toFixed(2)} pages/s per core), this build ${(ours / pages.length).toFixed(1)} ms ` +
      `(${((1000 * pages.length) / ours).toFixed(2)} pages/s per core), ratio ${(ours / theirs).toFixed(3)}; load ${load()}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
