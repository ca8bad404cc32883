import assert from 'node:assert/strict';
import http from 'node:http';
import { Client } from '../helpers/client';
import { startServer, type RunningServer } from '../helpers/server';

describe('earlier versions over the same data', () => {
  let server: RunningServer;
  let api: Client;
  const at = (prefix: string) => new Client(server.url + prefix);
  /** fetch may not set Host; a plain http request can. */
  const getWithHost = (path: string, host: string) => new Promise<{ status: number; body: any }>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: server.port, path, headers: { Host: host, 'Subscription-Key': 'test-key' } }, (res) => {
      let text = '';
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    }).on('error', reject);
  });

  before(async () => {
    server = await startServer({ backend: 'embedded', env: { KINDRED_VERSION_HOSTS: 'api-v3.example.test=v3,legacy.example.test=v2' } });
    api = new Client(server.url);
    await api.post('/documents/shared', { text: 'one text', meta: { title: 'T' }, published_at: '2024-01-01T00:00:00Z' });
    await api.post('/tags/typed', { type: 'kind', meta: { a: 1 } });
    await api.post('/documents/shared/tags/typed');
  });
  after(() => server?.stop());

  it('shows one document consistently through v6, v5, v3 and v2-invisible', async () => {
    const v6 = (await api.get('/v6/documents/shared')).body;
    const v5 = (await at('/v5').get('/documents/shared')).body;
    const v3 = (await at('/v3').get('/documents/shared')).body;
    assert.equal(v6.published_at, '2024-01-01T00:00:00Z');
    assert.deepEqual(v5, { id: 'shared', text: 'one text', meta: { title: 'T' }, created_at: v6.created_at, updated_at: v6.updated_at });
    assert.deepEqual(v3, v5);
    assert.deepEqual((await at('/v2').get('/documents/shared')).body, { message: 'id is invalid' });
  });

  it('v5 refuses v6-only fields and paths, and shows tags without type or meta', async () => {
    const v5 = at('/v5');
    assert.match((await v5.get('/documents?fields=published_at')).body.message, /^fields is invalid/);
    assert.deepEqual((await v5.post('/documents/by-keyword', { es_query: {} })).body, { message: 'id is invalid' });
    assert.deepEqual((await v5.put('/tags/typed', { type: 'x' })).body, { message: 'API path not found' });
    assert.deepEqual((await v5.get('/tags/typed')).body, { id: 'typed', created_at: (await api.get('/tags/typed')).body.created_at });
    const docs = await v5.get('/tags/typed/documents');
    assert.deepEqual(Object.keys(docs.body[0]).sort(), ['created_at', 'id', 'meta', 'text', 'updated_at']);
    const created = await v5.post('/documents/from-v5', { text: 'made in v5', published_at: '2024-01-01T00:00:00Z' });
    assert.equal(created.status, 201);
    assert.equal(created.body.published_at, undefined);
    assert.equal((await api.get('/documents/from-v5')).body.published_at, null);
  });

  it('v2 counts out integer ids, hides other ids, and answers 201 where the spec says', async () => {
    const v2 = at('/v2');
    const first = await v2.post('/documents', { text: 'v2 document' });
    assert.equal(first.status, 201);
    assert.equal(typeof first.body.id, 'number');
    const second = await v2.post('/documents', { text: 'another' });
    assert.equal(second.body.id, first.body.id + 1);
    assert.equal((await v2.post('/documents/77', { text: 'x' })).status, 404);
    const read = await v2.get(`/documents/${first.body.id}`);
    assert.equal(read.status, 201);
    assert.deepEqual(read.body, first.body);
    assert.deepEqual((await v2.get('/documents/abc')).body, { message: 'id is invalid' });
    const list = await v2.get('/documents');
    assert.deepEqual(list.body.map((d: { id: number }) => d.id), [first.body.id, second.body.id]);
    assert.equal(list.headers.get('total'), '2');
    assert.equal((await api.get(`/documents/${first.body.id}`)).body.text, 'v2 document');
    const user = await v2.post('/users');
    assert.equal(typeof user.body.id, 'number');
    assert.equal((await v2.get(`/users/${user.body.id}`)).status, 201);
    const pref = await v2.post(`/users/${user.body.id}/preferences/${first.body.id}`);
    assert.deepEqual([pref.body.user_id, pref.body.document_id], [user.body.id, first.body.id]);
    assert.equal((await v2.delete(`/users/${user.body.id}`)).status, 201);
    assert.equal((await v2.delete(`/documents/${second.body.id}`)).status, 201);
    assert.deepEqual((await v2.get('/tags')).body, { message: 'API path not found' });
  });

  it('selects the version by host name', async () => {
    const v3host = await getWithHost('/documents/shared', 'api-v3.example.test');
    assert.deepEqual(Object.keys(v3host.body).sort(), ['created_at', 'id', 'meta', 'text', 'updated_at']);
    const v2host = await getWithHost('/documents/shared', 'legacy.example.test:8080');
    assert.deepEqual(v2host.body, { message: 'id is invalid' });
    const plain = await getWithHost('/documents/shared', 'other.example.test');
    assert.equal(plain.body.published_at, '2024-01-01T00:00:00Z');
  });

  describe('batch', () => {
    it('runs operations in order, each with its own key, and reports each status', async () => {
      const res = await api.post('/v5/batch', {
        sequential: true,
        ops: [
          { method: 'POST', url: '/documents/batch-1', params: { text: 'from a batch' }, headers: { 'Subscription-Key': 'test-key' } },
          { method: 'GET', url: '/documents/batch-1', headers: { 'Subscription-Key': 'test-key' } },
          { method: 'GET', url: '/documents?per_page=1', params: { page: 2 }, headers: { 'Subscription-Key': 'test-key' } },
          { method: 'GET', url: '/documents/missing', headers: { 'Subscription-Key': 'test-key' } },
          { method: 'GET', url: '/documents/batch-1', headers: {} },
          { method: 'GET', url: '/documents/batch-1', headers: { 'Subscription-Key': 'wrong' } },
          { method: 'POST', url: '/batch', params: { sequential: true, ops: [] }, headers: { 'Subscription-Key': 'test-key' } },
        ],
      });
      assert.equal(res.status, 200);
      const statuses = res.body.results.map((r: { status: number }) => r.status);
      assert.deepEqual(statuses, [201, 200, 200, 404, 401, 403, 400]);
      assert.equal(res.body.results[1].body.text, 'from a batch');
      assert.equal(res.body.results[2].headers['Per-Page'], '1');
      assert.equal(res.body.results[2].body.length, 1);
      assert.deepEqual(res.body.results[3].body, { message: "Couldn't find Document" });
    });

    it('runs concurrently when not sequential, keeping the order of results', async () => {
      const ops = Array.from({ length: 20 }, (_, i) => ({
        method: 'POST', url: `/documents/par-${i}`, params: { text: `parallel ${i}` }, headers: { 'Subscription-Key': 'test-key' },
      }));
      const res = await api.post('/v3/batch', { sequential: false, ops });
      assert.deepEqual(res.body.results.map((r: { body: { id: string } }) => r.body.id), ops.map((_, i) => `par-${i}`));
    });

    it('takes the flag as the strings "true" and "false" too, as the original\'s own loader sends it', async () => {
      const op = (id: string) => ({ method: 'POST', url: `/documents/${id}`, params: { text: `flag ${id}` }, headers: { 'Subscription-Key': 'test-key' } });
      for (const [flag, id] of [['true', 'flag-t'], ['false', 'flag-f']]) {
        const res = await api.post('/v3/batch', { sequential: flag, ops: [op(id)] });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.results[0].status, 201);
        assert.equal((await api.get(`/documents/${id}`)).status, 200);
      }
      for (const flag of ['yes', 'TRUE', 1, null]) {
        const res = await api.post('/v5/batch', { sequential: flag, ops: [] });
        assert.equal(res.status, 422, String(flag));
        assert.deepEqual(res.body, { message: 'Sequential flag is currently required' });
      }
    });

    it('refuses a missing sequential flag with 422 and too many operations with 400', async () => {
      const missing = await api.post('/v2/batch', { ops: [] });
      assert.equal(missing.status, 422);
      assert.deepEqual(missing.body, { message: 'Sequential flag is currently required' });
      const tooMany = await api.post('/v5/batch', { sequential: true, ops: Array.from({ length: 101 }, () => ({ method: 'GET', url: '/documents/ids' })) });
      assert.equal(tooMany.status, 400);
      assert.match(tooMany.body.message, /at most 100/);
    });
  });

  describe('delete-all-data', () => {
    it('wipes one key and nothing of another', async () => {
      const other = await startServer({ backend: 'embedded', keys: ['k-a', 'k-b'] });
      try {
        const a = new Client(other.url + '/v3', 'k-a');
        const b = new Client(other.url + '/v3', 'k-b');
        await a.post('/documents/x', { text: 'a' });
        await a.post('/users/u');
        await a.post('/documents/x/tags/t');
        await b.post('/documents/x', { text: 'b' });
        const wiped = await a.delete('/delete-all-data');
        assert.equal(wiped.status, 204);
        assert.equal(wiped.text, '');
        assert.equal((await a.get('/documents')).headers.get('total'), '0');
        assert.equal((await a.get('/users')).headers.get('total'), '0');
        assert.deepEqual((await a.get('/tags')).body, []);
        assert.equal((await b.get('/documents/x')).body.text, 'b');
        assert.equal((await new Client(other.url + '/v5', 'k-a').delete('/delete-all-data')).status, 404);
        assert.equal((await new Client(other.url + '/v2', 'k-a').delete('/delete-all-data')).status, 204);
      } finally {
        await other.stop();
      }
    });
  });
});
