import assert from 'node:assert/strict';
import { Client } from '../helpers/client';
import { backends, startServer, type RunningServer } from '../helpers/server';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

for (const backend of backends()) {
  describe(`v6 documents (${backend})`, () => {
    let server: RunningServer;
    let api: Client;

    before(async () => {
      server = await startServer({ backend });
      api = new Client(server.url);
    });
    after(() => server?.stop());

    it('creates with a client id and reads it back', async () => {
      const created = await api.post('/documents/doc-1', { text: 'hello world', meta: { title: 'Hi' }, published_at: '2024-05-06T07:08:09.5+02:00' });
      assert.equal(created.status, 201);
      assert.equal(created.body.id, 'doc-1');
      assert.equal(created.body.text, 'hello world');
      assert.deepEqual(created.body.meta, { title: 'Hi' });
      assert.equal(created.body.published_at, '2024-05-06T07:08:09.5+02:00');
      assert.match(created.body.created_at, ISO_MS);
      assert.equal(created.body.created_at, created.body.updated_at);
      const read = await api.get('/documents/doc-1');
      assert.equal(read.status, 200);
      assert.deepEqual(read.body, created.body);
    });

    it('generates ids when none is given, and accepts meta as a JSON-encoded string', async () => {
      const created = await api.post('/documents', { text: 'generated', meta: '{"n": 3}' });
      assert.equal(created.status, 201);
      assert.match(created.body.id, /^[0-9a-f]{24}$/);
      assert.deepEqual(created.body.meta, { n: 3 });
      assert.equal(created.body.published_at, null);
    });

    it('answers 409 with the spec message for a taken id', async () => {
      await api.post('/documents/dup', { text: 'a' });
      const again = await api.post('/documents/dup', { text: 'b' });
      assert.equal(again.status, 409);
      assert.deepEqual(again.body, { message: "Document with the ID 'dup' already exists" });
    });

    it('refuses bad input with 400 and a JSON message', async () => {
      const cases: Array<[string, unknown, string]> = [
        ['/documents', {}, 'text is missing'],
        ['/documents', { text: 5 }, 'text is invalid'],
        ['/documents', { text: 'x', meta: 7 }, 'meta is invalid'],
        ['/documents', { text: 'x', meta: '[1,2]' }, 'meta is invalid'],
        ['/documents', { text: 'x', meta: 'not json' }, 'meta is invalid'],
        ['/documents', { text: 'x', published_at: '2024-01-01' }, 'published_at is invalid'],
        ['/documents', { text: 'x', published_at: '2024-02-30T00:00:00Z' }, 'published_at is invalid'],
        ['/documents/has%20space', { text: 'x' }, 'id is invalid'],
        ['/documents/ids', { text: 'x' }, 'id is invalid'],
        [`/documents/${'a'.repeat(256)}`, { text: 'x' }, 'id is invalid'],
        ['/documents', [1, 2], 'body is invalid'],
      ];
      for (const [path, body, message] of cases) {
        const res = await api.post(path, body);
        assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}`);
        assert.deepEqual(res.body, { message }, `${path} ${JSON.stringify(body)}`);
      }
      const malformed = await api.request('POST', '/documents', { rawBody: '{"text": ', headers: { 'Content-Type': 'application/json' } });
      assert.equal(malformed.status, 400);
      assert.deepEqual(malformed.body, { message: 'body is not valid JSON' });
      const maxLength = await api.post(`/documents/${'a'.repeat(255)}`, { text: 'x' });
      assert.equal(maxLength.status, 201);
    });

    it('refuses an oversized body with 413 and a JSON message', async () => {
      const res = await api.post('/documents', { text: 'x'.repeat(11 * 1024 * 1024) });
      assert.equal(res.status, 413);
      assert.deepEqual(res.body, { message: 'Request body is too large' });
    });

    it('updates text, meta and published_at, changing updated_at only', async () => {
      const created = await api.post('/documents/upd', { text: 'before', meta: { a: 1 } });
      await new Promise((r) => setTimeout(r, 5));
      const updated = await api.put('/documents/upd', { meta: { b: 2 }, published_at: '2020-01-01T00:00:00Z' });
      assert.equal(updated.status, 200);
      assert.equal(updated.body.text, 'before');
      assert.deepEqual(updated.body.meta, { b: 2 });
      assert.equal(updated.body.published_at, '2020-01-01T00:00:00Z');
      assert.equal(updated.body.created_at, created.body.created_at);
      assert.ok(updated.body.updated_at > created.body.updated_at);
      const text = await api.put('/documents/upd', { text: 'after' });
      assert.equal(text.body.text, 'after');
      assert.deepEqual(text.body.meta, { b: 2 });
      assert.equal((await api.put('/documents/nope', { text: 'x' })).status, 404);
      assert.deepEqual((await api.put('/documents/upd', { meta: 3 })).body, { message: 'meta is invalid' });
    });

    it('deletes a document with its preferences and taggings', async () => {
      await api.post('/documents/gone', { text: 'bye' });
      await api.post('/users/gone-user');
      await api.post('/users/gone-user/preferences/gone');
      assert.equal((await api.post('/documents/gone/tags/gone-tag')).status, 204);
      const deleted = await api.delete('/documents/gone');
      assert.equal(deleted.status, 200);
      assert.equal(deleted.body.id, 'gone');
      assert.equal(deleted.body.text, 'bye');
      assert.deepEqual((await api.get('/documents/gone')).body, { message: "Couldn't find Document" });
      assert.equal((await api.delete('/documents/gone')).status, 404);
      assert.deepEqual((await api.get('/users/gone-user/preferences')).body, []);
      assert.deepEqual((await api.get('/tags/gone-tag/documents')).body, []);
    });

    it('validates ids on read', async () => {
      const res = await api.get('/documents/bad.id');
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { message: 'id is invalid' });
      assert.deepEqual((await api.get('/documents/missing')).body, { message: "Couldn't find Document" });
    });
  });

  describe(`v6 document listing (${backend})`, () => {
    let server: RunningServer;
    let api: Client;
    const ids = Array.from({ length: 7 }, (_, i) => `list-${i}`);

    before(async () => {
      server = await startServer({ backend });
      api = new Client(server.url);
      for (const id of ids) await api.post(`/documents/${id}`, { text: `text ${id}`, meta: { i: id }, published_at: '2021-01-01T00:00:00Z' });
      await api.post(`/documents/${ids[0]}/tags/red`);
    });
    after(() => server?.stop());

    it('pages in creation order with Per-Page, Total and Link headers', async () => {
      const first = await api.get('/documents?per_page=3');
      assert.equal(first.status, 200);
      assert.deepEqual(first.body.map((d: { id: string }) => d.id), ids.slice(0, 3));
      assert.equal(first.headers.get('per-page'), '3');
      assert.equal(first.headers.get('total'), '7');
      assert.equal(first.headers.get('link'),
        '</documents?page=2&per_page=3>; rel="next", </documents?page=3&per_page=3>; rel="last"');
      const middle = await api.get('/documents?page=2&per_page=3');
      assert.deepEqual(middle.body.map((d: { id: string }) => d.id), ids.slice(3, 6));
      assert.equal(middle.headers.get('link'),
        '</documents?page=1&per_page=3>; rel="first", </documents?page=1&per_page=3>; rel="prev", ' +
        '</documents?page=3&per_page=3>; rel="next", </documents?page=3&per_page=3>; rel="last"');
      const last = await api.get('/documents?page=3&per_page=3');
      assert.deepEqual(last.body.map((d: { id: string }) => d.id), ids.slice(6));
      const beyond = await api.get('/documents?page=9&per_page=3');
      assert.deepEqual(beyond.body, []);
      const standard = await api.get('/documents');
      assert.equal(standard.headers.get('per-page'), '25');
      assert.equal(standard.body.length, 7);
    });

    it('returns meta and text by default, and exactly the fields asked for', async () => {
      const byDefault = await api.get('/documents?per_page=1');
      assert.deepEqual(Object.keys(byDefault.body[0]).sort(), ['created_at', 'id', 'meta', 'text', 'updated_at']);
      const chosen = await api.get('/documents?per_page=1&fields=published_at,tags');
      assert.deepEqual(chosen.body[0].tags, ['red']);
      assert.equal(chosen.body[0].published_at, '2021-01-01T00:00:00Z');
      assert.equal(chosen.body[0].text, undefined);
      const none = await api.get('/documents?per_page=1&fields=');
      assert.deepEqual(Object.keys(none.body[0]).sort(), ['created_at', 'id', 'updated_at']);
      const bad = await api.get('/documents?fields=text,color');
      assert.equal(bad.status, 400);
      assert.match(bad.body.message, /^fields is invalid/);
    });

    it('refuses bad paging values', async () => {
      for (const q of ['per_page=101', 'per_page=0', 'page=0', 'page=-1', 'page=abc', 'per_page=1.5']) {
        const res = await api.get(`/documents?${q}`);
        assert.equal(res.status, 400, q);
        assert.equal(typeof res.body.message, 'string');
      }
    });

    it('lists all ids', async () => {
      const res = await api.get('/documents/ids');
      assert.deepEqual(res.body, ids);
    });

    it('answers an unknown path with the spec message', async () => {
      const res = await api.get('/no/such/path');
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { message: 'API path not found' });
      assert.deepEqual((await api.request('PATCH', '/documents/list-1')).body, { message: 'API path not found' });
      assert.equal((await api.get('/v6/documents/list-1')).body.id, 'list-1');
    });
  });
}
