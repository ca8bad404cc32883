import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import zlib from 'node:zlib';
import { Client } from './client';
import { CLI_ENTRY, startServer, type Backend, type RunningServer } from './server';

/**
 * What survives a crash: writes the server acknowledged (2xx) must all be there after a restart;
 * writes in flight when it died may or may not be, but if they are, they are whole.
 * Shared by the crash tests and `npm run crash:long`.
 */
export interface Ledger {
  /** Document id → the text of its acknowledged write. */
  documents: Map<string, string>;
  /** Document writes sent but not answered (the server died): present whole or absent. */
  maybeDocuments: Map<string, string>;
  /** Documents whose delete was acknowledged → the text they had. */
  deleted: Map<string, string>;
  /** `user/document` pairs whose preference was acknowledged. */
  preferences: Set<string>;
  maybePreferences: Set<string>;
}

export function newLedger(): Ledger {
  return { documents: new Map(), maybeDocuments: new Map(), deleted: new Map(), preferences: new Set(), maybePreferences: new Set() };
}

export interface CheckReport {
  /** Acknowledged writes looked at. */
  checked: number;
  /** Acknowledged writes missing or different after the restart. */
  lost: string[];
  /** Anything else wrong (index disagreeing with storage, partial writes, deleted documents served). */
  problems: string[];
}

export function emptyReport(): CheckReport {
  return { checked: 0, lost: [], problems: [] };
}

export function mergeReports(...reports: CheckReport[]): CheckReport {
  return {
    checked: reports.reduce((n, r) => n + r.checked, 0),
    lost: reports.flatMap((r) => r.lost),
    problems: reports.flatMap((r) => r.problems),
  };
}

const CORPUS_FILE = path.join('/work/shared/data/20newsgroups/20newsgroups-bydate-train.jsonl.gz');

/**
 * Distinct real texts (20 Newsgroups posts, headers kept so each is unique, cut to `maxChars`),
 * read from the shared data directory at run time.
 */
export function newsgroupTexts(count: number, offset = 0, maxChars = 2000): Array<{ id: string; text: string }> {
  const lines = zlib.gunzipSync(fs.readFileSync(CORPUS_FILE)).toString('utf8').split('\n').filter(Boolean);
  const seen = new Set<string>();
  const out: Array<{ id: string; text: string }> = [];
  for (const line of lines.slice(offset)) {
    const text = (JSON.parse(line) as { text: string }).text.slice(0, maxChars).trim();
    if (text.length < 200 || seen.has(text)) continue;
    seen.add(text);
    out.push({ id: `ng-${offset + out.length}`, text });
    if (out.length === count) break;
  }
  return out;
}

/** Runs `task` over `items` with at most `concurrency` in flight; stops taking new items once `stop()` says so. */
export async function inParallel<T>(items: readonly T[], concurrency: number, task: (item: T) => Promise<void>, stop: () => boolean = () => false): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length && !stop()) await task(items[next++]);
  }));
}

/** Whether a request failed because the server went away (not an answer). */
function isConnectionError(error: unknown): boolean {
  return error instanceof TypeError || (error instanceof Error && /ECONNREFUSED|ECONNRESET|socket|fetch failed|aborted/i.test(String(error)));
}

/**
 * Posts documents with `concurrency` requests in flight, recording each in the ledger as acknowledged
 * (201) or in flight (no answer). Stops sending once a request finds the server gone. Any other
 * answer than 201 is a problem.
 */
export async function ingestDocuments(api: Client, docs: ReadonlyArray<{ id: string; text: string }>, ledger: Ledger, concurrency = 16): Promise<{ acknowledged: number; problems: string[] }> {
  let gone = false;
  let acknowledged = 0;
  const problems: string[] = [];
  await inParallel(docs, concurrency, async (doc) => {
    ledger.maybeDocuments.set(doc.id, doc.text);
    try {
      const res = await api.post(`/documents/${doc.id}`, { text: doc.text });
      if (res.status === 201) {
        ledger.documents.set(doc.id, doc.text);
        ledger.maybeDocuments.delete(doc.id);
        acknowledged++;
      } else {
        problems.push(`POST /documents/${doc.id} → ${res.status} ${res.text.slice(0, 120)}`);
        ledger.maybeDocuments.delete(doc.id);
      }
    } catch (error) {
      if (!isConnectionError(error)) throw error;
      gone = true;
    }
  }, () => gone);
  return { acknowledged, problems };
}

