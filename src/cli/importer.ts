import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkpointPath, loadCheckpoint, removeCheckpoint, saveCheckpoint, type Checkpoint } from './checkpoint';
import { MAX_BATCH_OPS, messageOf, type BatchOperation, type BatchResult, type KindredClient } from './http-client';
import { Progress, type ProgressSink } from './progress';
import { detectFormat, fileSize, peek, readRecords, type ReadPosition } from './record-reader';
import { detectType, recordOp, userCreationFor, type RecordType } from './record-types';

/**
 * How records reach the server: `batch` sends groups of up to 100 as one `POST /batch`; `parallel` sends
 * one request per record, `PARALLEL_REQUESTS` at a time. Measured in docs/decisions/cli.md: batch is the default.
 */
export type SendMode = 'batch' | 'parallel';
const PARALLEL_REQUESTS = 16;
const MAX_REASONS = 5;

export interface ImportOptions {
  client: KindredClient;
  /** Identifies server + key in the checkpoint (targetOf(url, key)). */
  target: string;
  file: string;
  type?: RecordType;
  /** Directory of the checkpoint file (default: next to the input). */
  stateDir?: string;
  /** Stop (resumably) after this many records: simulates an interruption in tests. */
  stopAfter?: number;
  mode?: SendMode;
  /** Groups of up to 100 records in flight at once (default 4, measured in docs/decisions/cli.md). */
  inflight?: number;
  progress?: ProgressSink;
  /** Aborting stops reading; batches in flight are finished and checkpointed. */
  signal?: AbortSignal;
  say?: (line: string) => void;
}

export interface ImportSummary {
  file: string;
  type: RecordType;
  imported: number;
  /** Already present (409 "already exists"): done by an earlier run. */
  skipped: number;
  failed: number;
  /** The first few failures, "line N: reason". */
  reasons: string[];
  seconds: number;
  /** Records handled by this run (the others by earlier, interrupted runs). */
  records: number;
  resumedFrom?: ReadPosition;
  /** True when stopped early (signal or stopAfter): a checkpoint remains and a re-run continues. */
  stopped: boolean;
}

interface Entry {
  line: number;
  op?: BatchOperation;
  error?: string;
}

interface Counts {
  imported: number;
  skipped: number;
  failed: number;
}

type Outcome = 'imported' | 'skipped' | 'retry' | 'missing-user' | 'failed';

function outcomeOf(result: BatchResult, op: BatchOperation): Outcome {
  if (result.status >= 200 && result.status < 300) return 'imported';
  if (result.status === 409) return 'skipped';
  if (result.status === 429 || result.status === 503) return 'retry';
  if (result.code === 'user_not_found' && userCreationFor(op)) return 'missing-user';
  return 'failed';
}

async function limited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  });
  await Promise.all(lanes);
  return out;
}

/** Reads a file's type from --type or its first record. */
export async function resolveType(file: string, given?: RecordType): Promise<{ type: RecordType; format: ReturnType<typeof detectFormat> }> {
  const format = detectFormat(file, await peek(file));
  if (given) return { type: given, format };
  for await (const record of readRecords(file, format)) {
    if (!record.fields) throw new Error(`${file}:${record.line}: ${record.error}; cannot tell the record type (give --type)`);
    const type = detectType(record.fields, file);
    if (!type) throw new Error(`${file}:${record.line}: cannot tell the record type from fields ${Object.keys(record.fields).join(', ')} (give --type)`);
    return { type, format };
  }
  throw new Error(`${file} holds no records`);
}

/**
 * Imports one JSONL/CSV file into a running Kindred through its API, in groups of up to 100 records with a
 * checkpoint (the end of the last group the server acknowledged, in order) after each, so a killed import
 * re-run continues where it stopped. "Already exists" counts as done; 429/503 are retried.
 */
