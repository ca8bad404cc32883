import assert from 'node:assert/strict';
import { Client } from '../helpers/client';
import { startServer, type RunningServer } from '../helpers/server';

describe('keyword search and filtered listing', function () {
  this.timeout(120_000);
  let server: RunningServer;
  let api: Client;
  const docs = [
    { id: 'k1', text: 'The quick brown fox jumps over the lazy dog', meta: { title: 'Fox story', lang: 'en' }, published_at: '2024-01-10T00:00:00Z', tags: ['animals'] },
    { id: 'k2', text: 'A quick guide to brown bread baking', meta: { title: 'Bread', lang: 'en' }, published_at: '2024-02-10T00:00:00Z', tags: ['food'] },
    { id: 'k3', text: 'Lazy afternoons with a dog and a cat', meta: { title: 'Pets', lang: 'fr' }, published_at: '2023-12-01T00:00:00Z', tags: ['animals'] },
    { id: 'k4', text: 'Nothing to see here at all', meta: { title: 'Empty' }, tags: [] },
  ];

  before(async () => {
    server = await startServer({ backend: 'embedded' });
    api = new Client(server.url);
    for (const d of docs) {
      const body: Record<string, unknown> = { text: d.text, meta: d.meta };
      if (d.published_at) body.published_at = d.published_at;
      await api.post(`/documents/${d.id}`, body);
      for (const t of d.tags) await api.post(`/documents/${d.id}/tags/${t}`);
    }
  });
  after(() => server?.stop());

  it('answers a match query with scored hits in the requested fields', async () => {
    const res = await api.post('/documents/by-keyword', { es_query: { query: { match: { text: 'quick dog' } } }, fields: 'text,tags' });
    assert.equal(res.status, 200);
    assert.equal(res.body.hits.total.value, 3);
    const ids = res.body.hits.hits.map((h: { id: string }) => h.id);
    assert.equal(ids[0], 'k1');
    assert.deepEqual(ids.slice(1).sort(), ['k2', 'k3']);
    const top = res.body.hits.hits[0];
    assert.equal(top.text, docs[0].text);
    assert.deepEqual(top.tags, ['animals']);
    assert.equal(top.meta, undefined);
    assert.ok(top._score > 0 && top._score === res.body.hits.max_score);
    assert.deepEqual(res.body.aggregations, {});
  });

  it('runs bool, range, sort, highlight and aggregations, ignoring unhonoured keys', async () => {
    const res = await api.post('/documents/by-keyword', {
      es_query: {
        query: { bool: { must: [{ match: { text: 'quick' } }], filter: [{ range: { published_at: { gte: '2024-01-01' } } }] } },
        sort: [{ published_at: 'desc' }],
        highlight: { fields: { text: {} } },
        aggs: { by_tag: { terms: { field: 'tags' } } },
        track_total_hits: true,
        _source: false,
      },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.hits.hits.map((h: { id: string }) => h.id), ['k2', 'k1']);
    assert.equal(res.body.hits.hits[0].sort[0], Date.parse('2024-02-10T00:00:00Z'));
    assert.ok(res.body.hits.hits[0].highlight.text[0].includes('<em>quick</em>'));
    assert.deepEqual(res.body.aggregations.by_tag.buckets.map((b: { key: string; doc_count: number }) => [b.key, b.doc_count]).sort(),
      [['animals', 1], ['food', 1]]);
  });

  it('refuses malformed queries with 400 naming the problem', async () => {
    const unknown = await api.post('/documents/by-keyword', { es_query: { query: { fuzzy_wuzzy: { text: 'x' } } } });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.message, /fuzzy_wuzzy/);
    const window = await api.post('/documents/by-keyword', { es_query: { from: 9995, size: 10 } });
    assert.equal(window.status, 400);
    assert.equal((await api.post('/documents/by-keyword', {})).body.message, 'es_query is missing');
    assert.equal((await api.post('/documents/by-keyword', { es_query: [] })).body.message, 'es_query is invalid');
  });

  it('sees writes at once', async () => {
    await api.post('/documents/k5', { text: 'zebra crossing' });
    const res = await api.post('/documents/by-keyword', { es_query: { query: { match: { text: 'zebra' } } } });
    assert.deepEqual(res.body.hits.hits.map((h: { id: string }) => h.id), ['k5']);
    await api.delete('/documents/k5');
    const gone = await api.post('/documents/by-keyword', { es_query: { query: { match: { text: 'zebra' } } } });
    assert.equal(gone.body.hits.total.value, 0);
  });

  it('lists filtered documents sorted by publication time with offset and limit', async () => {
    const all = await api.post('/documents/filtered', { sort_by: 'published_at', sort_order: 'desc' });
    assert.deepEqual(all.body.map((d: { id: string }) => d.id), ['k2', 'k1', 'k3', 'k4']);
    const animals = await api.post('/documents/filtered', { filter: "tagged with 'animals'", sort_by: 'published_at', sort_order: 'asc', fields: 'tags' });
    assert.deepEqual(animals.body.map((d: { id: string }) => d.id), ['k3', 'k1']);
    assert.deepEqual(animals.body[0].tags, ['animals']);
    const page = await api.post('/documents/filtered', { sort_by: 'published_at', sort_order: 'asc', offset: 1, limit: 2 });
    assert.deepEqual(page.body.map((d: { id: string }) => d.id), ['k1', 'k2']);
    const creation = await api.post('/documents/filtered', { filter: "not tagged with 'food'" });
    assert.deepEqual(creation.body.map((d: { id: string }) => d.id), ['k1', 'k3', 'k4']);
    assert.match((await api.post('/documents/filtered', { filter: 'tagged with' })).body.message, /^filter is invalid/);
    assert.equal((await api.post('/documents/filtered', { sort_by: 'created_at' })).body.message, 'sort_by is invalid');
    assert.equal((await api.post('/documents/filtered', { limit: 0 })).status, 400);
  });

  it('serves v5 keyword listing over the same engine', async () => {
    const res = await api.get('/v5/documents?keywords=bread');
    assert.deepEqual(res.body.map((d: { id: string }) => d.id), ['k2']);
    const byTitle = await api.get('/v5/documents?keywords=pets&keywords_fields=meta.title');
    assert.deepEqual(byTitle.body.map((d: { id: string }) => d.id), ['k3']);
    const onText = await api.get('/v5/documents?keywords=pets&keywords_fields=text');
    assert.deepEqual(onText.body, []);
  });
});