/** Creates the users, then posts the preferences, recording acknowledged and in-flight ones. */
export async function ingestPreferences(api: Client, pairs: ReadonlyArray<[string, string]>, ledger: Ledger, concurrency = 16): Promise<{ acknowledged: number; problems: string[] }> {
  let gone = false;
  let acknowledged = 0;
  const problems: string[] = [];
  await inParallel(pairs, concurrency, async ([user, doc]) => {
    const key = `${user}/${doc}`;
    ledger.maybePreferences.add(key);
    try {
      const res = await api.post(`/users/${user}/preferences/${doc}`);
      if (res.status === 201) {
        ledger.preferences.add(key);
        ledger.maybePreferences.delete(key);
        acknowledged++;
      } else {
        problems.push(`POST /users/${user}/preferences/${doc} → ${res.status} ${res.text.slice(0, 120)}`);
        ledger.maybePreferences.delete(key);
      }
    } catch (error) {
      if (!isConnectionError(error)) throw error;
      gone = true;
    }
  }, () => gone);
  return { acknowledged, problems };
}

/** Deletes documents (acknowledged ones leave the ledger's documents for its deleted set). */
export async function deleteDocuments(api: Client, ids: readonly string[], ledger: Ledger): Promise<void> {
  for (const id of ids) {
    const res = await api.delete(`/documents/${id}`);
    if (res.status !== 200) throw new Error(`DELETE /documents/${id} → ${res.status} ${res.text.slice(0, 120)}`);
    ledger.deleted.set(id, ledger.documents.get(id) ?? '');
    ledger.documents.delete(id);
  }
}

/** The `total` header of a listing (documents of the key, or a user's preferences). */
export async function listingTotal(api: Client, path: string): Promise<number> {
  const res = await api.get(`${path}${path.includes('?') ? '&' : '?'}per_page=1`);
  if (res.status !== 200) throw new Error(`GET ${path} → ${res.status} ${res.text.slice(0, 120)}`);
  return Number(res.headers.get('total'));
}

/**
 * Every acknowledged document is there with its text; every acknowledged delete stays deleted; a
 * document written in flight is either absent or whole; the key's document count is what the ledger allows.
 */
export async function checkDocuments(api: Client, ledger: Ledger, concurrency = 16): Promise<CheckReport> {
  const report = emptyReport();
  await inParallel([...ledger.documents], concurrency, async ([id, text]) => {
    const res = await api.get<{ text?: string }>(`/documents/${id}?fields=text`);
    report.checked++;
    if (res.status !== 200 || res.body.text !== text) report.lost.push(`document ${id} (${res.status})`);
  });
  await inParallel([...ledger.deleted.keys()], concurrency, async (id) => {
    const res = await api.get(`/documents/${id}`);
    if (res.status !== 404) report.problems.push(`deleted document ${id} answers ${res.status}`);
  });
  let maybePresent = 0;
  await inParallel([...ledger.maybeDocuments], concurrency, async ([id, text]) => {
    const res = await api.get<{ text?: string }>(`/documents/${id}?fields=text`);
    if (res.status === 200) {
      maybePresent++;
      if (res.body.text !== text) report.problems.push(`in-flight document ${id} is present but not whole`);
    } else if (res.status !== 404) report.problems.push(`in-flight document ${id} answers ${res.status}`);
  });
  const total = await listingTotal(api, '/documents');
  const expected = ledger.documents.size + maybePresent;
  if (total !== expected) report.problems.push(`the key counts ${total} documents; acknowledged + present in flight = ${expected}`);
  return report;
}

/** Every acknowledged preference is there (per user: listed and counted). */
export async function checkPreferences(api: Client, ledger: Ledger, concurrency = 8): Promise<CheckReport> {
  const report = emptyReport();
  const byUser = new Map<string, Set<string>>();
  for (const key of ledger.preferences) {
    const [user, doc] = key.split('/');
    if (!byUser.has(user)) byUser.set(user, new Set());
    byUser.get(user)!.add(doc);
  }
  const maybeByUser = new Map<string, number>();
  for (const key of ledger.maybePreferences) {
    const user = key.split('/')[0];
    maybeByUser.set(user, (maybeByUser.get(user) ?? 0) + 1);
  }
  await inParallel([...byUser], concurrency, async ([user, docs]) => {
    const listed = new Set<string>();
    for (let page = 1; ; page++) {
      const res = await api.get<Array<{ document_id: string }>>(`/users/${user}/preferences?per_page=100&page=${page}`);
      if (res.status !== 200) {
        report.problems.push(`GET /users/${user}/preferences → ${res.status}`);
        break;
      }
      for (const p of res.body) listed.add(p.document_id);
      if (res.body.length < 100) break;
    }
    for (const doc of docs) {
      report.checked++;
      if (!listed.has(doc)) report.lost.push(`preference ${user}/${doc}`);
    }
    const extra = listed.size - docs.size;
    if (extra < 0 || extra > (maybeByUser.get(user) ?? 0)) report.problems.push(`user ${user} lists ${listed.size} preferences; acknowledged ${docs.size}, in flight ${maybeByUser.get(user) ?? 0}`);
  });
  return report;
}

