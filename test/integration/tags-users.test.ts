import assert from 'node:assert/strict';
import { Client } from '../helpers/client';
import { backends, startServer, type RunningServer } from '../helpers/server';

for (const backend of backends()) {
  describe(`v6 tags and taggings (${backend})`, () => {
    let server: RunningServer;
    let api: Client;

    before(async () => {
      server = await startServer({ backend });
      api = new Client(server.url);
      for (const id of ['a', 'b', 'c']) await api.post(`/documents/${id}`, { text: `doc ${id}` });
    });
    after(() => server?.stop());

    it('creates, reads, updates and deletes tags', async () => {
      const created = await api.post('/tags/sports', { type: 'topic', meta: { label: 'Sports' } });
      assert.equal(created.status, 201);
      assert.equal(created.body.id, 'sports');
      assert.equal(created.body.type, 'topic');
      assert.deepEqual(created.body.meta, { label: 'Sports' });
      assert.deepEqual((await api.post('/tags/sports', {})).body, { message: "Tag with the ID 'sports' already exists" });
      assert.equal((await api.post('/tags/recommend-by-text', {})).status, 400);
      const generated = await api.post('/tags');
      assert.equal(generated.status, 201);
      assert.equal(generated.body.type, null);
      assert.deepEqual(generated.body.meta, {});
      const updated = await api.put('/tags/sports', { meta: '{"label":"Sport"}' });
      assert.equal(updated.status, 200);
      assert.deepEqual(updated.body.meta, { label: 'Sport' });
      assert.equal(updated.body.type, 'topic');
      assert.deepEqual((await api.put('/tags/sports', { meta: 'x' })).body, { message: 'meta is invalid' });
      assert.deepEqual((await api.put('/tags/none', {})).body, { message: "Couldn't find Tag" });
      assert.equal((await api.get('/tags/sports')).body.id, 'sports');
      const deleted = await api.delete(`/tags/${generated.body.id}`);
      assert.equal(deleted.status, 200);
      assert.deepEqual((await api.get(`/tags/${generated.body.id}`)).body, { message: "Couldn't find Tag" });
    });

    it('filters the tag list by type and pages it', async () => {
      await api.post('/tags/news', { type: 'topic' });
      await api.post('/tags/blue', { type: 'color' });
      const topics = await api.get('/tags?type=topic');
      assert.deepEqual(topics.body.map((t: { id: string }) => t.id).sort(), ['news', 'sports']);
      assert.equal(topics.headers.get('total'), '2');
      const page = await api.get('/tags?per_page=1&page=2');
      assert.equal(page.body.length, 1);
    });

    it('tags documents, creating unknown tags, and lists both directions', async () => {
      assert.equal((await api.post('/documents/a/tags/fresh')).status, 204);
      assert.equal((await api.post('/documents/a/tags/fresh')).status, 204);
      assert.equal((await api.post('/documents/b/tags/fresh')).status, 204);
      assert.equal((await api.get('/tags/fresh')).status, 200);
      const docs = await api.get('/tags/fresh/documents?fields=text');
      assert.deepEqual(docs.body.map((d: { id: string; text: string }) => [d.id, d.text]), [['a', 'doc a'], ['b', 'doc b']]);
      const tagsOfA = await api.get('/documents/a/tags');
      assert.deepEqual(tagsOfA.body.map((t: { id: string }) => t.id), ['fresh']);
      assert.equal(tagsOfA.headers.get('total'), '1');
      // A document's tags as a field: every tag, ordered by id, whatever order they were added in.
      for (const tag of ['zebra', 'apple', 'mango']) await api.post(`/documents/a/tags/${tag}`);
      const shown = await api.get('/documents/a?fields=tags');
      assert.deepEqual(shown.body.tags, ['apple', 'fresh', 'mango', 'zebra']);
      for (const tag of ['zebra', 'apple', 'mango']) await api.delete(`/documents/a/tags/${tag}`);
      assert.deepEqual((await api.post('/documents/zzz/tags/fresh')).body, { message: "Couldn't find Document" });
      assert.deepEqual((await api.post('/documents/a/tags/bad%20tag')).body, { message: 'tag_id is invalid' });
      assert.deepEqual((await api.get('/documents/zzz/tags')).body, { message: "Couldn't find Document" });
      assert.deepEqual((await api.get('/tags/zzz/documents')).body, { message: "Couldn't find Tag" });
    });

    it('deletes taggings with the spec messages', async () => {
      await api.post('/documents/c/tags/temp');
      assert.equal((await api.delete('/documents/c/tags/temp')).status, 204);
      const again = await api.delete('/documents/c/tags/temp');
      assert.equal(again.status, 404);
      assert.deepEqual(again.body, { message: "Tagging doesn't exist" });
      assert.deepEqual((await api.delete('/documents/c/tags/nosuch')).body, { message: "Couldn't find Tag" });
      assert.deepEqual((await api.delete('/documents/nosuch/tags/temp')).body, { message: "Couldn't find Document" });
    });

    it('removes taggings when a tag is deleted', async () => {
      await api.post('/documents/c/tags/short-lived');
      await api.delete('/tags/short-lived');
      assert.deepEqual((await api.get('/documents/c/tags')).body, []);
    });
  });

  describe(`v6 users and preferences (${backend})`, () => {
    let server: RunningServer;
    let api: Client;

    before(async () => {
      server = await startServer({ backend });
      api = new Client(server.url);
      for (const id of ['d1', 'd2', 'd3']) await api.post(`/documents/${id}`, { text: `doc ${id}` });
    });
    after(() => server?.stop());

    it('creates users and reads them with status 201', async () => {
      const created = await api.post('/users/alice');
      assert.equal(created.status, 201);
      assert.deepEqual(Object.keys(created.body).sort(), ['created_at', 'id', 'updated_at']);
      const read = await api.get('/users/alice');
      assert.equal(read.status, 201);
      assert.deepEqual(read.body, created.body);
      assert.deepEqual((await api.post('/users/alice')).body, { message: "User with the ID 'alice' already exists" });
      assert.deepEqual((await api.post('/users/a.b')).body, { message: 'id is invalid' });
      assert.equal((await api.post('/users')).status, 201);
      const list = await api.get('/users');
      assert.equal(list.headers.get('total'), '2');
      assert.deepEqual((await api.get('/users/nobody')).body, { message: "Couldn't find User" });
    });

    it('records, reads and deletes preferences', async () => {
      await api.post('/users/bob');
      const pref = await api.post('/users/bob/preferences/d1');
      assert.equal(pref.status, 201);
      assert.equal(pref.body.user_id, 'bob');
      assert.equal(pref.body.document_id, 'd1');
      const again = await api.post('/users/bob/preferences/d1');
      assert.equal(again.body.created_at, pref.body.created_at);
      await api.post('/users/bob/preferences/d2');
      const read = await api.get('/users/bob/preferences/d1');
      assert.equal(read.status, 201);
      const list = await api.get('/users/bob/preferences');
      assert.deepEqual(list.body.map((p: { document_id: string }) => p.document_id), ['d1', 'd2']);
      const byDoc = await api.get('/documents/d1/preferences');
      assert.deepEqual(byDoc.body.map((p: { user_id: string }) => p.user_id), ['bob']);
      assert.equal((await api.delete('/users/bob/preferences/d2')).status, 200);
      const missing = await api.get('/users/bob/preferences/d2');
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { message: "Couldn't find all Preferences" });
      assert.deepEqual((await api.delete('/users/bob/preferences/d2')).body, { message: "Couldn't find all Preferences" });
      assert.deepEqual((await api.post('/users/nobody/preferences/d1')).body, { message: "Couldn't find User" });
      assert.deepEqual((await api.post('/users/bob/preferences/nodoc')).body, { message: "Couldn't find Document" });
      assert.deepEqual((await api.get('/users/nobody/preferences')).body, { message: "Couldn't find User" });
    });

    it('deletes a user with its preferences', async () => {
      await api.post('/users/carol');
      await api.post('/users/carol/preferences/d3');
      const deleted = await api.delete('/users/carol');
      assert.equal(deleted.status, 200);
      assert.equal(deleted.body.merged_into, undefined);
      assert.deepEqual((await api.get('/documents/d3/preferences')).body, []);
      assert.equal((await api.delete('/users/carol')).status, 404);
    });

    it('merges a deleted user into another', async () => {
      await api.post('/users/from');
      await api.post('/users/into');
      await api.post('/users/into/preferences/d1');
      await api.post('/users/from/preferences/d1');
      await api.post('/users/from/preferences/d2');
      assert.deepEqual((await api.delete('/users/from?merge_into=nobody')).body, { message: "Couldn't find User" });
      const merged = await api.delete('/users/from?merge_into=into');
      assert.equal(merged.status, 200);
      assert.equal(merged.body.id, 'from');
      assert.equal(merged.body.merged_into, 'into');
      const prefs = await api.get('/users/into/preferences');
      assert.deepEqual(prefs.body.map((p: { document_id: string }) => p.document_id), ['d1', 'd2']);
      assert.deepEqual((await api.get('/users/from')).body, { message: "Couldn't find User" });
    });
  });
}
