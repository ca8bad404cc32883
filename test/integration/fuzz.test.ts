import assert from 'node:assert/strict';
import fc from 'fast-check';
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

describe('fuzzing every route (no 5xx, no hang, JSON errors)', function () {
  this.timeout(600_000);
  let server: RunningServer;
  const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);

  before(async () => {
    server = await startServer({ backend: 'embedded', env: { LOG_LEVEL: 'info' } });
    const headers = { 'Subscription-Key': 'test-key', 'Content-Type': 'application/json' };
    for (const id of ['d1', 'd2']) await fetch(`${server.url}/documents/${id}`, { method: 'POST', headers, body: JSON.stringify({ text: 'football goal team match stadium coach players' }) });
    await fetch(`${server.url}/users/u1`, { method: 'POST', headers });
    await fetch(`${server.url}/documents/d1/tags/t1`, { method: 'POST', headers });
  });
  after(() => server?.stop());

  it(`answers ${RUNS} random requests on v6, v5, v3 and v2 without a server error`, async () => {
    await fc.assert(fc.asyncProperty(request, async (r) => {
      let i = 0;
      const path = r.template.replace(/:x/g, () => r.segments[i++] ?? 'x');
      const qs = new URLSearchParams(r.query).toString();
      const url = `${server.url}${r.prefix}${path}${qs ? `?${qs}` : ''}`;
      const res = await fetch(url, {
        method: r.method,
        headers: { 'Subscription-Key': 'test-key', ...(r.body ? { 'Content-Type': r.body.type } : {}) },
        body: r.method === 'GET' || r.method === 'DELETE' ? undefined : r.body?.raw,
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      assert.ok(res.status < 500, `${r.method} ${url} ${r.body?.raw ?? ''} → ${res.status} ${text.slice(0, 300)}`);
      if (res.status >= 400) {
        const body = JSON.parse(text) as { message?: unknown };
        assert.equal(typeof body.message, 'string', `${r.method} ${url} → ${text.slice(0, 200)}`);
      }
    }), { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261121) });
  });

  it('answers random v1 form requests without a server error', async () => {
    await fc.assert(fc.asyncProperty(v1Request, async (r) => {
      const res = await fetch(`${server.url}/v1${r.path}?subscription-key=test-key`, {
        method: r.method,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: r.method === 'POST' ? new URLSearchParams(r.form).toString() : undefined,
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      assert.ok(res.status < 500, `${r.method} ${r.path} ${JSON.stringify(r.form)} → ${res.status} ${text.slice(0, 300)}`);
    }), { numRuns: Math.ceil(RUNS / 5), seed: 7 });
  });

  it('logged no unhandled error', () => {
    const errors = server.lines.filter((l) => l.includes('"level":50'));
    assert.deepEqual(errors, []);
  });
});
