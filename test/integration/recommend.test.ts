import assert from 'node:assert/strict';
import { Client } from '../helpers/client';
import { startServer, type RunningServer } from '../helpers/server';
import { CORPUS } from '../fixtures/corpus';
import { ingestDocuments, newLedger, newsgroupTexts } from '../helpers/invariants';

const topicOf = (id: string) => id.split('-')[0];

describe('content-based recommendations (v6)', function () {
  this.timeout(180_000);
  let server: RunningServer;
  let api: Client;

  before(async () => {
    server = await startServer({ backend: 'embedded' });
    api = new Client(server.url);
    for (const doc of CORPUS) {
      await api.post(`/documents/${doc.id}`, { text: doc.text, published_at: doc.topic === 'food' ? '2020-01-01T00:00:00Z' : '2024-01-01T00:00:00Z' });
      await api.post(`/documents/${doc.id}/tags/${doc.topic}`);
    }
    await api.post('/documents/tech-1/tags/gadgets');
    await api.post('/documents/tech-2/tags/gadgets');
  });
  after(() => server?.stop());

  it('finds documents of the same topic first, without the query document', async () => {
    for (const doc of CORPUS) {
      const res = await api.get(`/documents/${doc.id}/similar?number=4`);
      assert.equal(res.status, 200);
      const ids = res.body.map((r: { id: string }) => r.id);
      assert.equal(ids.length, 4);
      assert.ok(!ids.includes(doc.id));
      const sameTopic = ids.filter((id: string) => topicOf(id) === doc.topic).length;
      assert.ok(sameTopic >= 3, `${doc.id}: ${ids.join(', ')}`);
      const sims = res.body.map((r: { similarity: number }) => r.similarity);
      assert.deepEqual(sims, [...sims].sort((a: number, b: number) => b - a));
      for (const s of sims) assert.ok(s >= 0 && s <= 1);
    }
  });

  it('recommends from free text, with the requested fields', async () => {
    const res = await api.post('/documents/similar-to-text', { text: 'a recipe for dinner with pasta and tomato sauce', number: 3, fields: 'text,tags' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.map((r: { id: string }) => topicOf(r.id)), ['food', 'food', 'food']);
    assert.equal(typeof res.body[0].text, 'string');
    assert.deepEqual(res.body[0].tags, ['food']);
    assert.equal(res.body[0].created_at, undefined);
  });

  it('recommends from several documents, leaving them out', async () => {
    const res = await api.post('/documents/similar-to-ids', { ids: ['tech-1', 'tech-2'], number: 3 });
    assert.equal(res.status, 200);
    const ids = res.body.map((r: { id: string }) => r.id);
    assert.ok(!ids.includes('tech-1') && !ids.includes('tech-2'));
    assert.ok(ids.every((id: string) => topicOf(id) === 'tech'), ids.join(', '));
  });

  it('honours select_from, exclude and filter', async () => {
    const selected = await api.get('/documents/sport-1/similar?select_from=food-1&select_from=tech-3&number=5');
    assert.deepEqual(selected.body.map((r: { id: string }) => r.id).sort(), ['food-1', 'tech-3']);
    const commaSelected = await api.get('/documents/sport-1/similar?select_from=food-1,tech-3');
    assert.equal(commaSelected.body.length, 2);
    const excluded = await api.get('/documents/sport-1/similar?exclude=sport-2&exclude=sport-3&number=14');
    const excludedIds = excluded.body.map((r: { id: string }) => r.id);
    assert.equal(excludedIds.length, 12);
    assert.ok(!excludedIds.includes('sport-2') && !excludedIds.includes('sport-3'));
    const tagged = await api.get(`/documents/sport-1/similar?number=10&filter=${encodeURIComponent("tagged with 'gadgets'")}`);
    assert.deepEqual(tagged.body.map((r: { id: string }) => r.id).sort(), ['tech-1', 'tech-2']);
    const before = await api.post('/documents/similar-to-text', {
      text: 'sport and computers and cooking', number: 20, filter: "published before '2021-01-01T00:00:00Z' and not tagged with 'food-x'",
    });
    assert.deepEqual(before.body.map((r: { id: string }) => topicOf(r.id)), Array(5).fill('food'));
  });

  it('recommends for a user from their preferences, never what they have seen', async () => {
    await api.post('/users/reader');
    await api.post('/users/reader/preferences/food-1');
    await api.post('/users/reader/preferences/food-2');
    const res = await api.get('/users/reader/recommendations?number=3&fields=text');
    assert.equal(res.status, 200);
    const ids = res.body.map((r: { id: string }) => r.id);
    assert.ok(ids.every((id: string) => topicOf(id) === 'food' && id !== 'food-1' && id !== 'food-2'), ids.join(', '));
    assert.equal(typeof res.body[0].text, 'string');
    await api.post('/users/newcomer');
    assert.deepEqual((await api.get('/users/newcomer/recommendations')).body, []);
    assert.deepEqual((await api.get('/users/ghost/recommendations')).body, { message: "Couldn't find User" });
  });

  it('suggests tags for a document and for text', async () => {
    await api.post('/documents/untagged', { text: 'The goalkeeper and the striker of the football team trained in the stadium.' });
    await new Promise((r) => setTimeout(r, 300));
    const forDoc = await api.get('/documents/untagged/tags/suggested?number=2');
    assert.equal(forDoc.status, 200);
    assert.equal(forDoc.body.results[0].id, 'sport');
    assert.ok(forDoc.body.results[0].score > 0 && forDoc.body.results[0].score <= 1);
    const forSportDoc = await api.get('/documents/sport-1/tags/suggested');
    assert.ok(!forSportDoc.body.results.some((r: { id: string }) => r.id === 'sport'), 'a tag the document has is not suggested');
    const forText = await api.post('/tags/recommend-by-text', { text: 'new laptop processor and memory', number: 1 });
    assert.deepEqual(forText.body.results.map((r: { id: string }) => r.id), ['tech']);
    assert.deepEqual((await api.get('/documents/ghost/tags/suggested')).body, { message: "Couldn't find Document" });
  });

  it('reflects new, updated and deleted documents within a second', async () => {
    await api.post('/documents/fresh', { text: 'Grill the fish with lemon, herbs and olive oil for a light dinner recipe.' });
    await new Promise((r) => setTimeout(r, 1000));
    const found = await api.post('/documents/similar-to-text', { text: 'grilled fish with lemon and herbs', number: 1 });
    assert.equal(found.body[0].id, 'fresh');
    await api.put('/documents/fresh', { text: 'The compiler and the debugger help programmers write software.' });
    await new Promise((r) => setTimeout(r, 1000));
    const moved = await api.post('/documents/similar-to-text', { text: 'grilled fish with lemon and herbs', number: 3 });
    assert.ok(!moved.body.some((r: { id: string }) => r.id === 'fresh'));
    await api.delete('/documents/fresh');
    await new Promise((r) => setTimeout(r, 1000));
    const gone = await api.post('/documents/similar-to-text', { text: 'compiler debugger programmers software', number: 15 });
    assert.ok(!gone.body.some((r: { id: string }) => r.id === 'fresh'));
  });

  it('refuses bad input with 400 or 404 and a message', async () => {
    const cases: Array<[string, string, unknown, number, RegExp]> = [
      ['GET', '/documents/ghost/similar', undefined, 404, /^Couldn't find Document$/],
      ['GET', '/documents/sport-1/similar?number=0', undefined, 400, /^number is invalid$/],
      ['GET', '/documents/sport-1/similar?number=1001', undefined, 400, /^number is invalid$/],
      ['GET', '/documents/sport-1/similar?number=abc', undefined, 400, /^number is invalid$/],
      ['GET', `/documents/sport-1/similar?filter=${encodeURIComponent("tagged wit 'x'")}`, undefined, 400, /^filter is invalid: /],
      ['GET', '/documents/sport-1/similar?fields=bogus', undefined, 400, /^fields is invalid/],
      ['POST', '/documents/similar-to-text', {}, 400, /^text is missing$/],
      ['POST', '/documents/similar-to-text', { text: '' }, 400, /^text is invalid$/],
      ['POST', '/documents/similar-to-ids', { ids: [] }, 400, /^ids is invalid$/],
      ['POST', '/documents/similar-to-ids', { ids: ['sport-1', 'ghost'] }, 404, /^Couldn't find Document$/],
      ['POST', '/documents/similar-to-ids', {}, 400, /^ids is missing$/],
      ['POST', '/tags/recommend-by-text', { text: 'x', number: -1 }, 400, /^number is invalid$/],
    ];
    for (const [method, path, body, status, message] of cases) {
      const res = await api.request(method, path, { body });
      assert.equal(res.status, status, `${method} ${path}`);
      assert.match(res.body.message, message, `${method} ${path}`);
    }
  });

  it('answers an empty list for a text with no known word', async () => {
    const res = await api.post('/documents/similar-to-text', { text: 'zzqxv qqwrtx' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, []);
  });

  it('answers queries that arrive together as it answers each alone', async () => {
    // more queries than pool threads at once: those that wait travel to a thread in one batch
    const requests: Array<() => Promise<{ status: number; body: unknown }>> = [
      ...CORPUS.map((doc) => () => api.get(`/documents/${doc.id}/similar?number=5`)),
      ...CORPUS.slice(0, 6).map((doc) => () => api.post('/documents/similar-to-text', { text: doc.text, number: 4 })),
      () => api.post('/documents/similar-to-text', { text: 'zzqxv qqwrtx' }),
      () => api.post('/documents/similar-to-text', { text: 'qqwrtx zzqxv' }),
      () => api.get('/documents/no-such-document/similar'),
    ];
    const alone: Array<{ status: number; body: unknown }> = [];
    for (const request of requests) alone.push(await request());
    for (let round = 0; round < 3; round++) {
      const together = await Promise.all(requests.map((request) => request()));
      together.forEach((res, i) => {
        assert.equal(res.status, alone[i]!.status, `request ${i}`);
        assert.deepEqual(res.body, alone[i]!.body, `request ${i}`);
      });
    }
  });
});

describe("a user's content profile", function () {
  this.timeout(180_000);
  let server: RunningServer;
  let api: Client;
  const docs = newsgroupTexts(140);

  before(async () => {
    server = await startServer({ backend: 'embedded' });
    api = new Client(server.url);
    await ingestDocuments(api, docs, newLedger());
  });
  after(() => server?.stop());

  async function prefer(user: string, ids: readonly string[]): Promise<void> {
    assert.equal((await api.post(`/users/${user}`)).status, 201);
    // One at a time: each preference's time orders the profile.
    for (const id of ids) assert.equal((await api.post(`/users/${user}/preferences/${id}`)).status, 201);
  }

  it('is a set: the same documents preferred in another order give the same answer, to the last digit', async () => {
    const liked = docs.slice(0, 12).map((d) => d.id);
    await prefer('forward', liked);
    await prefer('backward', [...liked].reverse());
    const forward = await api.get('/users/forward/recommendations?number=15');
    assert.equal(forward.status, 200);
    assert.equal(forward.body.length, 15);
    assert.deepEqual((await api.get('/users/backward/recommendations?number=15')).body, forward.body);
    // The same for several documents named by a client.
    const asked = (ids: string[]) => api.post('/documents/similar-to-ids', { ids, number: 15 });
    assert.deepEqual((await asked([...liked].reverse())).body, (await asked(liked)).body);
  });

  it('holds the 100 most recent preferences of a user who has more', async () => {
    const ids = docs.slice(20, 121).map((d) => d.id);
    const [oldest, ...recent] = ids;
    await prefer('heavy', ids);
    await prefer('recent', recent);
    const heavy = (await api.get('/users/heavy/recommendations?number=15')).body as Array<{ id: string }>;
    const only = ((await api.get('/users/recent/recommendations?number=16')).body as Array<{ id: string }>).filter((r) => r.id !== oldest);
    assert.equal(heavy.length, 15);
    assert.ok(!heavy.some((r) => ids.includes(r.id)), 'a preferred document recommended');
    assert.deepEqual(heavy, only.slice(0, 15));
  });
});