/** Documents in the key's content index, from /metrics (kindred_index_documents). */
export async function indexedDocuments(baseUrl: string, adminToken: string): Promise<number> {
  const res = await fetch(`${baseUrl}/metrics`, { headers: { Authorization: `Bearer ${adminToken}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics → ${res.status} ${text.slice(0, 120)}`);
  const values = text.split('\n').filter((l) => l.startsWith('kindred_index_documents{')).map((l) => Number(l.split(' ').pop()));
  if (values.length !== 1) throw new Error(`expected one key in kindred_index_documents, found ${values.length}`);
  return values[0];
}

/**
 * The content index agrees with storage: it holds as many documents as the key (from /metrics), each
 * sampled document is found among the top `top` results of similar-to-text with its own text, and
 * no deleted document appears in any answer.
 */
export async function checkIndex(api: Client, ledger: Ledger, options: { adminToken: string; sample: number; top?: number; concurrency?: number }): Promise<CheckReport> {
  const report = emptyReport();
  const top = options.top ?? 10;
  const stored = await listingTotal(api, '/documents');
  // Writes reach the index within ~50 ms of their acknowledgement; give a restart's catch-up a moment.
  let indexed = -1;
  for (let tries = 0; tries < 100 && indexed !== stored; tries++) {
    if (tries) await new Promise((r) => setTimeout(r, 100));
    indexed = await indexedDocuments(api.baseUrl, options.adminToken);
  }
  if (indexed !== stored) report.problems.push(`content index holds ${indexed} documents, storage ${stored}`);
  const docs = [...ledger.documents];
  const step = Math.max(1, docs.length / options.sample);
  const sample = Array.from({ length: Math.min(options.sample, docs.length) }, (_, i) => docs[Math.floor(i * step)]);
  const queries: Array<[string, string, boolean]> = [
    ...sample.map(([id, text]): [string, string, boolean] => [id, text, true]),
    // A deleted document's own text is the query most likely to surface it if the index still held it.
    ...[...ledger.deleted].slice(0, options.sample).map(([id, text]): [string, string, boolean] => [id, text, false]),
  ].filter(([, text]) => text);
  await inParallel(queries, options.concurrency ?? 4, async ([id, text, present]) => {
    const res = await api.post<Array<{ id: string; similarity?: number }>>('/documents/similar-to-text', { text, number: top });
    if (res.status !== 200 || !Array.isArray(res.body)) {
      report.problems.push(`similar-to-text for ${id} → ${res.status} ${res.text.slice(0, 120)}`);
      return;
    }
    const ids = res.body.map((r) => r.id);
    if (present) {
      report.checked++;
      // What came instead tells a stale or mixed-up index (another model's vectors) from a ranking question.
      const got = res.body.slice(0, 3).map((r) => `${r.id} ${r.similarity?.toFixed(3)}`).join(', ');
      if (!ids.includes(id)) report.problems.push(`document ${id} is not in the top ${top} of similar-to-text with its own text (got ${got})`);
    }
    for (const hit of ids) if (ledger.deleted.has(hit)) report.problems.push(`deleted document ${hit} served by similar-to-text`);
  });
  return report;
}

/** The hybrid routes answer (with or without a trained model) in their v6 shape. */
export async function checkHybridServes(api: Client, user: string): Promise<{ recognised: boolean; problems: string[] }> {
  const res = await api.get<{ results?: unknown[]; user_ids?: Array<{ recognised?: boolean }> }>(`/users/${user}/recommendations?use_hybrid=true&number=5`);
  const problems: string[] = [];
  if (res.status !== 200 || !Array.isArray(res.body.results)) problems.push(`hybrid recommendations for ${user} → ${res.status} ${res.text.slice(0, 160)}`);
  return { recognised: res.body.user_ids?.[0]?.recognised === true, problems };
}

/** Polls until `probe` resolves true, or throws after `timeoutMs`. */
export async function waitUntil(what: string, probe: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 100): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Resolves once a logged line matching `pattern` appears after line `from` of `lines`. */
export function waitForLine(lines: string[], pattern: RegExp, timeoutMs: number, from = 0): Promise<void> {
  return waitUntil(`a log line ${pattern}`, () => lines.slice(from).some((l) => pattern.test(l)), timeoutMs, 20);
}

/**
 * The server's log lines other than per-request ones, from now on (the test helper keeps only the
 * first 10,000 lines, which a bulk ingestion fills with request lines).
 */
export function watchEvents(child: ChildProcess): string[] {
  const events: string[] = [];
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line.includes('"msg":"request"')) return;
    events.push(line);
    if (process.env.CRASH_DEBUG) process.stderr.write(`${new Date().toISOString()} ${line.slice(0, 300)}\n`);
  });
  return events;
}

