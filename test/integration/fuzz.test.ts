import assert from 'node:assert/strict';
import fs from 'node:fs';
import fc from 'fast-check';
import { collectGarbage, inspectorUrl } from '../helpers/inspector';
import { watchEvents } from '../helpers/invariants';
import { startServer, type RunningServer } from '../helpers/server';

/** Paths of every version, with `:x` standing for a generated segment. */
const TEMPLATES = [
  '/documents', '/documents/:x', '/documents/ids', '/documents/:x/tags', '/documents/:x/tags/:x', '/documents/:x/tags/suggested',
  '/documents/:x/preferences', '/documents/:x/similar', '/documents/similar-to-text', '/documents/similar-to-ids',
  '/documents/popular', '/documents/by-keyword', '/documents/filtered', '/tags', '/tags/:x', '/tags/:x/documents',
  '/tags/recommend-by-text', '/users', '/users/:x', '/users/:x/preferences', '/users/:x/preferences/:x',
  '/users/:x/recommendations', '/batch', '/delete-all-data', '/cluster-models', '/cluster-models/:x', '/:x',
];
const PREFIXES = ['', '/v6', '/v5', '/v3', '/v2'];
const V1_PATHS = ['/add/', '/delete/', '/fetch/', '/list/', '/recommend-by-id/', '/recommend-by-text/', '/update-meta/', '/update-text/', '/nope/'];

const segment = fc.oneof(
  fc.constantFrom('d1', 'd2', 'u1', 't1', '1', '0', '-1', 'ids', 'popular', 'a'.repeat(300), '%E0%A4%A', '..', '%2F', 'ünï', ''),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
);
const jsonValue = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.record({ text: fc.oneof(fc.string(), fc.constant('football goal team match stadium coach players')), meta: fc.oneof(fc.string(), fc.object(), fc.constant(null)), number: fc.oneof(fc.integer(), fc.string()), ids: fc.array(fc.string(), { maxLength: 3 }) }, { requiredKeys: [] }),
  fc.record({ es_query: fc.oneof(fc.object({ maxDepth: 3 }), fc.constant({ query: { match: { text: 'x' } }, aggs: { a: { terms: { field: 'tags' } } } })), fields: fc.string() }, { requiredKeys: [] }),
  fc.record({ ops: fc.array(fc.record({ method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'), url: fc.constantFrom('/documents', '/documents/d1', '/users/u1', 'x', '/batch'), params: fc.object({ maxDepth: 2 }), headers: fc.constant({ 'Subscription-Key': 'test-key' }) }), { maxLength: 4 }), sequential: fc.oneof(fc.boolean(), fc.string()) }, { requiredKeys: [] }),
);
const query = fc.array(fc.tuple(
  fc.constantFrom('page', 'per_page', 'fields', 'number', 'filter', 'select_from', 'exclude', 'use_hybrid', 'unseen_only', 'user_id', 'merge_into', 'type', 'keywords', 'expand_meta', 'x[]'),
  fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('1', '0', '-5', '101', 'true', 'text,meta', "tagged with 'a'", '(((', '1e309')),
), { maxLength: 4 });

const request = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
  prefix: fc.constantFrom(...PREFIXES),
  template: fc.constantFrom(...TEMPLATES),
  segments: fc.array(segment, { minLength: 3, maxLength: 3 }),
  query,
  body: fc.oneof(jsonValue.map((v) => ({ type: 'application/json', raw: JSON.stringify(v) })),
    fc.string({ maxLength: 40 }).map((s) => ({ type: 'application/json', raw: s })),
    fc.string({ maxLength: 40 }).map((s) => ({ type: 'text/plain', raw: s })),
    fc.constant(undefined)),
});

const v1Request = fc.record({
  method: fc.constantFrom('GET', 'POST'),
  path: fc.constantFrom(...V1_PATHS),
  form: fc.dictionary(fc.constantFrom('document_id', 'text', 'meta', 'results', 'select_from'), fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('d1', '[1,2]', '{"a":1}', '300'))),
});

type FuzzRequest = typeof request extends fc.Arbitrary<infer T> ? T : never;

/** What a fuzz run met: the counts the issue asks for, with the first few examples of each. */
interface FuzzTally {
  requests: number;
  serverErrors: string[];
  hangs: string[];
  nonJsonErrors: string[];
  statuses: Record<string, number>;
}

