import assert from 'node:assert/strict';
import { Client } from '../helpers/client';
import { startServer, type RunningServer } from '../helpers/server';

/**
 * Tag suggestions from the key's tag model blended with neighbour votes (src/index/tag-model.ts,
 * src/services/recommend.ts). The corpus is lopsided on purpose: 24 cooking texts, 6 astronomy texts. Every
 * document is among the 30 neighbours that vote, so the many mildly similar cooking texts outvote the few
 * astronomy ones; the model weighs each tag's own words and gets the astronomy text right.
 */
const COOKING = [
  'Bake the bread in a hot oven until the crust is golden and crisp.',
  'Simmer the tomato sauce with garlic and basil for twenty minutes.',
  'Whisk the eggs with sugar and butter, then fold in the flour.',
  'Roast the chicken with potatoes, onions and rosemary.',
  'Cook the pasta in salted boiling water and drain it well.',
  'Chop the onions and fry them slowly in olive oil until soft.',
  'Knead the dough, let it rise, then shape the loaves.',
  'Season the soup with salt, pepper and fresh herbs before serving.',
  'Grill the fish with lemon and serve it with a green salad.',
  'Melt the chocolate gently and stir in the cream for the cake.',
  'Marinate the beef overnight in soy sauce, ginger and garlic.',
  'Steam the rice and serve it with the vegetable curry.',
  'Slice the apples thinly and arrange them on the pastry for the tart.',
  'Stir the risotto often and add the warm stock a ladle at a time.',
  'Fry the bacon until crisp and crumble it over the salad.',
  'Blend the ripe bananas with milk and honey for a smoothie.',
  'Toast the spices in a dry pan before grinding them for the stew.',
  'Brush the pie with beaten egg so the crust browns in the oven.',
  'Peel the potatoes, boil them and mash them with butter and milk.',
  'Reduce the wine sauce until it is thick and glossy.',
  'Stuff the peppers with rice, minced meat and tomato, then bake them.',
  'Rub the lamb with garlic and thyme and roast it slowly.',
  'Fold the whipped cream into the strawberries for a quick dessert.',
  'Poach the eggs in simmering water with a splash of vinegar.',
];
const ASTRONOMY = [
  'The telescope revealed distant galaxies and a faint nebula near the constellation.',
  'Astronomers measured the orbit of the comet as it approached the sun.',
  'The planet Jupiter and its moons are visible through a small telescope at night.',
  'A supernova explosion in a distant galaxy outshone billions of stars.',
  'The astronaut photographed the planets and stars from the space station orbit.',
  'Light from the nebula and the star cluster took thousands of years to reach the telescope.',
];
const QUERY = 'Tonight the telescope will show the galaxy, the comet and the bright planets among the stars.';

interface Suggestion { id: string; score: number }