/** Index of the first line at or after `from` matching `pattern`, or -1. */
export function lineIndex(lines: readonly string[], pattern: RegExp, from = 0): number {
  for (let i = from; i < lines.length; i++) if (pattern.test(lines[i])) return i;
  return -1;
}

/** Whether a refit of the test key's corpus model is running, from /healthz (undefined before the server is ready). */
async function refitting(server: RunningServer): Promise<boolean | undefined> {
  const res = await fetch(`${server.url}/healthz`);
  if (res.status !== 200) return undefined;
  const body = await res.json() as { indexing: Array<{ tenant: string; refitting: boolean }> };
  return body.indexing.find((e) => e.tenant === tenantOf('test-key'))?.refitting;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Crash scenarios: start a real server, drive one kind of work, kill -9 it at a chosen moment,
// restart on the same data, check the invariants above. The crash tests run them small with a
// fixed moment; `npm run crash:long` runs them repeatedly with random moments.
// ---------------------------------------------------------------------------------------------

export const ADMIN_TOKEN = 'crash-admin';
/** Documents each index check looks up by their own text (plus as many deleted ones). */
const CHECK_SAMPLE = Number(process.env.CRASH_CHECK_SAMPLE ?? 50);

export interface ScenarioOptions {
  backend: Backend;
  /** Documents (or preferences) the scenario writes. */
  size: number;
  /** Where in the targeted activity the kill lands, as a share of its expected length (0..1). */
  moment: number;
}

export interface ScenarioResult {
  scenario: string;
  backend: Backend;
  /** Whether the kill landed while the targeted work was in progress (else it hit just before or after). */
  killedDuringWork: boolean;
  report: CheckReport;
  notes: string[];
  ms: number;
}

/** Server options every scenario uses: the admin token for /metrics, two workers (one stays free for checks). */
function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { KINDRED_ADMIN_TOKEN: ADMIN_TOKEN, KINDRED_WORKERS: '2', ...extra };
}

/** Restarts on the same data and waits until the server says its indexes are ready (/healthz). */
async function restart(previous: RunningServer, env: Record<string, string> = {}): Promise<RunningServer> {
  const server = await startServer({ backend: previous.mongodbUri ? 'mongodb' : 'embedded', dataDir: previous.dataDir, mongodbUri: previous.mongodbUri, env: serverEnv(env) });
  try {
    await waitUntil('the restarted server to be ready', async () => (await fetch(`${server.url}/healthz`)).status === 200, 600_000, 100);
  } catch (error) {
    // The caller's clean-up only knows the previous process: stop this one here.
    await server.kill();
    throw error;
  }
  return server;
}

/** Drops the data a scenario left behind (its temporary directory; the test database dies with the test server). */
export function cleanUp(server: RunningServer | undefined): void {
  if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
}

let textCache: Array<{ id: string; text: string }> | undefined;
function texts(count: number, offset = 0): Array<{ id: string; text: string }> {
  textCache ??= newsgroupTexts(11_000);
  return textCache.slice(offset, offset + count);
}

/** The content index of a key is made on its first read: make it before writing, so writes flow into it. */
async function touchIndex(api: Client): Promise<void> {
  const res = await api.post('/documents/similar-to-text', { text: 'warm up' });
  if (res.status !== 200) throw new Error(`similar-to-text → ${res.status} ${res.text.slice(0, 120)}`);
}

