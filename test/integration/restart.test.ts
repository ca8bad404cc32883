import assert from 'node:assert/strict';
import { Client } from '../helpers/client';
import { startServer, type RunningServer } from '../helpers/server';
import { CORPUS } from '../fixtures/corpus';

const ids = (res: { body: Array<{ id: string }> }) => res.body.map((r) => r.id);

describe('content index snapshots across restarts', function () {
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
});