describe('tag suggestions from the key\'s tag model', function () {
  this.timeout(180_000);
  let server: RunningServer;
  let api: Client;

  const suggest = async (text: string, number?: number): Promise<Suggestion[]> => {
    const res = await api.post('/tags/recommend-by-text', number === undefined ? { text } : { text, number });
    assert.equal(res.status, 200, res.text);
    return res.body.results;
  };

  /** What the neighbours alone vote (the service's vote: similarity-weighted, divided by the tagged neighbours' total). */
  const neighbourVotes = async (text: string): Promise<Suggestion[]> => {
    const res = await api.post('/documents/similar-to-text', { text, number: 30, fields: 'tags' });
    assert.equal(res.status, 200, res.text);
    const votes = new Map<string, number>();
    let total = 0;
    for (const hit of res.body as Array<{ similarity: number; tags: string[] }>) {
      if (hit.tags.length === 0) continue;
      total += hit.similarity;
      for (const tag of hit.tags) votes.set(tag, (votes.get(tag) ?? 0) + hit.similarity);
    }
    return [...votes].map(([id, v]) => ({ id, score: v / total })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  };

  const assertWellFormed = (results: Suggestion[], number: number) => {
    assert.ok(results.length <= number, `at most ${number}: ${JSON.stringify(results)}`);
    for (const r of results) assert.ok(r.score > 0 && r.score <= 1, JSON.stringify(r));
    const scores = results.map((r) => r.score);
    assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
  };

  before(async () => {
    server = await startServer({ backend: 'embedded' });
    api = new Client(server.url);
    for (const [i, text] of COOKING.entries()) assert.equal((await api.post(`/documents/cook-${i}`, { text })).status, 201);
    for (const [i, text] of ASTRONOMY.entries()) assert.equal((await api.post(`/documents/astro-${i}`, { text })).status, 201);
    await api.post('/documents/astro-new', { text: 'The comet crossed the constellation while the telescope tracked the planets and the moons.' });
    await new Promise((r) => setTimeout(r, 500));
  });
  after(() => server?.stop());

  it('suggests from neighbour votes alone while the key has few taggings', async () => {
    for (const id of ['cook-0', 'cook-1', 'cook-2', 'astro-0', 'astro-1']) {
      await api.post(`/documents/${id}/tags/${id.startsWith('cook') ? 'cooking' : 'astronomy'}`);
    }
    const results = await suggest(QUERY);
    const votes = await neighbourVotes(QUERY);
    assert.deepEqual(results.map((r) => r.id), votes.map((v) => v.id));
    results.forEach((r, i) => assert.ok(Math.abs(r.score - votes[i]!.score) < 1e-9, `${r.id}: ${r.score} vs ${votes[i]!.score}`));
  });

  it('gets right what the neighbour votes get wrong once the model has enough taggings', async () => {
    for (let i = 3; i < COOKING.length; i++) await api.post(`/documents/cook-${i}/tags/cooking`);
    for (let i = 2; i < ASTRONOMY.length; i++) await api.post(`/documents/astro-${i}/tags/astronomy`);
    const votes = await neighbourVotes(QUERY);
    assert.equal(votes[0]!.id, 'cooking', `the neighbours outvote: ${JSON.stringify(votes)}`);
    const results = await suggest(QUERY);
    assert.equal(results[0]!.id, 'astronomy', JSON.stringify(results));
    assertWellFormed(results, 10);
    assert.deepEqual((await suggest(QUERY, 1)).map((r) => r.id), ['astronomy']);
    // A cooking text still gets cooking.
    assert.equal((await suggest('Knead the bread dough and bake it with butter in the oven.'))[0]!.id, 'cooking');
  });

  it('suggests for a document, never a tag it carries', async () => {
    const forNew = await api.get('/documents/astro-new/tags/suggested?number=1');
    assert.equal(forNew.status, 200);
    assert.deepEqual(forNew.body.results.map((r: Suggestion) => r.id), ['astronomy']);
    const forTagged = await api.get('/documents/astro-3/tags/suggested');
    assert.equal(forTagged.status, 200);
    assertWellFormed(forTagged.body.results, 10);
    assert.ok(!forTagged.body.results.some((r: Suggestion) => r.id === 'astronomy'), JSON.stringify(forTagged.body.results));
  });

  it('follows untagging, retagging, tag deletion and document deletion at once', async () => {
    // Move the astronomy documents to another tag: the model forgets the old one, learns the new one.
    for (let i = 0; i < ASTRONOMY.length; i++) {
      assert.equal((await api.delete(`/documents/astro-${i}/tags/astronomy`)).status, 204);
      await api.post(`/documents/astro-${i}/tags/space`);
    }
    let results = await suggest(QUERY);
    assert.equal(results[0]!.id, 'space', JSON.stringify(results));
    assert.ok(!results.some((r) => r.id === 'astronomy'), JSON.stringify(results));
    // A third tag on a few cooking texts, then deleting the tag: it is gone from the suggestions.
    for (let i = 0; i < 6; i++) await api.post(`/documents/cook-${i}/tags/baking`);
    assert.ok((await suggest('Bake the bread in a hot oven until the crust is golden.')).some((r) => r.id === 'baking'));
    assert.equal((await api.delete('/tags/baking')).status, 200);
    results = await suggest('Bake the bread in a hot oven until the crust is golden.');
    assert.ok(!results.some((r) => r.id === 'baking'), JSON.stringify(results));
    // Deleting the space documents takes their tag out of the model (and out of the votes).
    for (let i = 0; i < ASTRONOMY.length; i++) assert.ok((await api.delete(`/documents/astro-${i}`)).status < 300);
    results = await suggest(QUERY);
    assert.ok(!results.some((r) => r.id === 'space'), JSON.stringify(results));
    for (let i = 0; i < ASTRONOMY.length; i++) {
      await api.post(`/documents/astro-${i}`, { text: ASTRONOMY[i] });
      await api.post(`/documents/astro-${i}/tags/space`);
    }
    assert.equal((await suggest(QUERY))[0]!.id, 'space');
  });

  it('rebuilds the model from storage on restart', async () => {
    const before = await suggest(QUERY);
    await server.stop();
    server = await startServer({ backend: 'embedded', dataDir: server.dataDir });
    api = new Client(server.url);
    const after = await suggest(QUERY);
    assert.equal(after[0]!.id, 'space', JSON.stringify(after));
    assert.deepEqual(after.map((r) => r.id), before.map((r) => r.id));
  });

  /** Every suggestion the key gives for these texts and documents, scores included. */
  const everySuggestion = async () => Promise.all([
    ...[QUERY, 'Knead the bread dough and bake it with butter in the oven.', 'The stars of the constellation and the bread in the oven.'].map((text) => suggest(text)),
    ...['astro-new', 'cook-7', 'astro-2'].map(async (id) => {
      const res = await api.get(`/documents/${id}/tags/suggested`);
      assert.equal(res.status, 200, res.text);
      return res.body.results as Suggestion[];
    }),
  ]);

  const assertSameSuggestions = (after: Suggestion[][], before: Suggestion[][]) => {
    after.forEach((results, i) => {
      assert.deepEqual(results.map((r) => r.id), before[i]!.map((r) => r.id), JSON.stringify({ after: results, before: before[i] }));
      results.forEach((r, k) => assert.ok(Math.abs(r.score - before[i]![k]!.score) < 1e-9, `${r.id}: ${r.score} after, ${before[i]![k]!.score} before`));
    });
  };

  it('answers the same suggestions, scores included, right after a restart and after a crash (the model learnt again in the pool)', async () => {
    const before = await everySuggestion();
    assert.equal(before[0]![0]!.id, 'space', JSON.stringify(before[0]));
    await server.stop();
    server = await startServer({ backend: 'embedded', dataDir: server.dataDir });
    api = new Client(server.url);
    // Asked as soon as the server listens: suggestions wait for the model to have learnt every tagged document again.
    assertSameSuggestions(await everySuggestion(), before);
    await server.kill();
    server = await startServer({ backend: 'embedded', dataDir: server.dataDir });
    api = new Client(server.url);
    assertSameSuggestions(await everySuggestion(), before);
  });

  it('never brings back a tag untagged, re-tagged or deleted while suggestions are asked', async () => {
    // Every astronomy document moves from `space` to `cosmos`, one is deleted, while suggestions keep coming.
    const asked: Array<Promise<Suggestion[]>> = [];
    const moves = ASTRONOMY.map(async (_, i) => {
      asked.push(suggest(QUERY));
      assert.equal((await api.delete(`/documents/astro-${i}/tags/space`)).status, 204);
      asked.push(suggest(QUERY));
      assert.equal((await api.post(`/documents/astro-${i}/tags/cosmos`)).status < 300, true);
      if (i === ASTRONOMY.length - 1) assert.ok((await api.delete(`/documents/astro-${i}`)).status < 300);
    });
    await Promise.all(moves);
    for (const results of await Promise.all(asked)) assertWellFormed(results, 10);
    const results = await suggest(QUERY);
    assert.equal(results[0]!.id, 'cosmos', JSON.stringify(results));
    assert.ok(!results.some((r) => r.id === 'space'), JSON.stringify(results));
    assert.equal((await api.get(`/documents/astro-${ASTRONOMY.length - 1}/tags/suggested`)).status, 404);
    // The document deleted took its tag with it; written again untagged, it teaches nothing.
    await api.post(`/documents/astro-${ASTRONOMY.length - 1}`, { text: ASTRONOMY[ASTRONOMY.length - 1] });
    assert.equal((await suggest(QUERY))[0]!.id, 'cosmos');
  });

  it('forgets what was being learnt when the key\'s data is deleted meanwhile', async () => {
    // Taggings whose texts are being analysed when delete-all-data lands: none of them comes back.
    const taggings = COOKING.map((_, i) => api.post(`/documents/cook-${i}/tags/late`));
    await new Promise((r) => setTimeout(r, 5));
    assert.equal((await new Client(`${server.url}/v3`).delete('/delete-all-data')).status, 204);
    for (const res of await Promise.all(taggings)) assert.ok(res.status < 300 || res.status === 404, `${res.status} ${res.text}`);
    // Taggings that landed after the delete found no document: the key holds nothing tagged.
    await api.post('/documents/lonely', { text: QUERY });
    assert.deepEqual(await suggest(QUERY), []);
    assert.deepEqual(await suggest('Knead the bread dough and bake it with butter in the oven.'), []);
  });

  it('forgets everything with the key\'s data (v3 delete-all-data)', async () => {
    assert.equal((await new Client(`${server.url}/v3`).delete('/delete-all-data')).status, 204);
    await api.post('/documents/lonely', { text: QUERY });
    assert.deepEqual(await suggest(QUERY), []);
  });
});
