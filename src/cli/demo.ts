import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { numberOption, parseArgs, requiredOption, serverUrl, withUsage } from './args';
import { targetOf } from './checkpoint';
import { KindredClient } from './http-client';
import { importFiles, retryNotices, stopOnSignals } from './import-command';
import type { RecordType } from './record-types';

/** The shipped demo data set (bench/make-demo.ts writes it): Debian package descriptions and relations. */
export const DEMO_DIR = path.join(__dirname, '..', '..', '..', 'demo');
export const DEMO_FILES: RecordType[] = ['documents', 'tags', 'taggings', 'users', 'preferences'];
export const demoFile = (type: RecordType, dir = DEMO_DIR) => path.join(dir, `${type}.jsonl.gz`);

export const DEMO_USAGE = `usage: kindred demo --key KEY [--url URL] [--limit N]

Loads the demo data set shipped in demo/ (about 3,000 Debian packages: descriptions as documents, sections
as tags, packages that depend on others as users preferring their dependencies; see demo/README.md) into
the key through \`kindred import\`, then prints example requests that work on it. Re-running continues or
skips what is there. --limit N loads only the N most depended-on packages and the records that refer to them.`;

type Row = Record<string, unknown>;

const readGzJsonl = (file: string): Row[] =>
  zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Row);

/** The demo records, all of them or those of the first `limit` documents (the file is ordered by popularity). */
export function demoRecords(limit?: number, dir = DEMO_DIR): Record<RecordType, Row[]> {
  const all = Object.fromEntries(DEMO_FILES.map((t) => [t, readGzJsonl(demoFile(t, dir))])) as Record<RecordType, Row[]>;
  if (limit === undefined) return all;
  const documents = all.documents.slice(0, limit);
  const ids = new Set(documents.map((d) => d.id));
  const taggings = all.taggings.filter((t) => ids.has(t.document_id));
  const tagIds = new Set(taggings.map((t) => t.tag_id));
  const preferences = all.preferences.filter((p) => ids.has(p.document_id));
  const userIds = new Set(preferences.map((p) => p.user_id));
  return {
    documents,
    tags: all.tags.filter((t) => tagIds.has(t.id)),
    taggings,
    users: all.users.filter((u) => userIds.has(u.id)),
    preferences,
  };
}

/** Example ids that exist in the loaded records: a well-liked document, a user with several preferences. */
export function demoExamples(records: Record<RecordType, Row[]>): { document: string; user: string; tag: string } {
  const liked = new Map<string, number>();
  const perUser = new Map<string, number>();
  for (const p of records.preferences) {
    liked.set(String(p.document_id), (liked.get(String(p.document_id)) ?? 0) + 1);
    perUser.set(String(p.user_id), (perUser.get(String(p.user_id)) ?? 0) + 1);
  }
  const prefer = (candidates: string[], counts: Map<string, number>, min: number) =>
    candidates.find((c) => (counts.get(c) ?? 0) >= min) ?? [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  const document = prefer(['python3-numpy', 'python3-requests', 'libjs-jquery'], liked, 1) ?? String(records.documents[0].id);
  const user = prefer(['python3-sklearn', 'python3-astropy', 'python3-pandas'], perUser, 3) ?? '';
  const tag = records.tags.find((t) => t.id === 'python')?.id ?? records.tags[0]?.id;
  return { document, user, tag: String(tag ?? '') };
}

/** curl commands for each kind of recommendation and search on the demo data. */
export function exampleRequests(url: string, key: string, ex: { document: string; user: string; tag: string }): string[] {
  const h = `-H 'Subscription-Key: ${key}'`;
  const json = `${h} -H 'Content-Type: application/json'`;
  return [
    '# documents like one package (content-based; add &use_hybrid=true after `kindred train --key KEY`)',
    `curl -s ${h} '${url}/documents/${ex.document}/similar?number=5&fields=meta'`,
    '# documents like a piece of text',
    `curl -s ${json} -d '{"text":"draw vector graphics and edit photos","number":5}' ${url}/documents/similar-to-text`,
    '# keyword search (Elasticsearch query DSL) with a section facet',
    `curl -s ${json} -d '{"es_query":{"query":{"match":{"text":"spreadsheet"}},"size":5,"aggs":{"sections":{"terms":{"field":"meta.section"}}}},"fields":"meta"}' ${url}/documents/by-keyword`,
    `# recommendations for a user (the package ${ex.user}, which "prefers" its dependencies)`,
    `curl -s ${h} '${url}/users/${ex.user}/recommendations?number=5'`,
    '# tag (section) suggestions for a text, and for a package',
    `curl -s ${json} -d '{"text":"a library to parse JSON in Python","number":3}' ${url}/tags/recommend-by-text`,
    `curl -s ${h} '${url}/documents/${ex.document}/tags/suggested?number=3'`,
    '# documents of a section, and popular packages',
    `curl -s ${h} '${url}/tags/${ex.tag}/documents?fields=meta' | head -c 600`,
    `curl -s ${h} '${url}/documents/popular?number=5'`,
  ];
}

function writeGzJsonl(file: string, rows: Row[]): void {
  fs.writeFileSync(file, zlib.gzipSync(rows.map((r) => JSON.stringify(r)).join('\n') + '\n'));
}

/** `kindred demo`. */
export function demoCommand(args: string[]): Promise<number> {
  return withUsage(args, DEMO_USAGE, async () => {
    const parsed = parseArgs(args);
    const key = requiredOption(parsed, '--key');
    const url = serverUrl(parsed);
    const limit = parsed.options.has('--limit') ? numberOption(parsed, '--limit', 0, (n) => Number.isInteger(n) && n > 0, 'a positive integer') : undefined;
    const started = Date.now();
    const records = demoRecords(limit);
    // A limited load imports filtered copies; either way through the import code path, checkpoints in the temp dir.
    let dir = DEMO_DIR;
    let scratch: string | undefined;
    if (limit !== undefined) {
      scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-demo-'));
      for (const t of DEMO_FILES) writeGzJsonl(demoFile(t, scratch), records[t]);
      dir = scratch;
    }
    const say = (line: string) => process.stderr.write(`${line}\n`);
    const client = new KindredClient(url, key, { onRetry: retryNotices(say) });
    const stop = stopOnSignals(say);
    try {
      const summaries = await importFiles(client, targetOf(url, key), DEMO_FILES.map((t) => demoFile(t, dir)), {
        type: undefined, stateDir: path.join(os.tmpdir(), 'kindred-demo-state'), signal: stop.signal,
      });
      if (summaries.some((s) => s.stopped)) return 3;
      const failed = summaries.reduce((n, s) => n + s.failed, 0);
      process.stdout.write(`\ndemo data loaded in ${((Date.now() - started) / 1000).toFixed(1)} s. Try:\n\n`);
      for (const line of exampleRequests(url, key, demoExamples(records))) process.stdout.write(`${line}\n`);
      return failed > 0 ? 1 : 0;
    } finally {
      stop.dispose();
      if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
}