/** Kill -9 in the middle of a bulk document ingestion (with deletes made before it). */
export async function crashDuringDocumentIngestion(o: ScenarioOptions): Promise<ScenarioResult> {
  const started = Date.now();
  const ledger = newLedger();
  let server = await startServer({ backend: o.backend, env: serverEnv() });
  try {
    const api = new Client(server.url);
    await touchIndex(api);
    const docs = texts(o.size);
    const head = Math.ceil(o.size * 0.1);
    await ingestDocuments(api, docs.slice(0, head), ledger);
    await deleteDocuments(api, docs.slice(0, Math.ceil(head / 4)).map((d) => d.id), ledger);
    const ingestion = ingestDocuments(api, docs.slice(head), ledger);
    // The moment is a point in the ingestion's progress: kill once that share of it is acknowledged.
    const target = Math.floor(o.moment * (o.size - head));
    await waitUntil('the ingestion to progress', () => ledger.documents.size + ledger.deleted.size - head >= target, 600_000, 2);
    const killedDuringWork = ledger.documents.size + ledger.deleted.size < o.size;
    await server.kill();
    const ingested = await ingestion;
    server = await restart(server);
    const after = new Client(server.url);
    const report = mergeReports(await checkDocuments(after, ledger), await checkIndex(after, ledger, { adminToken: ADMIN_TOKEN, sample: CHECK_SAMPLE }));
    report.problems.push(...ingested.problems);
    return { scenario: 'ingest-documents', backend: o.backend, killedDuringWork, report, notes: [`${ledger.documents.size} acknowledged, ${ledger.maybeDocuments.size} in flight`], ms: Date.now() - started };
  } finally {
    await server.stop();
    cleanUp(server);
  }
}

/** Documents and users for preference scenarios; each user prefers `perUser` documents. */
function preferencePairs(users: number, perUser: number, docs: number, seed: number): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  for (let u = 0; u < users; u++) {
    const chosen = new Set<number>();
    // A taste: most of a user's documents from one region of the id space, so ALS has structure to learn.
    const centre = Math.floor(random() * docs);
    while (chosen.size < Math.min(perUser, docs)) chosen.add(random() < 0.8 ? (centre + Math.floor(random() * 40)) % docs : Math.floor(random() * docs));
    for (const d of chosen) pairs.push([`user-${u}`, `doc-${d}`]);
  }
  return pairs;
}

async function seedForPreferences(api: Client, ledger: Ledger, docs: number, users: number): Promise<void> {
  const corpus = texts(docs).map((d, i) => ({ id: `doc-${i}`, text: d.text.slice(0, 400) }));
  const ingested = await ingestDocuments(api, corpus, ledger);
  if (ingested.problems.length) throw new Error(ingested.problems.join('\n'));
  await inParallel(Array.from({ length: users }, (_, u) => `user-${u}`), 16, async (user) => {
    const res = await api.post(`/users/${user}`);
    if (res.status !== 201) throw new Error(`POST /users/${user} → ${res.status}`);
  });
}

/** Kill -9 in the middle of a bulk preference ingestion. */
export async function crashDuringPreferenceIngestion(o: ScenarioOptions): Promise<ScenarioResult> {
  const started = Date.now();
  const ledger = newLedger();
  let server = await startServer({ backend: o.backend, env: serverEnv() });
  try {
    const api = new Client(server.url);
    const users = Math.max(10, Math.round(o.size / 20));
    await seedForPreferences(api, ledger, 300, users);
    const pairs = preferencePairs(users, 20, 300, 1 + Math.floor(o.moment * 1000));
    const head = Math.ceil(pairs.length * 0.1);
    await ingestPreferences(api, pairs.slice(0, head), ledger);
    const ingestion = ingestPreferences(api, pairs.slice(head), ledger);
    const target = Math.floor(o.moment * (pairs.length - head));
    await waitUntil('the ingestion to progress', () => ledger.preferences.size - head >= target, 600_000, 2);
    const killedDuringWork = ledger.preferences.size < pairs.length;
    await server.kill();
    const ingested = await ingestion;
    server = await restart(server);
    const after = new Client(server.url);
    const report = mergeReports(await checkPreferences(after, ledger), await checkDocuments(after, ledger));
    report.problems.push(...ingested.problems);
    return { scenario: 'ingest-preferences', backend: o.backend, killedDuringWork, report, notes: [`${ledger.preferences.size} acknowledged, ${ledger.maybePreferences.size} in flight`], ms: Date.now() - started };
  } finally {
    await server.stop();
    cleanUp(server);
  }
}

