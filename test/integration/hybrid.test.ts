import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { Client } from '../helpers/client';
import { CLI_ENTRY, startServer, type RunningServer } from '../helpers/server';
import { CORPUS } from '../fixtures/corpus';

const run = promisify(execFile);
const topicOf = (id: string) => id.split('-')[0];
const TOPICS = ['sport', 'tech', 'food'] as const;

describe('hybrid recommender (use_hybrid, popular, kindred train)', function () {
  this.timeout(240_000);
  let server: RunningServer;
  let api: Client;
  const cli = (...args: string[]) => run(process.execPath, [CLI_ENTRY, ...args], {
    env: { ...process.env, KINDRED_DATA_DIR: server.dataDir, MONGODB_URI: '', KINDRED_WORKERS: '1' },
  });

  before(async () => {
    server = await startServer({ backend: 'embedded' });
    api = new Client(server.url);
    for (const doc of CORPUS) await api.post(`/documents/${doc.id}`, { text: doc.text });
    // Four fans per topic; each prefers four of their topic's five documents; sport-1 is the most liked.
    for (const [t, topic] of TOPICS.entries()) {
      for (let f = 0; f < 4; f++) {
        const user = `${topic}-fan-${f}`;
        await api.post(`/users/${user}`);
        for (let d = 1; d <= 5; d++) if (d !== f + 2) await api.post(`/users/${user}/preferences/${topic}-${d}`);
        if (t > 0) await api.post(`/users/${user}/preferences/sport-1`);
      }
    }
  });
  after(() => server?.stop());

  it('answers without a trained model, recognising nothing, with popularity', async () => {
    const similar = await api.get('/documents/sport-2/similar?use_hybrid=true&number=3');
    assert.equal(similar.status, 200);
    assert.equal(similar.body.results.length, 3);
    assert.deepEqual(similar.body.user_ids, []);
    assert.equal(similar.body.document_ids[0].id, 'sport-2');
    const popular = await api.get('/documents/popular?number=2&fields=text');
    assert.equal(popular.status, 200);
    assert.equal(popular.body.results[0].id, 'sport-1');
    assert.equal(typeof popular.body.results[0].score, 'number');
    assert.equal(typeof popular.body.results[0].text, 'string');
    assert.deepEqual([popular.body.document_ids, popular.body.user_ids], [[], []]);
    const v3 = await api.get('/v3/documents/popular?number=1');
    assert.deepEqual([v3.body.recognised, v3.body.unrecognised], [{}, {}]);
  });

  it('trains from the CLI and the running server serves the model within 10 s', async () => {
    const out = await cli('train', '--key', 'test-key', '--factors', '8', '--iterations', '5');
    assert.match(out.stdout, /training on 56 preferences of 12 users and 15 documents/);
    assert.match(out.stdout, /iteration 5\/5/);
    assert.match(out.stdout, /saved model/);
    assert.match(out.stdout, /held-out .*P@10 \d\.\d{4}/);
    const until = Date.now() + 10_000;
    let recognised = false;
    while (Date.now() < until && !recognised) {
      const res = await api.get('/users/food-fan-0/recommendations?use_hybrid=true&number=3');
      recognised = res.body.user_ids?.[0]?.recognised === true;
      if (!recognised) await new Promise((r) => setTimeout(r, 500));
    }
    assert.ok(recognised, 'the new model was not served within 10 s');
  });

  it('personalises user recommendations and leaves out what was seen unless asked', async () => {
    const res = await api.get('/users/food-fan-0/recommendations?use_hybrid=true&number=1');
    assert.deepEqual(res.body.results.map((r: { id: string }) => r.id), ['food-2']);
    assert.deepEqual(res.body.user_ids, [{ id: 'food-fan-0', recognised: true }]);
    const seen = await api.get('/users/food-fan-0/recommendations?use_hybrid=true&unseen_only=false&number=5');
    assert.ok(seen.body.results.some((r: { id: string }) => r.id === 'food-1'));
    const excluded = await api.get('/users/food-fan-0/recommendations?use_hybrid=true&number=1&exclude=food-2');
    assert.notEqual(excluded.body.results[0].id, 'food-2');
    const selected = await api.get('/users/food-fan-0/recommendations?use_hybrid=true&select_from=tech-1&select_from=tech-2');
    assert.deepEqual(selected.body.results.map((r: { id: string }) => r.id).sort(), ['tech-1', 'tech-2']);
    assert.deepEqual((await api.get('/users/ghost/recommendations?use_hybrid=true')).body, { message: "Couldn't find User" });
  });

  it('recommends similar documents by behaviour, personalised for a user', async () => {
    const res = await api.get('/documents/tech-3/similar?use_hybrid=true&number=3');
    assert.ok(res.body.results.every((r: { id: string }) => topicOf(r.id) === 'tech' || r.id === 'sport-1'), JSON.stringify(res.body.results));
    assert.deepEqual(res.body.document_ids, [{ id: 'tech-3', recognised: true }]);
    const forUser = await api.get('/documents/tech-3/similar?use_hybrid=true&user_id=tech-fan-1&number=5');
    assert.deepEqual(forUser.body.user_ids, [{ id: 'tech-fan-1', recognised: true }]);
    assert.ok(!forUser.body.results.some((r: { id: string }) => r.id === 'tech-1'), 'seen documents are left out');
    const filtered = await api.get(`/documents/tech-3/similar?use_hybrid=true&filter=${encodeURIComponent("tagged with 'x'")}`);
    assert.equal(filtered.status, 400);
    assert.match(filtered.body.message, /content-based/);
  });

  it('answers similar-to-ids with recognised and unrecognised, and v3 in its shape', async () => {
    await api.post('/users/stranger');
    const res = await api.post('/documents/similar-to-ids', { ids: ['food-1', 'food-3'], use_hybrid: true, user_id: 'stranger', number: 2 });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.recognised, { document_id: ['food-1', 'food-3'] });
    assert.deepEqual(res.body.unrecognised, { user_id: 'stranger' });
    assert.ok(res.body.results.every((r: { id: string }) => topicOf(r.id) === 'food' || r.id === 'sport-1'));
    const v3 = await api.get('/v3/documents/food-1/similar?use_hybrid=true&user_id=food-fan-2&number=2&expand_meta=true');
    assert.deepEqual(v3.body.recognised, { user_id: 'food-fan-2', document_id: 'food-1' });
    assert.deepEqual(v3.body.unrecognised, {});
    assert.deepEqual(Object.keys(v3.body.results[0]).sort(), ['id', 'meta', 'score']);
    assert.equal((await api.post('/documents/similar-to-ids', { ids: ['ghost'], use_hybrid: true })).status, 404);
  });

  it('refuses to train a key without preferences or an unknown key', async () => {
    await assert.rejects(cli('train', '--key', 'nobody'), (e: { code: number; stderr: string }) => e.code === 1 && /no such key/.test(e.stderr));
    await assert.rejects(cli('train'), (e: { code: number }) => e.code === 2);
    await assert.rejects(cli('train', '--key', 'test-key', '--factors', 'x'), (e: { stderr: string }) => /--factors needs a positive integer/.test(e.stderr));
  });
});