const ADMIN_TOKEN = 'fuzz-admin';
const REQUEST_TIMEOUT_MS = 30_000;
const EXAMPLES = 20;

function note(list: string[], count: { n: number }, example: string): void {
  count.n++;
  if (list.length < EXAMPLES) list.push(example);
}

interface Memory {
  rssMb: number;
  heapUsedMb: number;
}

/** The server's resident memory (/proc) and V8 heap in use (its prom-client metrics), after a full GC. */
async function serverMemory(server: RunningServer): Promise<Memory> {
  const url = inspectorUrl(server.lines);
  if (!url) throw new Error('the server has no inspector (started without --inspect)');
  await collectGarbage(url);
  const status = fs.readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  const rssMb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
  const metrics = await (await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  const heapUsedMb = Number(/^nodejs_heap_size_used_bytes (\S+)/m.exec(metrics)?.[1] ?? NaN) / 1024 / 1024;
  return { rssMb, heapUsedMb };
}

/** Sends one request; no answer (30 s timeout, or a dropped connection) counts as a hang, a 5xx as a server error, a non-JSON error body (outside v1) as such. */
async function send(tally: FuzzTally, counts: Record<'errors' | 'hangs' | 'nonJson', { n: number }>, label: string, url: string, init: RequestInit, jsonErrors: boolean): Promise<void> {
  tally.requests++;
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    text = await res.text();
  } catch (error) {
    note(tally.hangs, counts.hangs, `${label} → ${String(error).slice(0, 100)}`);
    return;
  }
  const bucket = `${Math.floor(res.status / 100)}xx`;
  tally.statuses[bucket] = (tally.statuses[bucket] ?? 0) + 1;
  if (res.status >= 500) note(tally.serverErrors, counts.errors, `${label} → ${res.status} ${text.slice(0, 300)}`);
  else if (res.status >= 400 && jsonErrors) {
    let message: unknown;
    try {
      message = (JSON.parse(text) as { message?: unknown }).message;
    } catch {
      message = undefined;
    }
    if (typeof message !== 'string') note(tally.nonJsonErrors, counts.nonJson, `${label} → ${res.status} ${text.slice(0, 200)}`);
  }
}