/**
 * Kill -9 during a content index rebuild (refit every second, with writes arriving meanwhile), then
 * during a snapshot write of the restarted server; after each restart the acknowledged writes are there
 * and the index agrees with storage; finally a growth-triggered refit completes and serves new documents.
 */
export async function crashDuringIndexRebuild(o: ScenarioOptions): Promise<ScenarioResult> {
  const started = Date.now();
  const ledger = newLedger();
  const notes: string[] = [];
  const tenantDir = (s: RunningServer) => path.join(s.dataDir, 'index', tenantOf('test-key'));
  let server = await startServer({ backend: o.backend, env: serverEnv() });
  try {
    let api = new Client(server.url);
    await touchIndex(api);
    const docs = texts(o.size + 200);
    const ingested = await ingestDocuments(api, docs.slice(0, o.size), ledger);
    await deleteDocuments(api, docs.slice(0, 20).map((d) => d.id), ledger);
    // A graceful stop snapshots the index; the restart refits every second, the first refit covering every document.
    await server.stop();
    server = await restart(server, { KINDRED_REFIT_CRON: '* * * * * *', KINDRED_SNAPSHOT_SECONDS: '1' });
    let events = watchEvents(server.child);
    api = new Client(server.url);
    // /healthz says when a refit builds the next generation at once; the log lines come in batches (seen 800 ms late).
    await waitUntil('a refit to start', async () => (await refitting(server)) === true, 60_000, 5);
    const meanwhile = ingestDocuments(api, docs.slice(o.size, o.size + 100), ledger, 4);
    // A rebuild takes from 0.5 ms per document here (400 documents: 250 to 920 ms seen on 2026-11-25): kill well
    // inside the shortest.
    const delay = Math.round(o.moment * Math.max(100, 0.5 * o.size));
    await sleep(delay);
    let killedDuringWork = (await refitting(server)) === true;
    await server.kill();
    await meanwhile;
    notes.push(`rebuild: killed ${killedDuringWork ? 'during' : 'after'} it (${delay} ms in) at ${Date.now() - started} ms`);

    server = await restart(server, { KINDRED_SNAPSHOT_SECONDS: '1', KINDRED_REFIT_GROWTH: '1.05' });
    events = watchEvents(server.child);
    api = new Client(server.url);
    let report = mergeReports(await checkDocuments(api, ledger), await checkIndex(api, ledger, { adminToken: ADMIN_TOKEN, sample: CHECK_SAMPLE }));
    notes.push(`checked after the first restart at ${Date.now() - started} ms`);

    // A snapshot is written within a second of a change: kill as soon as one starts.
    const snapFrom = events.length;
    await deleteDocuments(api, docs.slice(20, 30).map((d) => d.id), ledger);
    await waitForLine(events, /content snapshot writing/, 30_000, snapFrom);
    const writing = lineIndex(events, /content snapshot writing/, snapFrom);
    // Writes take tens of milliseconds at these sizes: kill within them.
    await sleep(o.moment * 10);
    const snapshotInterrupted = lineIndex(events, /content snapshot written/, writing) < 0;
    await server.kill();
    const leftBehind = fs.existsSync(`${tenantDir(server)}.next`);
    notes.push(`snapshot: killed ${snapshotInterrupted ? 'during' : 'after'} the write${leftBehind ? ' (partial .next left behind)' : ''} at ${Date.now() - started} ms`);
    killedDuringWork &&= snapshotInterrupted;

    server = await restart(server, { KINDRED_REFIT_GROWTH: '1.05' });
    events = watchEvents(server.child);
    api = new Client(server.url);
    report = mergeReports(report, await checkDocuments(api, ledger), await checkIndex(api, ledger, { adminToken: ADMIN_TOKEN, sample: CHECK_SAMPLE }));

    // Growth past 5 % of the fitted corpus refits: it must complete and serve the new documents.
    const refitFrom = events.length;
    const extra = docs.slice(o.size + 100, o.size + 200);
    const more = await ingestDocuments(api, extra, ledger);
    await waitForLine(events, /content index built/, 120_000, refitFrom);
    notes.push(`refit after growth completed at ${Date.now() - started} ms`);
    report = mergeReports(report, await checkIndex(api, ledger, { adminToken: ADMIN_TOKEN, sample: CHECK_SAMPLE }));
    report.problems.push(...ingested.problems, ...more.problems);
    return { scenario: 'index-rebuild', backend: o.backend, killedDuringWork, report, notes, ms: Date.now() - started };
  } finally {
    await server.stop();
    cleanUp(server);
  }
}

