import assert from 'node:assert/strict';
import { Client } from '../helpers/client';
import { startServer, type RunningServer } from '../helpers/server';
import { CORPUS } from '../fixtures/corpus';

const LONG_TEXT = 'The football team and the basketball players trained in the stadium before the championship final, ' +
  'while the coach watched the striker, the goalkeeper and the defenders practise penalties and passes for the league match.';

describe('v1, v2, v3 and v5 recommendations over the same data', function () {
  this.timeout(180_000);
  let server: RunningServer;
  let api: Client;
  let v1: (method: string, path: string, form?: Record<string, string>) => Promise<{ status: number; text: string; type: string; body: any }>;

  before(async () => {
    server = await startServer({ backend: 'embedded' });
    api = new Client(server.url);
    for (const doc of CORPUS) await api.post(`/documents/${doc.id}`, { text: doc.text, meta: { topic: doc.topic } });
    v1 = async (method, path, form) => {
      const res = await fetch(`${server.url}/v1${path}${path.includes('?') ? '&' : '?'}subscription-key=test-key`, {
        method,
        headers: form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {},
        body: form ? new URLSearchParams(form).toString() : undefined,
      });
      const text = await res.text();
      const type = res.headers.get('content-type') ?? '';
      return { status: res.status, text, type, body: type.includes('json') ? JSON.parse(text) : text };
    };
  });
  after(() => server?.stop());

  it('v5 recommends with the v5 shapes and fields', async () => {
    const res = await api.get('/v5/documents/sport-1/similar?number=3&fields=meta');
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 3);
    assert.deepEqual(Object.keys(res.body[0]).sort(), ['id', 'meta', 'similarity']);
    assert.match((await api.get('/v5/documents/sport-1/similar?fields=tags')).body.message, /^fields is invalid/);
    assert.equal((await api.get(`/v5/documents/sport-1/similar?filter=${encodeURIComponent("tagged with 'x'")}`)).status, 400);
    const byIds = await api.post('/v5/documents/similar-to-ids', { ids: ['food-1'], number: 2 });
    assert.ok(byIds.body.every((r: { id: string }) => r.id.startsWith('food')));
  });

  it('v3 expands meta on request and has no similar-to-ids', async () => {
    const res = await api.get('/v3/documents/tech-1/similar?number=2&expand_meta=true');
    assert.deepEqual(Object.keys(res.body[0]).sort(), ['id', 'meta', 'similarity']);
    assert.equal(res.body[0].meta.topic, 'tech');
    const plain = await api.post('/v3/documents/similar-to-text', { text: 'pasta sauce recipe', number: 2 });
    assert.deepEqual(Object.keys(plain.body[0]).sort(), ['id', 'similarity']);
    assert.equal((await api.post('/v3/documents/similar-to-ids', { ids: ['tech-1'] })).status, 400);
  });

  it('v2 recommends only among integer-id documents, with integer ids', async () => {
    const v2 = new Client(`${server.url}/v2`);
    const a = (await v2.post('/documents', { text: CORPUS[0].text })).body.id;
    const b = (await v2.post('/documents', { text: CORPUS[1].text })).body.id;
    await v2.post('/documents', { text: CORPUS[10].text });
    await new Promise((r) => setTimeout(r, 300));
    const res = await v2.get(`/documents/${a}/similar?number=5`);
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 2);
    assert.equal(res.body[0].id, b);
    assert.ok(res.body.every((r: { id: unknown }) => typeof r.id === 'number'));
    const text = await v2.post('/documents/similar-to-text', { text: 'football penalty', select_from: [b] });
    assert.deepEqual(text.body.map((r: { id: number }) => r.id), [b]);
    assert.deepEqual((await v2.get('/documents/abc/similar')).body, { message: 'id is invalid' });
  });

  it('v1 stores, fetches, lists, updates and deletes with form parameters', async () => {
    const added = await v1('POST', '/add/', { document_id: 'v1-doc', text: LONG_TEXT, meta: '{"source": "v1"}' });
    assert.equal(added.status, 200);
    assert.ok(added.type.includes('application/json'));
    assert.equal(added.body.document_id, 'v1-doc');
    assert.equal(added.body.meta, '{"source":"v1"}');
    assert.match(added.body.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/);
    const fetched = await v1('GET', '/fetch/?document_id=v1-doc');
    assert.deepEqual(fetched.body, added.body);
    assert.ok((await v1('GET', '/list/')).body.includes('v1-doc'));
    const meta = await v1('POST', '/update-meta/', { document_id: 'v1-doc', meta: '{"source": "v1", "n": 2}' });
    assert.equal(meta.body.meta, '{"source":"v1","n":2}');
    const text = await v1('POST', '/update-text/', { document_id: 'v1-doc', text: `${LONG_TEXT} Again.` });
    assert.ok(text.body.text.endsWith('Again.'));
    assert.equal((await api.get('/documents/v1-doc')).body.meta.n, 2);
    const deleted = await v1('POST', '/delete/', { document_id: 'v1-doc' });
    assert.equal(deleted.body.document_id, 'v1-doc');
  });

  it('v1 answers errors as the original did', async () => {
    await v1('POST', '/add/', { document_id: 'dup', text: LONG_TEXT });
    const dup = await v1('POST', '/add/', { document_id: 'dup', text: LONG_TEXT });
    assert.equal(dup.status, 409);
    assert.ok(dup.type.includes('text/html'));
    assert.equal(dup.text, '<html><title>409: id already exists! document_id dup</title><body>409: id already exists! document_id dup</body></html>');
    const short = await v1('POST', '/add/', { document_id: 'short', text: 'too few words here' });
    assert.equal(short.status, 406);
    assert.ok(short.text.includes('406: less than 25 words recognized'));
    const missing = await v1('GET', '/fetch/?document_id=nope');
    assert.equal(missing.status, 404);
    assert.ok(missing.text.includes('<title>404: Not Found</title>'));
    const unknown = await v1('GET', '/nowhere/');
    assert.deepEqual(unknown.body, { statusCode: 404, message: 'Resource not found' });
    const noKey = await fetch(`${server.url}/v1/list/`);
    assert.equal(noKey.status, 401);
  });

  it('v1 recommends by id (itself first, at distance 0) and by text', async () => {
    await v1('POST', '/add/', { document_id: 'v1-sport', text: LONG_TEXT });
    await new Promise((r) => setTimeout(r, 300));
    const byId = await v1('POST', '/recommend-by-id/', { document_id: 'v1-sport', results: '4' });
    assert.equal(byId.status, 200);
    assert.equal(byId.body.length, 4);
    assert.deepEqual(byId.body[0], { distance: 0, document_id: 'v1-sport' });
    const ds = byId.body.map((r: { distance: number }) => r.distance);
    assert.deepEqual(ds, [...ds].sort((a: number, b: number) => a - b));
    assert.ok(byId.body.slice(1).every((r: { document_id: string }) => r.document_id.startsWith('sport') || r.document_id === 'dup' || /^[0-9]+$/.test(r.document_id)));
    const selected = await v1('POST', '/recommend-by-id/', { document_id: 'v1-sport', select_from: '["food-1", "tech-1"]' });
    assert.deepEqual(selected.body.slice(1).map((r: { document_id: string }) => r.document_id).sort(), ['food-1', 'tech-1']);
    const byText = await v1('POST', '/recommend-by-text/', { text: LONG_TEXT, results: '3' });
    assert.equal(byText.body.length, 3);
    assert.equal((await v1('POST', '/recommend-by-text/', { text: 'short text' })).status, 406);
    assert.equal((await v1('POST', '/recommend-by-id/', { document_id: 'v1-sport', results: '201' })).status, 400);
    assert.equal((await v1('POST', '/recommend-by-id/', { document_id: 'ghost' })).status, 404);
  });

  it('v1 delete-all wipes the key', async () => {
    const res = await v1('POST', '/delete-all/');
    assert.equal(res.status, 200);
    assert.deepEqual((await v1('GET', '/list/')).body, []);
  });
});
