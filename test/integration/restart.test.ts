import assert from 'node:assert/strict';
import { Client } from '../helpers/client';
import { startServer, type RunningServer } from '../helpers/server';
import { CORPUS } from '../fixtures/corpus';
import { waitForLine } from '../helpers/invariants';

const ids = (res: { body: Array<{ id: string }> }) => res.body.map((r) => r.id);

const keywordIds = async (api: Client, query: unknown): Promise<string[]> => {
  const res = await api.post('/documents/by-keyword', { es_query: { query, size: 50 } });
  assert.equal(res.status, 200, res.text);
  return (res.body as { hits: { hits: Array<{ id: string }> } }).hits.hits.map((h) => h.id).sort();
};

describe('index snapshots across restarts', function () {
  this.timeout(240_000);
  let server: RunningServer | undefined;
  after(() => server?.stop());

  it('restores the index from its snapshot and catches up with writes made after it', async () => {
    server = await startServer({ backend: 'embedded' });
    let api = new Client(server.url);
    for (const doc of CORPUS) await api.post(`/documents/${doc.id}`, { text: doc.text });
    assert.equal((await api.get('/documents/food-1/similar?number=2')).status, 200);
    await server.stop();

    server = await startServer({ backend: 'embedded', dataDir: server.dataDir });
    api = new Client(server.url);
    const first = await api.get('/documents/food-1/similar?number=2');
    assert.ok(ids(first).every((id) => id.startsWith('food')), ids(first).join());
    assert.ok(server.lines.some((l) => l.includes('content index restored')), 'restored from the snapshot, not rebuilt');

    await api.post('/documents/late', { text: 'Grill the salmon with lemon butter, dill and capers for a quick fish dinner recipe.' });
    await api.delete('/documents/food-5');
    await new Promise((r) => setTimeout(r, 500));
    await server.kill();

    server = await startServer({ backend: 'embedded', dataDir: server.dataDir });
    api = new Client(server.url);
    const caught = await api.post('/documents/similar-to-text', { text: 'grilled salmon with lemon and dill', number: 14 });
    assert.equal(ids(caught)[0], 'late');
    assert.ok(!ids(caught).includes('food-5'));
    assert.ok(server.lines.some((l) => l.includes('content index restored')));
  });

  it('restores the keyword index from its snapshot and reconciles it with storage after a crash', async () => {
    await server?.stop();
    server = await startServer({ backend: 'embedded' });
    let api = new Client(server.url);
    for (const doc of CORPUS) await api.post(`/documents/${doc.id}`, { text: doc.text, meta: { kind: doc.id.split('-')[0] } });
    const food = await keywordIds(api, { term: { 'meta.kind.keyword': 'food' } });
    assert.ok(food.length > 2, food.join());
    await server.stop();

    server = await startServer({ backend: 'embedded', dataDir: server.dataDir });
    api = new Client(server.url);
    assert.deepEqual(await keywordIds(api, { term: { 'meta.kind.keyword': 'food' } }), food);
    await waitForLine(server.lines, /^(?=.*"refreshed":0,)(?=.*keyword index restored)/, 10_000);

    // Writes after the last snapshot, then kill -9: storage decides what the restored index holds.
    await api.post('/documents/late', { text: 'Quince paste with manchego', meta: { kind: 'food' } });
    assert.equal((await api.put(`/documents/${food[0]}`, { text: 'No longer about cooking: a chess opening', meta: { kind: 'games' } })).status, 200);
    await api.delete(`/documents/${food[1]}`);
    await server.kill();

    server = await startServer({ backend: 'embedded', dataDir: server.dataDir });
    api = new Client(server.url);
    assert.deepEqual(await keywordIds(api, { term: { 'meta.kind.keyword': 'food' } }), [...food.slice(2), 'late'].sort());
    await waitForLine(server.lines, /^(?=.*"refreshed":2,)(?=.*keyword index restored)/, 10_000);
    assert.deepEqual(await keywordIds(api, { match: { text: 'quince' } }), ['late']);
    assert.deepEqual(await keywordIds(api, { match_phrase: { text: 'chess opening' } }), [food[0]]);
  });
});
