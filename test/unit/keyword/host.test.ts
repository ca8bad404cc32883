import assert from 'node:assert/strict';
import { KeywordWorkerHost } from '../../../src/keyword/host';
import { QueryError } from '../../../src/keyword/errors';
import { KeywordIndex } from '../../../src/keyword/index';
import { ids, smallCorpus, doc } from './fixtures';

describe('keyword index in its worker thread', () => {
  let host: KeywordWorkerHost;
  before(() => { host = new KeywordWorkerHost(); });
  after(async () => { await host.close(); });

  it('answers exactly as the in-process index, per key', async () => {
    assert.equal(await host.build('k1', smallCorpus()), 3);
    const local = new KeywordIndex();
    local.build(smallCorpus());
    const q = { query: { match: { text: 'quick dog' } }, aggs: { t: { terms: { field: 'tags' } } }, highlight: { fields: { text: {} } } };
    const result = await host.search('k1', q, { now: 0 });
    assert.deepEqual(result, local.run(q, { now: 0 }));
    // Hits' fields and highlights come from their documents (storage's, in the server), decorated on the worker.
    const byId = new Map(smallCorpus().map((d) => [d.id, d]));
    const decorated = await host.decorate(result, result.response.hits.hits.map((h) => byId.get(h.id)), ['text']);
    assert.deepEqual(decorated, local.search(q, { now: 0, fields: ['text'] }, (id) => byId.get(id)));
    assert.ok(decorated.hits.hits.every((h) => h.highlight?.text && h.text === byId.get(h.id)?.text), JSON.stringify(decorated.hits.hits));
    assert.equal((await host.search('k2', { query: { match_all: {} } })).response.hits.total.value, 0, 'keys are separate');
    assert.deepEqual(await host.topByKeywords('k1', 'fox'), local.topByKeywords('fox'));
  });

  it('shows writes to the next search, and rebuilds without losing concurrent writes', async () => {
    await host.upsert('k1', doc('z', 'zebra crossing'));
    assert.deepEqual(ids((await host.search('k1', { query: { match: { text: 'zebra' } } })).response), ['z']);
    assert.equal(await host.remove('k1', ['z', 'nope']), 1);
    assert.equal((await host.search('k1', { query: { match: { text: 'zebra' } } })).response.hits.total.value, 0);
    const rebuilt = host.build('k1', smallCorpus());
    const write = host.upsert('k1', doc('w', 'walrus'));
    await Promise.all([rebuilt, write]);
    assert.deepEqual(ids((await host.search('k1', { query: { match: { text: 'walrus' } } })).response), ['w']);
    assert.equal(await host.size('k1'), 4);
  });

  it('rejects bad requests with QueryError', async () => {
    await assert.rejects(host.search('k1', { query: { bogus: {} } }), (e: unknown) => e instanceof QueryError && /bogus/.test(e.message));
  });
});
