import { numberOption, parseArgs, requiredOption, serverUrl, UsageError, withUsage } from './args';
import { targetOf } from './checkpoint';
import { KindredClient } from './http-client';
import { importFile, summaryLines, type ImportSummary, type SendMode } from './importer';
import { isRecordType, RECORD_FIELDS, RECORD_TYPES, type RecordType } from './record-types';

export const IMPORT_USAGE = `usage: kindred import --key KEY [--url URL] [--type TYPE] [--state DIR] FILE...

Imports JSONL or CSV files (optionally .gz) into a running Kindred through its API, so every index stays
current on any storage backend. Format from the extension (.jsonl/.ndjson/.json, .csv), else the content.
TYPE (${RECORD_TYPES.join('|')}) comes from the fields of the first record when --type is absent:
${RECORD_TYPES.map((t) => `  ${t.padEnd(12)} ${RECORD_FIELDS[t]}`).join('\n')}
Other fields (created_at, updated_at, tags of a document) are ignored. CSV files have a header row.
Import documents before their taggings and preferences.

Resumable: after each acknowledged batch a checkpoint <FILE>.<id>.kindred-import.json (next to FILE or in
--state DIR) records how far it got; after Ctrl-C or a kill the same command continues there. Records that
already exist count as skipped, so records with ids end up stored exactly once (documents without an id
get a generated one and may be stored twice if a run is killed mid-batch). Exit status 1 when any record
failed, 3 when stopped early.
  --url URL      server (default http://127.0.0.1:$PORT, PORT default 8080)`;

/** Ctrl-C / SIGTERM: the first asks for a clean stop (batches in flight finish, checkpoint kept), a second quits. */
export function stopOnSignals(say: (line: string) => void): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(130);
    say('stopping after the batches in flight (press Ctrl-C again to quit at once)');
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

const say = (line: string) => process.stderr.write(`${line}\n`);

/** Tells about server pushback (429/503) at most every 10 s, with how many retries there were meanwhile. */
export function retryNotices(write: (line: string) => void = say): (reason: string, waitMs: number) => void {
  let last = 0;
  let unreported = 0;
  return (reason, waitMs) => {
    unreported++;
    const now = Date.now();
    if (now - last < 10_000) return;
    write(`server answered ${reason}; retrying in ${(waitMs / 1000).toFixed(1)} s (${unreported} retr${unreported === 1 ? 'y' : 'ies'} since the last notice)`);
    last = now;
    unreported = 0;
  };
}

/** Imports files one after another through one client; stops at the first interrupted file. */
export async function importFiles(client: KindredClient, target: string, files: string[], o: { type?: RecordType; stateDir?: string; stopAfter?: number; mode?: SendMode; inflight?: number; signal?: AbortSignal }): Promise<ImportSummary[]> {
  const summaries: ImportSummary[] = [];
  for (const file of files) {
    const summary = await importFile({ client, target, file, say, ...o });
    for (const line of summaryLines(summary)) process.stdout.write(`${line}\n`);
    summaries.push(summary);
    if (summary.stopped) break;
  }
  return summaries;
}

/** `kindred import`. Exit 0 when all records are in, 1 when any failed, 3 when stopped early (resumable). */
export function importCommand(args: string[]): Promise<number> {
  return withUsage(args, IMPORT_USAGE, async () => {
    const parsed = parseArgs(args);
    if (parsed.positional.length === 0) throw new UsageError('FILE is missing');
    const key = requiredOption(parsed, '--key');
    const typeName = parsed.options.get('--type');
    if (typeName !== undefined && !isRecordType(typeName)) throw new UsageError(`--type must be one of ${RECORD_TYPES.join(', ')}`);
    const mode = parsed.options.get('--mode') ?? 'batch';
    if (mode !== 'batch' && mode !== 'parallel') throw new UsageError('--mode must be batch or parallel');
    const stopAfter = parsed.options.has('--stop-after') ? numberOption(parsed, '--stop-after', 0, (n) => Number.isInteger(n) && n > 0, 'a positive integer') : undefined;
    const inflight = numberOption(parsed, '--inflight', 4, (n) => Number.isInteger(n) && n > 0, 'a positive integer');
    const url = serverUrl(parsed);
    const client = new KindredClient(url, key, { onRetry: retryNotices() });
    const stop = stopOnSignals(say);
    try {
      const summaries = await importFiles(client, targetOf(url, key), parsed.positional, {
        type: typeName as RecordType | undefined, stateDir: parsed.options.get('--state'), stopAfter, mode, inflight, signal: stop.signal,
      });
      if (summaries.some((s) => s.stopped)) return 3;
      return summaries.some((s) => s.failed > 0) ? 1 : 0;
    } finally {
      stop.dispose();
    }
  });
}
