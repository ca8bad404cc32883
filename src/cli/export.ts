import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { parseArgs, requiredOption, serverUrl, withUsage } from './args';
import { preferencesOfUsers } from './api-lists';
import { KindredClient } from './http-client';
import { Progress } from './progress';
import type { RecordType } from './record-types';

export const EXPORT_USAGE = `usage: kindred export --key KEY [--url URL] [--out DIR]

Writes the key's data into DIR (default ./kindred-export) as documents.jsonl, tags.jsonl, taggings.jsonl,
users.jsonl and preferences.jsonl, in the format \`kindred import\` reads: import them in that order into
another key to copy or restore it.`;

/** Order in which the files must be imported (taggings and preferences refer to documents). */
export const EXPORT_FILES: RecordType[] = ['documents', 'tags', 'taggings', 'users', 'preferences'];

interface ApiDocument { id: string; text: string; meta?: unknown; published_at?: string | null; tags?: string[] }
interface ApiTag { id: string; type?: string | null; meta?: unknown }
interface ApiUser { id: string }

/** A JSONL file written with back-pressure. */
class JsonlWriter {
  private readonly out: fs.WriteStream;
  count = 0;

  constructor(readonly file: string) {
    this.out = fs.createWriteStream(file);
  }

  async write(record: Record<string, unknown>): Promise<void> {
    this.count++;
    if (!this.out.write(`${JSON.stringify(record)}\n`)) await once(this.out, 'drain');
  }

  async close(): Promise<void> {
    this.out.end();
    await once(this.out, 'finish');
  }
}

export interface ExportSummary {
  dir: string;
  counts: Record<RecordType, number>;
  seconds: number;
}

const isEmptyObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;

/** Pages through the key's documents (with their tags), tags and users, and every user's preferences. */
export async function exportAll(client: KindredClient, dir: string, say: (line: string) => void = () => undefined): Promise<ExportSummary> {
  fs.mkdirSync(dir, { recursive: true });
  const started = Date.now();
  const writers = Object.fromEntries(EXPORT_FILES.map((t) => [t, new JsonlWriter(path.join(dir, `${t}.jsonl`))])) as Record<RecordType, JsonlWriter>;
  try {
    let progress = new Progress({ label: 'documents', unit: 'documents' });
    for await (const page of client.pages<ApiDocument>('/documents?fields=meta,text,published_at,tags')) {
      for (const d of page) {
        const record: Record<string, unknown> = { id: d.id, text: d.text };
        if (d.meta !== undefined && d.meta !== null && !isEmptyObject(d.meta)) record.meta = d.meta;
        if (d.published_at) record.published_at = d.published_at;
        await writers.documents.write(record);
        for (const tag of d.tags ?? []) await writers.taggings.write({ document_id: d.id, tag_id: tag });
      }
      progress.update(writers.documents.count);
    }
    progress.finish();
    for await (const page of client.pages<ApiTag>('/tags')) {
      for (const t of page) {
        const record: Record<string, unknown> = { id: t.id };
        if (t.type) record.type = t.type;
        if (t.meta !== undefined && t.meta !== null && !isEmptyObject(t.meta)) record.meta = t.meta;
        await writers.tags.write(record);
      }
    }
    progress = new Progress({ label: 'users and preferences', unit: 'users' });
    for await (const page of client.pages<ApiUser>('/users')) {
      for (const u of page) await writers.users.write({ id: u.id });
      for await (const list of preferencesOfUsers(client, page.map((u) => u.id))) {
        for (const p of list) await writers.preferences.write({ user_id: p.user_id, document_id: p.document_id });
      }
      progress.update(writers.users.count);
    }
    progress.finish();
  } finally {
    await Promise.all(Object.values(writers).map((w) => w.close()));
  }
  const counts = Object.fromEntries(EXPORT_FILES.map((t) => [t, writers[t].count])) as Record<RecordType, number>;
  say(`exported ${EXPORT_FILES.map((t) => `${counts[t]} ${t}`).join(', ')} to ${dir}`);
  return { dir, counts, seconds: (Date.now() - started) / 1000 };
}

/** `kindred export`. */
export function exportCommand(args: string[]): Promise<number> {
  return withUsage(args, EXPORT_USAGE, async () => {
    const parsed = parseArgs(args);
    const key = requiredOption(parsed, '--key');
    const client = new KindredClient(serverUrl(parsed), key);
    const summary = await exportAll(client, path.resolve(parsed.options.get('--out') ?? 'kindred-export'), (line) => process.stderr.write(`${line}\n`));
    process.stdout.write(`${EXPORT_FILES.map((t) => `${t} ${summary.counts[t]}`).join('\n')}\n`);
    return 0;
  });
}