/** The tenant id of a subscription key (as `kindred keys list` shows it). */
export function tenantOf(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 32);
}

const SAVED_MODEL = /saved model ([\w-]+)/;
const savedVersions = (lines: readonly string[]) => lines.map((l) => SAVED_MODEL.exec(l)?.[1]).filter((v): v is string => v !== undefined);

/** The hybrid model version the server reports loading (after a request that uses it). */
async function servedModel(api: Client, events: string[], user: string, report: CheckReport, timeoutMs: number, wanted?: (version: string) => boolean): Promise<string | undefined> {
  let version: string | undefined;
  await waitUntil('the hybrid model to be served', async () => {
    const served = await checkHybridServes(api, user);
    if (served.problems.length) {
      report.problems.push(...served.problems);
      return true;
    }
    const loaded = events.map((l) => /"version":"([\w-]+)".*hybrid model loaded/.exec(l)?.[1]).filter((v): v is string => v !== undefined);
    version = loaded.at(-1);
    return served.recognised && version !== undefined && (!wanted || wanted(version));
  }, timeoutMs, 250);
  return version;
}

/**
 * Kill -9 during ALS training: (server) the server while KINDRED_TRAIN_CRON trains, with preferences
 * still arriving; (cli) the `kindred train` process. Afterwards the last complete model (or none) is
 * served, never a partial one, every acknowledged preference is there, and a re-run's model is picked up.
 */
export async function crashDuringTraining(o: ScenarioOptions & { where: 'server' | 'cli' }): Promise<ScenarioResult> {
  const started = Date.now();
  const ledger = newLedger();
  const notes: string[] = [];
  const report = emptyReport();
  const schedule = { KINDRED_TRAIN_CRON: `${tenantOf('test-key')}=*/2 * * * * *` };
  let server = await startServer({ backend: o.backend, env: serverEnv(o.where === 'server' ? schedule : {}) });
  try {
    let events = watchEvents(server.child);
    let api = new Client(server.url);
    const users = Math.max(20, Math.round(o.size / 25));
    await seedForPreferences(api, ledger, 400, users);
    const pairs = preferencePairs(users, 25, 400, 7 + Math.floor(o.moment * 1000));
    const half = Math.floor(pairs.length / 2);
    await ingestPreferences(api, pairs.slice(0, half), ledger);
    const cli = (dataDir: string, mongodbUri?: string) => spawn(process.execPath, [CLI_ENTRY, 'train', '--key', 'test-key'], {
      env: { ...process.env, KINDRED_DATA_DIR: dataDir, MONGODB_URI: mongodbUri ?? '', KINDRED_WORKERS: '1' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const runCli = (dataDir: string, mongodbUri?: string) => new Promise<string>((resolve, reject) => {
      const child = cli(dataDir, mongodbUri);
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => { out += chunk.toString(); });
      child.stderr!.on('data', (chunk: Buffer) => { out += chunk.toString(); });
      child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`kindred train exited ${code}: ${out}`))));
    });

    // A first complete model, which must keep being served (or be replaced by a complete newer one).
    if (o.where === 'server') await waitForLine(events, SAVED_MODEL, 60_000);
    else await runCli(server.dataDir, server.mongodbUri);
    const first = await servedModel(api, events, 'user-0', report, 30_000);
    notes.push(`first model ${first}`);

    let killedDuringWork: boolean;
    if (o.where === 'server') {
      const from = events.length;
      const ingestion = ingestPreferences(api, pairs.slice(half), ledger, 8);
      await waitForLine(events, /training on \d+ preferences/, 60_000, from);
      const trainingStart = lineIndex(events, /training on \d+ preferences/, from);
      // Training here takes about a second; the model is saved near its end, so aim across that span.
      await sleep(o.moment * 1500);
      killedDuringWork = lineIndex(events, SAVED_MODEL, trainingStart) < 0;
      await server.kill();
      const ingested = await ingestion;
      report.problems.push(...ingested.problems);
      notes.push(`${ledger.preferences.size} preferences acknowledged, ${ledger.maybePreferences.size} in flight`);
    } else {
      await ingestPreferences(api, pairs.slice(half), ledger);
      const child = cli(server.dataDir, server.mongodbUri);
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => { out += chunk.toString(); });
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const target = 1 + Math.floor(o.moment * 15);
      await waitUntil('the CLI to train', () => out.includes(`iteration ${target}/`) || out.includes('saved model') || child.exitCode !== null, 120_000, 5);
      killedDuringWork = !out.includes('saved model');
      child.kill('SIGKILL');
      await exited;
      const iterations = [...out.matchAll(/^iteration (\d+)\//gm)].length;
      notes.push(`cli killed after ${iterations} iterations${killedDuringWork ? '' : ' (its model was already saved)'}`);
      // The running server keeps serving the first model (or, had the save finished, the new one).
      const during = await checkHybridServes(api, 'user-0');
      report.problems.push(...during.problems);
      if (!during.recognised) report.problems.push('after the CLI was killed the server no longer recognises a trained user');
      await server.kill();
    }

    const beforeRestart = new Set(savedVersions(events));
    server = await restart(server, o.where === 'server' ? schedule : {});
    events = watchEvents(server.child);
    api = new Client(server.url);
    Object.assign(report, mergeReports(report, await checkPreferences(api, ledger), await checkDocuments(api, ledger)));
    // Straight after the restart: a complete model is served (the first, or one saved before the kill).
    const served = await servedModel(api, events, 'user-0', report, 30_000);
    notes.push(`served after the restart: ${served}${served === first ? ' (the first model)' : beforeRestart.has(served ?? '') ? ' (saved before the kill)' : ''}`);
    // The re-run (schedule, or the CLI again; either may wait out the killed holder's lease) finishes and is picked up.
    let rerun: string | undefined;
    if (o.where === 'server') {
      await waitForLine(events, SAVED_MODEL, 120_000);
      rerun = savedVersions(events).at(-1);
    } else {
      rerun = SAVED_MODEL.exec(await runCli(server.dataDir, server.mongodbUri))?.[1];
    }
    const pickedUp = await servedModel(api, events, 'user-0', report, 60_000, (v) => v === rerun || savedVersions(events).includes(v));
    if (!rerun || !pickedUp) report.problems.push(`the re-run's model (${rerun}) was not picked up (serving ${pickedUp})`);
    notes.push(`re-run model ${rerun} served`);
    return { scenario: `training-${o.where}`, backend: o.backend, killedDuringWork, report, notes, ms: Date.now() - started };
  } finally {
    await server.stop();
    cleanUp(server);
  }
}