describe('per-key hybrid training schedule (KINDRED_TRAIN_CRON)', function () {
  this.timeout(120_000);
  let server: RunningServer;
  after(() => server?.stop());

  it('trains the scheduled key in the server and serves the model', async () => {
    const tenant = createHash('sha256').update('test-key').digest('hex').slice(0, 32);
    server = await startServer({ backend: 'embedded', env: { KINDRED_TRAIN_CRON: `${tenant}=*/2 * * * * *` } });
    const api = new Client(server.url);
    for (const doc of CORPUS.slice(0, 6)) await api.post(`/documents/${doc.id}`, { text: doc.text });
    for (const user of ['a', 'b', 'c']) {
      await api.post(`/users/${user}`);
      for (const doc of CORPUS.slice(0, 4)) await api.post(`/users/${user}/preferences/${doc.id}`);
    }
    const until = Date.now() + 30_000;
    let recognised = false;
    while (!recognised && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 1000));
      recognised = (await api.get('/users/a/recommendations?use_hybrid=true')).body.user_ids?.[0]?.recognised === true;
    }
    assert.ok(recognised, 'the scheduled training produced no served model');
  });

  it('refuses a malformed schedule at start', async () => {
    await assert.rejects(startServer({ backend: 'embedded', env: { KINDRED_TRAIN_CRON: 'not-a-tenant=* * * * *' } }), /KINDRED_TRAIN_CRON/);
  });
});
