import assert from 'node:assert/strict';
import { Client } from '../helpers/client';
import { startServer, type RunningServer } from '../helpers/server';
import { CORPUS } from '../fixtures/corpus';
import { seededRandom } from '../../src/random';

const LARGE = 10_000;
const idsOf = (body: Array<{ id: string }>) => body.map((r) => r.id);

/** Words of the hand-written corpus, so a generated key's model knows the probes' words. */
const CORPUS_WORDS = [...new Set(CORPUS.flatMap((d) => d.text.toLowerCase().match(/[a-z]{4,}/g) ?? []))];

/** `n` documents of made-up words with some of the corpus's words mixed in. */
function generatedTexts(n: number): string[] {
  const random = seededRandom(15);
  const made = (k: number) => `w${k.toString(36)}q`;
  return Array.from({ length: n }, () => {
    const words: string[] = [];
    for (let i = 0; i < 24; i++) words.push(made(Math.floor(2000 * random() ** 2)));
    for (let i = 0; i < 6; i++) words.push(CORPUS_WORDS[Math.floor(random() * CORPUS_WORDS.length)]!);
    return words.join(' ');
  });
}

/** A text no other document of the key has: a corpus sentence and a tag of made-up words. */
function probeText(n: number): string {
  return `${CORPUS[n % CORPUS.length]!.text} w${(3000 + n).toString(36)}q w${(n * 7).toString(36)}q`;
}

/**
 * Issue 15: after a write is acknowledged, the very next request sees it, through every endpoint family and
 * v1, on a freshly started server: a brand-new key and a key of 10,000 documents (whose model refits while
 * it grows, so some requests meet an index being rebuilt).
 */