/** Kill -9 while a cluster model trains (v3): after the restart the job is resumed and every document is assigned. */
export async function crashDuringClustering(o: ScenarioOptions): Promise<ScenarioResult> {
  const started = Date.now();
  const ledger = newLedger();
  let server = await startServer({ backend: o.backend, env: serverEnv() });
  try {
    let api = new Client(`${server.url}/v3`);
    const docs = texts(o.size);
    const ingested = await ingestDocuments(new Client(server.url), docs, ledger);
    const clusters = 20;
    const created = await api.post<{ id: number; status: string }>('/cluster-models', { number_clusters: clusters });
    if (created.status !== 201) throw new Error(`POST /cluster-models → ${created.status} ${created.text}`);
    await sleep(o.moment * 3000);
    const status = (await api.get<{ status: string }>(`/cluster-models/${created.body.id}`)).body.status;
    const killedDuringWork = status === 'training';
    await server.kill();
    server = await restart(server);
    api = new Client(`${server.url}/v3`);
    const report = mergeReports(await checkDocuments(new Client(server.url), ledger));
    report.problems.push(...ingested.problems);
    await waitUntil('the cluster model to be trained', async () => {
      const res = await api.get<{ status: string }>(`/cluster-models/${created.body.id}`);
      if (res.body.status === 'failed') throw new Error('cluster training failed after the restart');
      return res.body.status === 'trained';
    }, 240_000, 200);
    const ids = (await api.get<number[]>(`/cluster-models/${created.body.id}/clusters`)).body;
    let assigned = 0;
    for (const c of ids) assigned += (await api.get<unknown[]>(`/cluster-models/${created.body.id}/clusters/${c}/documents`)).body.length;
    report.checked += docs.length;
    if (assigned !== ledger.documents.size) report.problems.push(`clusters hold ${assigned} documents, the key ${ledger.documents.size}`);
    return { scenario: 'clustering', backend: o.backend, killedDuringWork, report, notes: [`killed with the model ${status}`], ms: Date.now() - started };
  } finally {
    await server.stop();
    cleanUp(server);
  }
}