describe('fuzzing every route (no 5xx, no hang, JSON errors)', function () {
  this.timeout(24 * 3_600_000);
  let server: RunningServer;
  const RUNS = Number(process.env.FUZZ_RUNS ?? 5000);
  /** Independent generators (seeds) sending at once: 4 make the 5,000 requests of `make test` cost ~12 s more than 1,500 one at a time. */
  const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 4);
  const SETTLE_MS = Number(process.env.FUZZ_SETTLE_MS ?? 2000);
  const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
  const tally: FuzzTally = { requests: 0, serverErrors: [], hangs: [], nonJsonErrors: [], statuses: {} };
  const counts = { errors: { n: 0 }, hangs: { n: 0 }, nonJson: { n: 0 } };
  let baseline: Memory;
  let events: string[] = [];
  const started = Date.now();

  before(async () => {
    server = await startServer({
      backend: 'embedded',
      env: { LOG_LEVEL: 'info', KINDRED_ADMIN_TOKEN: ADMIN_TOKEN, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --inspect=127.0.0.1:0`.trim() },
    });
    events = watchEvents(server.child);
    const headers = { 'Subscription-Key': 'test-key', 'Content-Type': 'application/json' };
    for (const id of ['d1', 'd2']) await fetch(`${server.url}/documents/${id}`, { method: 'POST', headers, body: JSON.stringify({ text: 'football goal team match stadium coach players' }) });
    await fetch(`${server.url}/users/u1`, { method: 'POST', headers });
    await fetch(`${server.url}/documents/d1/tags/t1`, { method: 'POST', headers });
    // Warm-up: the first requests of each route build indexes and compile code; the baseline is taken after them.
    await fc.assert(fc.asyncProperty(request, (r) => fuzzOne(r)), { numRuns: 200, seed: 1 });
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    baseline = await serverMemory(server);
  });
  after(() => server?.stop());

  function fuzzOne(r: FuzzRequest): Promise<void> {
    let i = 0;
    const path = r.template.replace(/:x/g, () => r.segments[i++] ?? 'x');
    const qs = new URLSearchParams(r.query).toString();
    const url = `${server.url}${r.prefix}${path}${qs ? `?${qs}` : ''}`;
    return send(tally, counts, `${r.method} ${url} ${r.body?.raw ?? ''}`, url, {
      method: r.method,
      headers: { 'Subscription-Key': 'test-key', ...(r.body ? { 'Content-Type': r.body.type } : {}) },
      body: r.method === 'GET' || r.method === 'DELETE' ? undefined : r.body?.raw,
    }, true);
  }

  it(`answers ${RUNS} random requests on v6, v5, v3 and v2 without a server error`, async () => {
    await Promise.all(Array.from({ length: CONCURRENCY }, (_, k) =>
      fc.assert(fc.asyncProperty(request, (r) => fuzzOne(r)), { numRuns: Math.ceil(RUNS / CONCURRENCY), seed: SEED + k })));
    assert.deepEqual({ serverErrors: tally.serverErrors, hangs: tally.hangs, nonJsonErrors: tally.nonJsonErrors }, { serverErrors: [], hangs: [], nonJsonErrors: [] });
  });

  it('answers random v1 form requests without a server error', async () => {
    await Promise.all(Array.from({ length: CONCURRENCY }, (_, k) => fc.assert(fc.asyncProperty(v1Request, async (r) => {
      // v1 renders its errors as HTML, as the spec says.
      await send(tally, counts, `${r.method} ${r.path} ${JSON.stringify(r.form)}`, `${server.url}/v1${r.path}?subscription-key=test-key`, {
        method: r.method,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: r.method === 'POST' ? new URLSearchParams(r.form).toString() : undefined,
      }, false);
    }), { numRuns: Math.ceil(RUNS / 5 / CONCURRENCY), seed: 7 + k })));
    assert.deepEqual({ serverErrors: tally.serverErrors, hangs: tally.hangs }, { serverErrors: [], hangs: [] });
  });

  it('logged no unhandled error', () => {
    // server.lines stops at 10,000 lines; the events cover the whole run (all but per-request info lines).
    const errors = [...server.lines, ...events].filter((l) => l.includes('"level":50'));
    assert.deepEqual(errors, []);
  });

  it('reports memory against the warmed-up baseline', async () => {
    const peak = await serverMemory(server);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const settled = await serverMemory(server);
    const documents = Number((await fetch(`${server.url}/documents?per_page=1`, { headers: { 'Subscription-Key': 'test-key' } })).headers.get('total'));
    const summary = {
      requests: tally.requests, seconds: (Date.now() - started) / 1000, serverErrors: counts.errors.n, hangs: counts.hangs.n, nonJsonErrors: counts.nonJson.n,
      statuses: tally.statuses, documentsAtEnd: documents, baseline, afterRun: peak, afterSettle: settled, settleMs: SETTLE_MS,
      examples: { serverErrors: tally.serverErrors, hangs: tally.hangs, nonJsonErrors: tally.nonJsonErrors },
    };
    if (process.env.FUZZ_SUMMARY) fs.writeFileSync(process.env.FUZZ_SUMMARY, JSON.stringify(summary, null, 2));
    console.log(`    fuzz: ${summary.requests} requests in ${summary.seconds.toFixed(0)} s; 5xx ${summary.serverErrors}, hangs ${summary.hangs}, non-JSON errors ${summary.nonJsonErrors}; ` +
      `RSS ${baseline.rssMb.toFixed(0)} → ${peak.rssMb.toFixed(0)} → ${settled.rssMb.toFixed(0)} MB, heap ${baseline.heapUsedMb.toFixed(1)} → ${peak.heapUsedMb.toFixed(1)} → ${settled.heapUsedMb.toFixed(1)} MB`);
    // The run stores documents, so memory may grow with them; anything beyond the tolerance is a leak to look at.
    const tolerance = Number(process.env.FUZZ_MEMORY_TOLERANCE_MB ?? 20);
    assert.ok(settled.heapUsedMb - baseline.heapUsedMb < tolerance, `heap grew by ${(settled.heapUsedMb - baseline.heapUsedMb).toFixed(1)} MB`);
  });
});
