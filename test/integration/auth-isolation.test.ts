import assert from 'node:assert/strict';
import { Client } from '../helpers/client';
import { backends, startServer, type RunningServer } from '../helpers/server';

for (const backend of backends()) {
  describe(`keys and tenant isolation (${backend})`, () => {
    let server: RunningServer;
    let alice: Client;
    let bob: Client;

    before(async () => {
      server = await startServer({ backend, keys: ['alice-key', 'bob-key'] });
      alice = new Client(server.url, 'alice-key');
      bob = new Client(server.url, 'bob-key');
    });
    after(() => server?.stop());

    it('answers 401 without a key and 403 with an unknown one, before anything else', async () => {
      for (const path of ['/documents', '/no/such/path', '/documents/x']) {
        const missing = await alice.get(path, { key: null });
        assert.equal(missing.status, 401);
        assert.deepEqual(missing.body, { message: 'No API key found in request' });
        const wrong = await alice.get(path, { key: 'mallory' });
        assert.equal(wrong.status, 403);
        assert.deepEqual(wrong.body, { message: 'Invalid authentication credentials' });
      }
    });

    it('never logs a key', () => {
      assert.ok(server.lines.length > 0);
      for (const line of server.lines) {
        assert.ok(!line.includes('alice-key') && !line.includes('mallory'), line);
      }
    });

    it('keeps the same ids apart across keys', async () => {
      assert.equal((await alice.post('/documents/same', { text: 'alice text' })).status, 201);
      assert.equal((await bob.post('/documents/same', { text: 'bob text' })).status, 201);
      await alice.post('/documents/only-alice', { text: 'private' });
      await alice.post('/users/same');
      await bob.post('/users/same');
      await alice.post('/users/same/preferences/only-alice');
      await alice.post('/documents/same/tags/alice-tag');
      await bob.post('/tags/bob-tag', { type: 't' });

      assert.equal((await alice.get('/documents/same')).body.text, 'alice text');
      assert.equal((await bob.get('/documents/same')).body.text, 'bob text');
      assert.equal((await bob.get('/documents/only-alice')).status, 404);
      assert.deepEqual((await bob.get('/documents/ids')).body, ['same']);
      assert.equal((await bob.get('/documents')).headers.get('total'), '1');
      assert.equal((await alice.get('/documents')).headers.get('total'), '2');
      assert.deepEqual((await bob.get('/users/same/preferences')).body, []);
      assert.equal((await bob.post('/users/same/preferences/only-alice')).status, 404);
      assert.deepEqual((await bob.get('/tags')).body.map((t: { id: string }) => t.id), ['bob-tag']);
      assert.deepEqual((await alice.get('/tags')).body.map((t: { id: string }) => t.id), ['alice-tag']);
      assert.equal((await bob.get('/tags/alice-tag')).status, 404);
      assert.deepEqual((await bob.get('/documents/same/tags')).body, []);
      assert.equal((await bob.get('/users')).headers.get('total'), '1');

      assert.equal((await bob.delete('/documents/same')).status, 200);
      assert.equal((await alice.get('/documents/same')).status, 200);
      assert.equal((await alice.get('/users/same/preferences')).body.length, 1);
    });
  });
}
