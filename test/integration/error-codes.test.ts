import assert from 'node:assert/strict';
import { Client } from '../helpers/client';
import { startServer, type RunningServer } from '../helpers/server';

const CODE = 'kindred-error-code';

/** Issue 16: every error carries a stable code in a header; bodies keep the spec's messages. */
describe('error codes', function () {
  this.timeout(60_000);
  let server: RunningServer;
  let api: Client;

  before(async () => {
    server = await startServer({ backend: 'embedded' });
    api = new Client(server.url);
  });
  after(() => server?.stop());

  it('names each error by a code, with the body unchanged', async () => {
    const missing = await api.get('/documents/nope');
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, { message: "Couldn't find Document" });
    assert.equal(missing.headers.get(CODE), 'document_not_found');
    assert.equal((await api.get('/users/nobody')).headers.get(CODE), 'user_not_found');
    assert.equal((await api.get('/no/such/route')).headers.get(CODE), 'route_not_found');
    assert.equal((await api.get('/documents/nope', { key: null })).headers.get(CODE), 'missing_api_key');
    assert.equal((await api.get('/documents/nope', { key: 'wrong' })).headers.get(CODE), 'invalid_api_key');
    assert.equal((await api.post('/documents/similar-to-text', { text: 'x', number: 0 })).headers.get(CODE), 'invalid_request');
    assert.equal((await api.post('/documents/dup', { text: 'once' })).status, 201);
    assert.equal((await api.post('/documents/dup', { text: 'twice' })).headers.get(CODE), 'already_exists');
  });

  it('gives v1 and batch operations the same codes', async () => {
    const v1 = await fetch(`${server.url}/v1/nowhere/?subscription-key=test-key`);
    assert.deepEqual(await v1.json(), { statusCode: 404, message: 'Resource not found' });
    assert.equal(v1.headers.get(CODE), 'route_not_found');
    const batch = await api.post('/batch', { sequential: true, ops: [{ method: 'GET', url: '/documents/nope', headers: { 'Subscription-Key': 'test-key' } }] });
    const [result] = (batch.body as { results: Array<{ status: number; headers: Record<string, string> }> }).results;
    assert.equal(result!.status, 404);
    assert.equal(result!.headers['Kindred-Error-Code'], 'document_not_found');
  });
});
