import assert from 'node:assert/strict';
import { Client } from '../helpers/client';
import { startServer, type RunningServer } from '../helpers/server';
import { CORPUS } from '../fixtures/corpus';
import { hashKey } from '../../src/services/keys';
import type { DashboardData } from '../../src/ops/operations';

const TOKEN = 'dashboard-secret';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('operator dashboard: /dashboard and /dashboard/data.json', function () {
  this.timeout(120_000);
  let server: RunningServer;
  let api: Client;
  /** The tenant id the server derives from the key (the key itself never appears). */
  const tenant = hashKey('dash-key').slice(0, 32);

  const data = async (): Promise<DashboardData> => {
    const res = await fetch(`${server.url}/dashboard/data.json`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    return (await res.json()) as DashboardData;
  };

  before(async () => {
    server = await startServer({ backend: 'embedded', keys: ['dash-key', 'other-key'], env: { KINDRED_ADMIN_TOKEN: TOKEN } });
    api = new Client(server.url, 'dash-key');
    for (const doc of CORPUS.slice(0, 9)) assert.equal((await api.post(`/documents/${doc.id}`, { text: doc.text })).status, 201);
    for (const user of ['ann', 'bob', 'cid']) assert.equal((await api.post(`/users/${user}`)).status, 201);
    for (const [user, doc] of [['ann', 'sport-1'], ['ann', 'tech-2'], ['bob', 'sport-1'], ['cid', 'tech-3'], ['cid', 'sport-4']]) {
      assert.ok([200, 201, 204].includes((await api.post(`/users/${user}/preferences/${doc}`)).status));
    }
    await new Client(server.url, 'other-key').post('/documents/only-one', { text: 'a single document of another key' });
  });
  after(() => server?.stop());

  it('answers 401 with a JSON message without the admin token, and the page itself to a browser', async () => {
    for (const path of ['/dashboard', '/dashboard/data.json']) {
      const attempts: Array<Record<string, string>> = [{}, { Authorization: 'Bearer wrong-secret' }, { Authorization: TOKEN }];
      for (const headers of attempts) {
        const res = await fetch(server.url + path, { headers });
        assert.equal(res.status, 401, `${path} ${JSON.stringify(headers)}`);
        assert.equal(res.headers.get('www-authenticate'), 'Bearer');
        assert.deepEqual(await res.json(), { message: 'Admin token required' });
      }
    }
    const browser = await fetch(`${server.url}/dashboard`, { headers: { Accept: 'text/html,application/xhtml+xml' } });
    assert.equal(browser.status, 401);
    const shell = await browser.text();
    assert.match(shell, /<form id="login-form"/);
    assert.doesNotMatch(shell, new RegExp(tenant), 'the page without a token holds no figures');
    assert.match(browser.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const page = await fetch(`${server.url}/dashboard`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await page.text(), /<script src="\/dashboard\/dashboard\.js" defer><\/script>/);
    const script = await fetch(`${server.url}/dashboard/dashboard.js`);
    assert.equal(script.status, 200);
    assert.match(await script.text(), /\/dashboard\/data\.json/);
  });

  it('shows per-key counts that agree with the API, by tenant id, never the key', async () => {
    const documents = Number((await api.get('/documents?per_page=1')).headers.get('total'));
    const users = Number((await api.get('/users?per_page=1')).headers.get('total'));
    let preferences = 0;
    for (const user of ['ann', 'bob', 'cid']) preferences += Number((await api.get(`/users/${user}/preferences?per_page=1`)).headers.get('total'));
    assert.deepEqual([documents, users, preferences], [9, 3, 5]);
    const d = await data();
    const row = d.keys.tenants.find((t) => t.tenant === tenant);
    assert.ok(row, `tenant ${tenant} is listed`);
    assert.deepEqual([row.documents, row.users, row.preferences], [documents, users, preferences]);
    const other = d.keys.tenants.find((t) => t.tenant === hashKey('other-key').slice(0, 32));
    assert.deepEqual([other?.documents, other?.users, other?.preferences], [1, 0, 0]);
    assert.equal(d.keys.tenants.length, 2);
    const body = JSON.stringify(d);
    assert.ok(!body.includes('dash-key') && !body.includes(hashKey('dash-key')), 'neither the key nor its full hash is shown');
    // The content index reaches every document (it is updated in batches within ~50 ms).
    await api.get('/documents/sport-1/similar');
    const indexed = (await data()).keys.tenants.find((t) => t.tenant === tenant)!.index;
    assert.equal(indexed.loaded, true);
    assert.equal(indexed.size, documents);
    assert.ok(indexed.kind === 'word-vectors' || indexed.kind === 'lsa');
    assert.ok(indexed.memoryBytes > documents * 400, `memory estimate ${indexed.memoryBytes}`);
  });

  it('counts requests per endpoint and worker tasks per kind as they happen', async () => {
    const before = await data();
    const endpoint = (d: DashboardData) => d.requests.endpoints.find((e) => e.version === 'v6' && e.method === 'GET' && e.route === '/documents/:id');
    const readsBefore = endpoint(before)?.count ?? 0;
    for (let i = 0; i < 4; i++) assert.equal((await api.get('/documents/tech-1')).status, 200);
    await api.post('/documents/similar-to-text', { text: 'a faster processor and more memory' });
    const after = await data();
    assert.equal(endpoint(after)?.count, readsBefore + 4);
    assert.equal(endpoint(after)?.total, (endpoint(before)?.total ?? 0) + 4);
    assert.ok(after.requests.total >= before.requests.total + 5);
    assert.ok(endpoint(after)!.p99Ms > 0 && endpoint(after)!.p50Ms <= endpoint(after)!.p99Ms);
    assert.equal(after.pool.threads, 1);
    const embed = after.pool.tasks.find((t) => t.kind === 'embed');
    assert.ok(embed && embed.total > (before.pool.tasks.find((t) => t.kind === 'embed')?.total ?? 0), 'embedding the text ran an embed task');
    assert.ok(embed.p99Ms > 0);
    assert.ok(after.process.rssBytes > 0 && after.process.heapUsedBytes > 0);
    assert.equal(after.jobs.schedules.find((s) => s.id === 'refit')?.expression, '30 3 * * *');
    assert.ok(Date.parse(after.jobs.schedules.find((s) => s.id === 'refit')!.nextRun!) > Date.now());
  });

  it('shows each thread\'s busy share (main, every pool thread, keyword), in /metrics too', async () => {
    // A second of queries that each run pool tasks: the pool thread's share is read once a second.
    const until = Date.now() + 1500;
    await Promise.all(Array.from({ length: 4 }, async () => {
      while (Date.now() < until) assert.equal((await api.post('/documents/similar-to-text', { text: `processor memory benchmark ${Math.random()}` })).status, 200);
    }));
    await sleep(1100);
    const d = await data();
    assert.deepEqual(d.threads.map((t) => t.name), ['main', 'pool 1', 'keyword']);
    for (const t of d.threads) assert.ok(t.busy >= 0 && t.busy <= 1, `${t.name} ${t.busy}`);
    assert.ok(d.threads.find((t) => t.name === 'pool 1')!.busy > 0, 'the pool thread worked');
    assert.ok(d.threads.find((t) => t.name === 'main')!.busy > 0, 'the main thread answered');
    const text = await (await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })).text();
    assert.match(text, /kindred_thread_busy\{thread="pool 1"\} 0\.\d*[1-9]/);
    assert.match(text, /kindred_thread_busy\{thread="keyword"\} /);
  });

  it('shows cluster models with their status, and exports task durations and job states to /metrics', async () => {
    const created = await new Client(`${server.url}/v3`, 'dash-key').post('/cluster-models', { number_clusters: 2 });
    assert.equal(created.status, 201);
    const id = created.body.id as number;
    let model;
    for (let i = 0; i < 300; i++) {
      const d = await data();
      model = d.jobs.clusterModels.find((m) => m.tenant === tenant && m.id === id);
      if (model?.status === 'trained') break;
      await sleep(200);
    }
    assert.equal(model?.status, 'trained');
    assert.equal(model?.documents, 9);
    // Stored figures are cached ~3 s, so the gauge may lag the model by that much.
    let text = '';
    for (let i = 0; i < 40; i++) {
      const res = await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      text = await res.text();
      if (/kindred_jobs\{kind="cluster-model",state="trained"\} 1/.test(text)) break;
      await sleep(250);
    }
    assert.match(text, /kindred_jobs\{kind="cluster-model",state="trained"\} 1/);
    assert.match(text, /kindred_pool_task_duration_seconds_count\{kind="kmeans",outcome="ok"\} [1-9]/);
    assert.match(text, /kindred_pool_task_duration_seconds_count\{kind="embed",outcome="ok"\} [1-9]/);
  });

  it('is off (404) when no admin token is configured', async () => {
    const plain = await startServer({ backend: 'embedded' });
    try {
      for (const path of ['/dashboard', '/dashboard/data.json', '/dashboard/dashboard.js']) {
        const res = await fetch(plain.url + path, { headers: { Authorization: 'Bearer anything' } });
        assert.equal(res.status, 404, path);
        assert.deepEqual(await res.json(), { message: 'API path not found' });
      }
    } finally {
      await plain.stop();
    }
  });
});