export async function importFile(options: ImportOptions): Promise<ImportSummary> {
  const { client, file } = options;
  const say = options.say ?? (() => undefined);
  const { type, format } = await resolveType(file, options.type);
  const mode = options.mode ?? 'batch';
  const inflight = Math.max(1, options.inflight ?? 4);
  const at = checkpointPath(file, options.target, options.stateDir);
  const saved = loadCheckpoint(at, file, options.target, type);
  const start: ReadPosition = saved ? { offset: saved.offset, line: saved.line } : { offset: 0, line: 0 };
  if (saved) say(`${path.basename(file)}: resuming at line ${saved.line + 1} (byte ${saved.offset}); ${saved.imported} imported, ${saved.skipped} skipped, ${saved.failed} failed before`);
  const checkpoint: Checkpoint = saved ?? {
    version: 1, file: path.resolve(file), target: options.target, type, offset: 0, line: 0, imported: 0, skipped: 0, failed: 0, updated_at: '',
  };
  const live: Counts = { imported: 0, skipped: 0, failed: 0 };
  const reasons: string[] = [];
  const progress = new Progress({ label: `${path.basename(file)} (${type})`, total: fileSize(file), sink: options.progress });
  const gz = file.toLowerCase().endsWith('.gz');
  // Progress through the file on disk: compressed bytes read for .gz (offsets there are decompressed ones).
  let bytesRead = gz ? 0 : start.offset;

  const send = async (ops: BatchOperation[]): Promise<BatchResult[]> =>
    mode === 'batch' ? client.batch(ops) : limited(ops, PARALLEL_REQUESTS, async (op) => {
      const reply = await client.request(op.method, op.url, op.params);
      return { status: reply.status, body: reply.body };
    });

  const fail = (counts: Counts, line: number, reason: string) => {
    counts.failed++;
    live.failed++;
    if (reasons.length < MAX_REASONS) reasons.push(`line ${line}: ${reason}`);
  };

  /** Sends a group until every record is imported, skipped or failed. */
  const sendGroup = async (entries: Entry[]): Promise<Counts> => {
    const counts: Counts = { imported: 0, skipped: 0, failed: 0 };
    let pending: Entry[] = [];
    for (const e of entries) {
      if (e.op) pending.push(e);
      else fail(counts, e.line, e.error ?? 'unreadable');
    }
    const usersCreatedFor = new Set<Entry>();
    for (let round = 0; pending.length > 0; round++) {
      const results = await send(pending.map((e) => e.op!));
      const retry: Entry[] = [];
      const missingUsers: Entry[] = [];
      results.forEach((result, i) => {
        const entry = pending[i];
        const outcome = outcomeOf(result, entry.op!);
        if (outcome === 'imported' || outcome === 'skipped') {
          counts[outcome]++;
          live[outcome]++;
        } else if (outcome === 'retry' && round < 30) retry.push(entry);
        else if (outcome === 'missing-user' && !usersCreatedFor.has(entry)) missingUsers.push(entry);
        else fail(counts, entry.line, messageOf(result));
      });
      if (missingUsers.length) {
        const creations = [...new Map(missingUsers.map((e) => [userCreationFor(e.op!)!.url, userCreationFor(e.op!)!])).values()];
        const created = await send(creations);
        created.forEach((r, i) => {
          // 409: another group created the user meanwhile; 503: the retried preference tries again.
          if (r.status >= 400 && r.status !== 409 && r.status !== 503 && r.status !== 429) say(`could not create user (${creations[i].url}): ${messageOf(r)}`);
        });
        for (const e of missingUsers) usersCreatedFor.add(e);
      }
      if (retry.length) await sleep(Math.min(5000, 250 * 2 ** Math.min(round, 4)));
      pending = [...retry, ...missingUsers];
    }
    return counts;
  };

  const window: Array<{ end: ReadPosition; counts?: Counts }> = [];
  const running = new Set<Promise<void>>();
  let fatal: unknown;
  const advance = () => {
    let moved = false;
    while (window.length && window[0].counts) {
      const done = window.shift()!;
      checkpoint.offset = done.end.offset;
      checkpoint.line = done.end.line;
      checkpoint.imported += done.counts!.imported;
      checkpoint.skipped += done.counts!.skipped;
      checkpoint.failed += done.counts!.failed;
      moved = true;
    }
    if (moved) {
      checkpoint.updated_at = new Date().toISOString();
      saveCheckpoint(at, checkpoint);
    }
  };
  const dispatch = async (entries: Entry[], end: ReadPosition) => {
    const slot: { end: ReadPosition; counts?: Counts } = { end };
    window.push(slot);
    const task = sendGroup(entries).then((counts) => {
      slot.counts = counts;
      advance();
    }, (error: unknown) => {
      fatal ??= error;
    });
    running.add(task);
    void task.finally(() => running.delete(task));
    while (running.size >= inflight && fatal === undefined) await Promise.race(running);
    if (fatal !== undefined) throw fatal;
  };

  let records = 0;
  let stopped = false;
  let group: Entry[] = [];
  let groupEnd: ReadPosition = start;
  const groupSize = () => Math.min(MAX_BATCH_OPS, options.stopAfter === undefined ? MAX_BATCH_OPS : Math.max(1, options.stopAfter - (records - group.length)));
  try {
    for await (const record of readRecords(file, format, start, (b) => { if (gz) bytesRead = b; })) {
      if (options.signal?.aborted || (options.stopAfter !== undefined && records >= options.stopAfter)) {
        stopped = true;
        break;
      }
      records++;
      const made = record.fields ? recordOp(type, record.fields) : { error: record.error ?? 'unreadable' };
      group.push('op' in made ? { line: record.line, op: made.op } : { line: record.line, error: made.error });
      groupEnd = { offset: record.end, line: record.lastLine };
      if (!gz) bytesRead = record.end; // a plain file's share done is where the records read so far end
      if (group.length >= groupSize()) {
        await dispatch(group, groupEnd);
        group = [];
      }
      progress.update(live.imported + live.skipped + live.failed, bytesRead);
    }
    if (group.length) await dispatch(group, groupEnd);
    while (running.size) await Promise.race(running);
    if (fatal !== undefined) throw fatal;
  } finally {
    progress.update(live.imported + live.skipped + live.failed, bytesRead);
    progress.finish();
  }
  if (!stopped) removeCheckpoint(at);
  return {
    file, type, imported: checkpoint.imported, skipped: checkpoint.skipped, failed: checkpoint.failed, reasons,
    seconds: progress.elapsedSeconds, records, resumedFrom: saved ? start : undefined, stopped,
  };
}

/** The closing line(s) of an import. */
export function summaryLines(s: ImportSummary): string[] {
  const rate = s.records / Math.max(1e-3, s.seconds);
  const lines = [
    `${path.basename(s.file)} (${s.type}): imported ${s.imported}, skipped ${s.skipped} (already present), failed ${s.failed}` +
      ` — ${s.records} records in ${s.seconds.toFixed(1)} s (${rate.toFixed(0)}/s)${s.resumedFrom ? `, resumed at line ${s.resumedFrom.line + 1}` : ''}`,
  ];
  for (const r of s.reasons) lines.push(`  failed: ${r}`);
  if (s.failed > s.reasons.length) lines.push(`  … and ${s.failed - s.reasons.length} more`);
  if (s.stopped) lines.push('  stopped early; run the same command again to continue');
  return lines;
}
