import assert from 'node:assert/strict';
import { Client } from '../helpers/client';
import { startServer, type Backend, type RunningServer } from '../helpers/server';

/** Runs `task` over `items` with at most `concurrency` in flight. */
async function inParallel<T>(items: T[], concurrency: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await task(items[next++]);
  }));
}

function crashSuite(backend: Backend, count: number) {
  describe(`acknowledged writes survive kill -9 (${backend}, ${count} documents)`, function () {
    this.timeout(300_000);
    let server: RunningServer | undefined;
    after(() => server?.stop());

    it('has every acknowledged document, byte-identical, after a restart', async () => {
      server = await startServer({ backend });
      const api = new Client(server.url);
      const acknowledged = new Map<string, string>();
      const ids = Array.from({ length: count }, (_, i) => `crash-${i}`);
      await inParallel(ids, 32, async (id) => {
        const res = await api.post(`/documents/${id}`, {
          text: `document ${id} ${'lorem ipsum '.repeat(id.length % 7)} ünïcödé ✓`,
          meta: { n: id, nested: { list: [1, 2, id] } },
          published_at: '2024-03-04T05:06:07.123+01:00',
        });
        assert.equal(res.status, 201);
        acknowledged.set(id, res.text);
      });
      await server.kill();
      server = await startServer({ backend, dataDir: server.dataDir, mongodbUri: server.mongodbUri });
      const restarted = new Client(server.url);
      let checked = 0;
      await inParallel(ids, 32, async (id) => {
        const res = await restarted.get(`/documents/${id}`);
        assert.equal(res.status, 200, id);
        assert.equal(res.text, acknowledged.get(id), id);
        checked++;
      });
      assert.equal(checked, count);
      assert.equal((await restarted.get('/documents?per_page=1')).headers.get('total'), String(count));
    });
  });
}

crashSuite('embedded', 10_000);
// The bundled MongoDB test server slows down on single inserts as a collection grows; a real mongod
// (MONGODB_URI) gets the full count.
crashSuite('mongodb', process.env.MONGODB_URI ? 10_000 : 500);
