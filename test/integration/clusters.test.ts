import assert from 'node:assert/strict';
import { Client } from '../helpers/client';
import { startServer, type RunningServer } from '../helpers/server';
import { CORPUS } from '../fixtures/corpus';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitTrained(api: Client, id: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get(`/cluster-models/${id}`);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    if (res.body.status === 'trained') return;
    assert.equal(res.body.status, 'training');
    if (Date.now() > deadline) throw new Error(`model ${id} still training after ${timeoutMs} ms`);
    await sleep(100);
  }
}

interface Flavour {
  name: 'v3' | 'v2';
  key: string;
  deleteStatus: number;
}

const FLAVOURS: Flavour[] = [
  { name: 'v3', key: 'v3-key', deleteStatus: 200 },
  { name: 'v2', key: 'v2-key', deleteStatus: 201 },
];

describe('cluster models (v2, v3)', function () {
  this.timeout(120_000);
  let server: RunningServer;

  before(async () => {
    server = await startServer({ backend: 'embedded', keys: FLAVOURS.map((f) => f.key) });
  });
  after(() => server?.stop());

  for (const flavour of FLAVOURS) {
    describe(flavour.name, () => {
      let api: Client;
      /** wire id (string in v3, integer in v2) → topic */
      const topicOf = new Map<string | number, string>();
      let modelId: number;

      before(async () => {
        api = new Client(`${server.url}/${flavour.name}`, flavour.key);
        for (const doc of CORPUS) {
          const res = flavour.name === 'v3' ? await api.post(`/documents/${doc.id}`, { text: doc.text }) : await api.post('/documents', { text: doc.text });
          assert.equal(res.status, 201);
          topicOf.set(res.body.id, doc.topic);
        }
      });

      it('refuses a missing or invalid number_clusters with 400', async () => {
        assert.deepEqual(await api.post('/cluster-models', {}).then((r) => [r.status, r.body]), [400, { message: 'number_clusters is missing' }]);
        for (const bad of [1, 1001, 2.5, 'three', null]) {
          const res = await api.post('/cluster-models', { number_clusters: bad });
          assert.deepEqual([res.status, res.body], [400, { message: 'number_clusters is invalid' }], String(bad));
        }
      });

      it('creates a model in training (201), which becomes trained', async () => {
        const res = await api.post('/cluster-models', { number_clusters: 3 });
        assert.equal(res.status, 201);
        assert.deepEqual(Object.keys(res.body).sort(), ['created_at', 'id', 'number_clusters', 'status']);
        assert.equal(res.body.status, 'training');
        assert.equal(res.body.number_clusters, 3);
        assert.ok(Number.isInteger(res.body.id));
        assert.match(res.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        modelId = res.body.id;
        await waitTrained(api, modelId);
        const read = await api.get(`/cluster-models/${modelId}`);
        assert.deepEqual(read.body, { ...res.body, status: 'trained' });
      });

      it('lists models with pagination headers', async () => {
        const second = await api.post('/cluster-models', { number_clusters: 2 });
        const list = await api.get('/cluster-models?per_page=1');
        assert.equal(list.status, 200);
        assert.equal(list.headers.get('total'), '2');
        assert.equal(list.body.length, 1);
        assert.equal(list.body[0].id, modelId);
        assert.match(list.headers.get('link') ?? '', /rel="next"/);
        const page2 = await api.get('/cluster-models?per_page=1&page=2');
        assert.equal(page2.body[0].id, second.body.id);
        await waitTrained(api, second.body.id);
        assert.equal((await api.delete(`/cluster-models/${second.body.id}`)).status, flavour.deleteStatus);
      });

      it('lists cluster ids from 0 and splits the corpus by topic', async () => {
        const clusters = await api.get(`/cluster-models/${modelId}/clusters`);
        assert.equal(clusters.status, 200);
        assert.deepEqual(clusters.body, [0, 1, 2]);
        const seen = new Set<string | number>();
        const topics = new Set<string>();
        for (const c of clusters.body as number[]) {
          const docs = await api.get(`/cluster-models/${modelId}/clusters/${c}/documents`);
          assert.equal(docs.status, 200);
          for (const id of docs.body as Array<string | number>) {
            assert.equal(typeof id, flavour.name === 'v2' ? 'number' : 'string');
            assert.ok(!seen.has(id), `document ${id} in two clusters`);
            seen.add(id);
          }
          const clusterTopics = new Set((docs.body as Array<string | number>).map((id) => topicOf.get(id)));
          assert.equal(clusterTopics.size, 1, `cluster ${c} mixes topics: ${JSON.stringify(docs.body)}`);
          topics.add([...clusterTopics][0]!);
        }
        assert.equal(seen.size, CORPUS.length);
        assert.equal(topics.size, 3);
      });

      it('gives each cluster its characteristic words with importance in [0, 1]', async () => {
        const docs = await api.get(`/cluster-models/${modelId}/clusters/0/documents`);
        const texts = (docs.body as Array<string | number>).map((id) => CORPUS.find((d) => topicOf.get(id) === d.topic && (flavour.name === 'v2' || d.id === id))!.text.toLowerCase());
        const words = await api.get(`/cluster-models/${modelId}/clusters/0/words`);
        assert.equal(words.status, 200);
        assert.ok(words.body.length > 0 && words.body.length <= 20);
        assert.equal(words.body[0].importance, 1);
        let previous = 1;
        for (const w of words.body as Array<{ word: string; importance: number }>) {
          assert.deepEqual(Object.keys(w).sort(), ['importance', 'word']);
          assert.ok(w.importance > 0 && w.importance <= previous, JSON.stringify(w));
          previous = w.importance;
          if (flavour.name === 'v3') {
            const containing = texts.filter((t) => new RegExp(`\\b${w.word}\\b`).test(t)).length;
            assert.ok(containing >= 2, `${w.word} occurs in ${containing} of the cluster's documents`);
          }
        }
      });

      it('draws a word cloud as SVG', async () => {
        const words = (await api.get(`/cluster-models/${modelId}/clusters/1/words`)).body as Array<{ word: string }>;
        const cloud = await api.get(`/cluster-models/${modelId}/clusters/1/word-cloud`);
        assert.equal(cloud.status, 200);
        assert.match(cloud.headers.get('content-type') ?? '', /^image\/svg\+xml/);
        assert.match(cloud.text, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
        assert.ok(cloud.text.includes(`>${words[0]!.word}</text>`));
      });

      it('answers 404 for an unknown cluster and 400 for a malformed one', async () => {
        for (const tail of ['documents', 'words', 'word-cloud']) {
          assert.deepEqual(await api.get(`/cluster-models/${modelId}/clusters/3/${tail}`).then((r) => [r.status, r.body]), [404, { message: "Couldn't find Cluster" }]);
          assert.deepEqual(await api.get(`/cluster-models/${modelId}/clusters/x/${tail}`).then((r) => [r.status, r.body]), [400, { message: 'cluster_id is invalid' }]);
        }
      });

      it('answers 404 for an unknown model and 400 for a malformed id', async () => {
        for (const path of ['/cluster-models/9999', '/cluster-models/9999/clusters', '/cluster-models/9999/clusters/0/words']) {
          assert.deepEqual(await api.get(path).then((r) => [r.status, r.body]), [404, { message: "Couldn't find DocumentClusterModel" }], path);
        }
        assert.deepEqual(await api.delete('/cluster-models/9999').then((r) => [r.status, r.body]), [404, { message: "Couldn't find DocumentClusterModel" }]);
        for (const path of ['/cluster-models/abc', '/cluster-models/1.5/clusters', '/cluster-models/0/clusters/0/documents']) {
          assert.deepEqual(await api.get(path).then((r) => [r.status, r.body]), [400, { message: 'id is invalid' }], path);
        }
        assert.deepEqual(await api.delete('/cluster-models/abc').then((r) => [r.status, r.body]), [400, { message: 'id is invalid' }]);
      });

      it('assigns documents added after training to their nearest cluster, and drops deleted ones', async () => {
        const text = 'The goalkeeper and the striker celebrated the football championship goals with the team in the stadium.';
        const added = flavour.name === 'v3' ? await api.post('/documents/sport-late', { text }) : await api.post('/documents', { text });
        assert.equal(added.status, 201);
        const sportId = [...topicOf].find(([, topic]) => topic === 'sport')![0];
        let sportCluster = -1;
        let lateCluster = -1;
        for (const c of [0, 1, 2]) {
          const docs = (await api.get(`/cluster-models/${modelId}/clusters/${c}/documents`)).body as Array<string | number>;
          if (docs.includes(sportId)) sportCluster = c;
          if (docs.includes(added.body.id)) lateCluster = c;
        }
        assert.equal(lateCluster, sportCluster);
        assert.equal((await api.delete(`/documents/${added.body.id}`)).status, flavour.name === 'v2' ? 201 : 200);
        const after = (await api.get(`/cluster-models/${modelId}/clusters/${sportCluster}/documents`)).body as Array<string | number>;
        assert.ok(!after.includes(added.body.id));
      });

      it('forms at most one cluster per document when number_clusters exceeds them', async () => {
        const res = await api.post('/cluster-models', { number_clusters: 1000 });
        assert.equal(res.status, 201);
        await waitTrained(api, res.body.id);
        const model = await api.get(`/cluster-models/${res.body.id}`);
        assert.equal(model.body.number_clusters, 1000);
        const clusters = await api.get(`/cluster-models/${res.body.id}/clusters`);
        assert.equal(clusters.body.length, CORPUS.length);
        for (const c of [0, CORPUS.length - 1]) {
          const docs = await api.get(`/cluster-models/${res.body.id}/clusters/${c}/documents`);
          assert.equal(docs.body.length, 1);
        }
      });

      it('deletes a model (the deleted model back), after which it is gone', async () => {
        const before = (await api.get(`/cluster-models/${modelId}`)).body;
        const res = await api.delete(`/cluster-models/${modelId}`);
        assert.equal(res.status, flavour.deleteStatus);
        assert.deepEqual(res.body, before);
        assert.equal((await api.get(`/cluster-models/${modelId}`)).status, 404);
        assert.equal((await api.get(`/cluster-models/${modelId}/clusters/0/words`)).status, 404);
        assert.ok(!((await api.get('/cluster-models')).body as Array<{ id: number }>).some((m) => m.id === modelId));
      });

      it('is reachable through batch', async () => {
        const res = await api.post('/batch', {
          sequential: true,
          ops: [{ method: 'POST', url: '/cluster-models', params: { number_clusters: 2 }, headers: { 'Subscription-Key': flavour.key } }],
        });
        assert.equal(res.status, 200);
        assert.equal(res.body.results[0].status, 201);
        assert.equal(res.body.results[0].body.status, 'training');
        await waitTrained(api, res.body.results[0].body.id);
      });

      it('delete-all-data removes every cluster model', async () => {
        assert.ok(((await api.get('/cluster-models')).body as unknown[]).length > 0);
        assert.equal((await api.delete('/delete-all-data')).status, 204);
        assert.deepEqual((await api.get('/cluster-models')).body, []);
      });
    });
  }

  describe('keys', () => it('keeps the two keys\' models apart', async () => {
    const v3 = new Client(`${server.url}/v3`, 'v3-key');
    const v2 = new Client(`${server.url}/v2`, 'v2-key');
    await v3.post('/documents/one', { text: CORPUS[0]!.text });
    await v3.post('/documents/two', { text: CORPUS[5]!.text });
    const created = await v3.post('/cluster-models', { number_clusters: 2 });
    assert.equal((await v2.get(`/cluster-models/${created.body.id}`)).status, 404);
    await waitTrained(v3, created.body.id);
  }));
});

/** Documents of three topics, each made of random draws from a topic vocabulary plus common words. */
function syntheticCorpus(count: number): Array<{ id: string; text: string }> {
  const topics = [
    'football goal striker league match stadium coach referee penalty tournament season player team score'.split(' '),
    'processor memory compiler software database server network kernel driver laptop program code cloud'.split(' '),
    'recipe oven flour butter garlic tomato pasta sauce dinner bake roast cheese onion chicken sugar'.split(' '),
  ];
  const common = 'the a and with for of in on this that was very after before new good'.split(' ');
  let state = 7;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  return Array.from({ length: count }, (_, i) => {
    const vocabulary = topics[i % 3]!;
    const words = Array.from({ length: 40 }, (_, j) => (j % 3 === 0 ? common : vocabulary)[Math.floor(random() * (j % 3 === 0 ? common : vocabulary).length)]);
    return { id: `gen-${i}`, text: words.join(' ') };
  });
}

describe('cluster training across a restart', function () {
  this.timeout(300_000);
  let server: RunningServer | undefined;
  after(() => server?.stop());

  it('reruns a training interrupted by kill -9 after the restart', async () => {
    server = await startServer({ backend: 'embedded' });
    let api = new Client(`${server.url}/v3`);
    const docs = syntheticCorpus(3000);
    for (let i = 0; i < docs.length; i += 100) {
      const res = await api.post('/batch', {
        sequential: true,
        ops: docs.slice(i, i + 100).map((d) => ({ method: 'POST', url: `/documents/${d.id}`, params: { text: d.text }, headers: { 'Subscription-Key': 'test-key' } })),
      });
      assert.equal(res.status, 200);
    }
    const created = await api.post('/cluster-models', { number_clusters: 60 });
    assert.equal(created.status, 201);
    assert.equal(created.body.status, 'training');
    const early = await api.get(`/cluster-models/${created.body.id}/clusters`);
    assert.deepEqual([early.status, early.body], [409, { message: 'DocumentClusterModel is still training' }]);
    await server.kill();

    server = await startServer({ backend: 'embedded', dataDir: server.dataDir });
    api = new Client(`${server.url}/v3`);
    await waitTrained(api, created.body.id, 240_000);
    assert.ok(server.lines.some((line) => line.includes('resuming unfinished job')), 'the restarted server did not resume the job');
    const clusters = await api.get(`/cluster-models/${created.body.id}/clusters`);
    assert.equal(clusters.body.length, 60);
    let total = 0;
    for (const c of clusters.body as number[]) total += ((await api.get(`/cluster-models/${created.body.id}/clusters/${c}/documents`)).body as unknown[]).length;
    assert.equal(total, docs.length);
  });
});
