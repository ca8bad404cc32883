import assert from 'node:assert/strict';
import { ERRORS, type ErrorCode } from '../../src/errors';
import { Client, type Response } from '../helpers/client';
import { startServer, type RunningServer } from '../helpers/server';

const CODE = 'kindred-error-code';
const TYPE = 'kindred-error-type';
const LINK = 'kindred-error-link';

/** The answer carries `code` in its headers, with the status and type the code implies and its link. */
function assertCode(res: Pick<Response, 'status' | 'headers'>, code: ErrorCode, what: string): void {
  assert.equal(res.headers.get(CODE), code, `${what}: code`);
  assert.equal(res.status, ERRORS[code].status, `${what}: the status ${code} implies`);
  assert.equal(res.headers.get(TYPE), ERRORS[code].type, `${what}: type`);
  assert.equal(res.headers.get(LINK), `docs/errors.md#${code}`, `${what}: link`);
}

/** Issues 16 and 31: every error answer carries a stable code whose status it has; bodies keep the spec's shapes. */
describe('error codes', function () {
  this.timeout(120_000);
  let server: RunningServer;
  let api: Client;
  const v1 = (path: string, form?: Record<string, string>) => fetch(`${server.url}/v1${path}${path.includes('?') ? '&' : '?'}subscription-key=test-key`, {
    method: form ? 'POST' : 'GET',
    headers: form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {},
    body: form ? new URLSearchParams(form).toString() : undefined,
  });

  before(async () => {
    server = await startServer({
      backend: 'embedded', keys: ['test-key', 'limited-key'],
      env: { KINDRED_MAX_BODY_BYTES: '4096', KINDRED_ADMIN_TOKEN: 'admin-secret' },
    });
    api = new Client(server.url);
  });
  after(() => server?.stop());

  it('names each error by a code, with the body unchanged', async () => {
    const missing = await api.get('/documents/nope');
    assert.deepEqual(missing.body, { message: "Couldn't find Document" });
    assertCode(missing, 'document_not_found', 'missing document');
    assertCode(await api.get('/users/nobody'), 'user_not_found', 'missing user');
    assertCode(await api.get('/tags/none'), 'tag_not_found', 'missing tag');
    assertCode(await api.get('/no/such/route'), 'route_not_found', 'unknown path');
    assertCode(await api.get('/documents/nope', { key: null }), 'missing_api_key', 'no key');
    assertCode(await api.get('/documents/nope', { key: 'wrong' }), 'invalid_api_key', 'wrong key');
    assert.equal((await api.post('/documents/dup', { text: 'once' })).status, 201);
    const dup = await api.post('/documents/dup', { text: 'twice' });
    assert.deepEqual(dup.body, { message: "Document with the ID 'dup' already exists" });
    assertCode(dup, 'already_exists', 'taken id');
    assert.equal((await api.post('/users/u1')).status, 201);
    assertCode(await api.get('/users/u1/preferences/dup'), 'preference_not_found', 'missing preference');
    assertCode(await api.delete('/documents/dup/tags/t1'), 'tag_not_found', 'missing tag of a tagging');
  });

  it('tells request errors apart by code', async () => {
    const cases: Array<[Promise<Response>, ErrorCode, string]> = [
      [api.post('/documents/similar-to-text', { text: 'x', number: 0 }), 'invalid_parameter', 'number out of range'],
      [api.post('/documents/similar-to-text', { number: 3 }), 'missing_parameter', 'no text'],
      [api.post('/documents', { meta: {} }), 'missing_parameter', 'document without text'],
      [api.post('/documents', { text: 'x', meta: 'not json' }), 'invalid_parameter', 'meta string not JSON'],
      [api.post('/documents', { text: 'x', published_at: 'yesterday' }), 'invalid_parameter', 'published_at'],
      [api.get('/documents/dup/similar?fields=bogus'), 'invalid_parameter', 'fields'],
      [api.get('/documents/bad%20id'), 'invalid_id', 'id'],
      [api.post('/documents/dup/tags/bad%20tag'), 'invalid_id', 'tag_id'],
      [api.request('POST', '/documents', { rawBody: '{"text": ', headers: { 'Content-Type': 'application/json' } }), 'invalid_json', 'broken JSON'],
      [api.post('/documents', { text: 'x', meta: JSON.parse(`${'{"a":'.repeat(70)}1${'}'.repeat(70)}`) }), 'body_too_deep', 'deep body'],
      [api.post('/documents', { text: 'x'.repeat(10_000) }), 'body_too_large', 'body over KINDRED_MAX_BODY_BYTES'],
      [api.get(`/documents/dup/similar?filter=${encodeURIComponent("tagged wit 'x'")}`), 'invalid_filter', 'filter grammar'],
      [api.get(`/v5/documents/dup/similar?filter=${encodeURIComponent("tagged with 'x'")}`), 'unsupported_parameter', 'filter in v5'],
      [api.get(`/documents/dup/similar?use_hybrid=true&filter=${encodeURIComponent("tagged with 'x'")}`), 'unsupported_parameter', 'filter with hybrid'],
      [api.post('/documents/by-keyword', { es_query: { query: { no_such_query: {} } } }), 'invalid_search_query', 'search DSL'],
      [api.get('/v2/documents/abc'), 'invalid_id', 'v2 id'],
      [api.post('/batch', { ops: [] }), 'invalid_sequential_flag', 'batch flag'],
      [api.post('/batch', { sequential: true }), 'missing_parameter', 'batch without ops'],
      [api.post('/batch', { sequential: true, ops: Array.from({ length: 101 }, () => ({ method: 'GET', url: '/' })) }), 'too_many_operations', 'batch of 101'],
      [api.get('/parser/'), 'missing_url', 'parser without url'],
    ];
    for (const [answer, code, what] of cases) {
      const res = await answer;
      assertCode(res, code, what);
      assert.equal(typeof (res.body as { message?: unknown }).message, 'string', `${what}: body keeps {message}`);
    }
  });

  it('gives v1, batch operations and the admin surfaces codes too', async () => {
    const unknown = await v1('/nowhere/');
    assert.deepEqual(await unknown.json(), { statusCode: 404, message: 'Resource not found' });
    assertCode(unknown, 'route_not_found', 'v1 unknown path');
    assertCode(await v1('/fetch/?document_id=ghost'), 'document_not_found', 'v1 missing document');
    assertCode(await v1('/add/', { document_id: 'short' , text: 'too few words' }), 'too_few_words', 'v1 short text');
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    assert.equal((await v1('/add/', { document_id: 'v1-dup', text: words })).status, 200);
    const taken = await v1('/add/', { document_id: 'v1-dup', text: words });
    assert.match(await taken.text(), /409: id already exists! document_id v1-dup/);
    assertCode(taken, 'already_exists', 'v1 taken id');
    assertCode(await v1('/add/', { text: words }), 'missing_parameter', 'v1 without document_id');

    const batch = await api.post('/batch', { sequential: true, ops: [
      { method: 'GET', url: '/documents/nope', headers: { 'Subscription-Key': 'test-key' } },
      { method: 'POST', url: '/batch', headers: { 'Subscription-Key': 'test-key' } },
    ] });
    const results = (batch.body as { results: Array<{ status: number; headers: Record<string, string> }> }).results;
    assertCode({ status: results[0].status, headers: new Headers(results[0].headers) }, 'document_not_found', 'batch operation');
    assertCode({ status: results[1].status, headers: new Headers(results[1].headers) }, 'nested_batch', 'nested batch');

    assertCode(await fetch(`${server.url}/metrics`), 'admin_token_required', 'metrics without the token');
    assertCode(await fetch(`${server.url}/dashboard/data.json`, { headers: { Authorization: 'Bearer wrong' } }), 'admin_token_required', 'dashboard data with a wrong token');
  });
});