describe('read your writes', function () {
  this.timeout(300_000);
  let server: RunningServer;

  before(async () => {
    server = await startServer({ backend: 'embedded', keys: ['new-key', 'v1-new-key', 'large-key'], env: { KINDRED_WORKERS: '2' } });
  });
  after(() => server?.stop());

  it('a brand-new key recommends its first document by its text at once', async () => {
    const api = new Client(server.url, 'new-key');
    const text = CORPUS[0]!.text;
    assert.equal((await api.post('/documents/first', { text })).status, 201);
    assert.deepEqual(idsOf((await api.post('/documents/similar-to-text', { text })).body), ['first']);
    assert.equal((await api.post('/documents/second', { text: CORPUS[1]!.text })).status, 201);
    assert.deepEqual(idsOf((await api.get('/documents/first/similar')).body), ['second']);
    assert.equal((await api.delete('/documents/second')).status, 200);
    assert.deepEqual((await api.get('/documents/first/similar')).body, []);
  });

  it('v1 recommends a document by its text right after /add/ (as the original client expects)', async () => {
    const v1 = async (path: string, form: Record<string, string>) => {
      const res = await fetch(`${server.url}/v1${path}?subscription-key=v1-new-key`, {
        method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString(),
      });
      return { status: res.status, body: JSON.parse(await res.text()) as unknown };
    };
    const text = CORPUS.slice(0, 3).map((d) => d.text).join(' ');
    assert.equal((await v1('/add/', { document_id: 'doc_id', text })).status, 200);
    const byText = await v1('/recommend-by-text/', { text });
    assert.equal(byText.status, 200);
    const [first] = byText.body as Array<{ distance: number; document_id: string }>;
    assert.equal(first?.document_id, 'doc_id');
    assert.ok(first.distance < 1e-6, `distance ${first.distance}`);
  });

  describe('a key of 10,000 documents', () => {
    const api = () => new Client(server.url, 'large-key');

    before(async () => {
      const texts = generatedTexts(LARGE);
      for (let i = 0; i < LARGE; i += 100) {
        const ops = texts.slice(i, i + 100).map((text, j) => ({
          method: 'POST', url: `/documents/g${i + j}`, headers: { 'Subscription-Key': 'large-key' }, params: { text },
        }));
        const res = await api().post('/batch', { sequential: false, ops });
        assert.equal(res.status, 200, res.text);
        assert.ok((res.body as { results: Array<{ status: number }> }).results.every((r) => r.status === 201));
      }
    });

    it('similar-to-text finds each document created the request before, and not after its delete', async () => {
      for (let n = 0; n < 20; n++) {
        const text = probeText(n);
        assert.equal((await api().post(`/documents/probe-${n}`, { text })).status, 201);
        const found = idsOf((await api().post('/documents/similar-to-text', { text, number: 10 })).body);
        assert.ok(found.includes(`probe-${n}`), `probe-${n} missing: ${found.join(', ')}`);
      }
      assert.equal((await api().delete('/documents/probe-0')).status, 200);
      const after = idsOf((await api().post('/documents/similar-to-text', { text: probeText(0), number: 10 })).body);
      assert.ok(!after.includes('probe-0'), after.join(', '));
    });

    it('similar, similar-to-ids and user recommendations find a document created the request before', async () => {
      const a = api();
      assert.equal((await a.post('/users/reader')).status, 201);
      for (let n = 20; n < 25; n++) {
        const text = probeText(n);
        assert.equal((await a.post(`/documents/pair-a-${n}`, { text })).status, 201);
        assert.ok((await a.post(`/users/reader/preferences/pair-a-${n}`)).status < 300);
        assert.equal((await a.post(`/documents/pair-b-${n}`, { text: `${text} again` })).status, 201);
        const similar = idsOf((await a.get(`/documents/pair-a-${n}/similar?number=10`)).body);
        assert.ok(similar.includes(`pair-b-${n}`), `similar: ${similar.join(', ')}`);
        assert.equal((await a.put(`/documents/pair-b-${n}`, { text: `${text} updated` })).status, 200);
        const byIds = idsOf((await a.post('/documents/similar-to-ids', { ids: [`pair-a-${n}`], number: 10 })).body);
        assert.ok(byIds.includes(`pair-b-${n}`), `similar-to-ids: ${byIds.join(', ')}`);
        assert.equal((await a.delete(`/documents/pair-b-${n}`)).status, 200);
        assert.equal((await a.post(`/documents/pair-c-${n}`, { text: `${text} once more` })).status, 201);
        // Freshness, not rank: the profile averages up to five topics among 10,000 documents, so the new one may
        // rank past 20 with one model and not another (a refit lands at a different moment on every machine).
        const forUser = idsOf((await a.get('/users/reader/recommendations?number=100')).body);
        assert.ok(forUser.includes(`pair-c-${n}`), `user recommendations: ${forUser.join(', ')}`);
        assert.ok(!forUser.includes(`pair-b-${n}`), `deleted, still recommended: ${forUser.join(', ')}`);
      }
    });

    it('tag suggestions, keyword search and filtered listing see a write acknowledged the request before', async () => {
      const a = api();
      for (let n = 30; n < 35; n++) {
        const text = probeText(n);
        assert.equal((await a.post(`/documents/tagged-${n}`, { text })).status, 201);
        assert.ok((await a.post(`/documents/tagged-${n}/tags/fresh-${n}`)).status < 300);
        const suggested = (await a.post('/tags/recommend-by-text', { text, number: 5 })).body as { results: Array<{ id: string }> };
        assert.ok(suggested.results.some((t) => t.id === `fresh-${n}`), JSON.stringify(suggested));
        const word = `w${(3000 + n).toString(36)}q`;
        const keyword = await a.post('/documents/by-keyword', { es_query: { query: { match: { text: word } } } });
        assert.deepEqual(keyword.body.hits.hits.map((h: { id: string }) => h.id), [`tagged-${n}`]);
        const filtered = await a.post('/documents/filtered', { filter: `tagged with 'fresh-${n}'` });
        assert.deepEqual(idsOf(filtered.body), [`tagged-${n}`]);
        assert.equal((await a.delete(`/documents/tagged-${n}`)).status, 200);
        assert.deepEqual((await a.post('/documents/filtered', { filter: `tagged with 'fresh-${n}'` })).body, []);
      }
    });
  });
});
