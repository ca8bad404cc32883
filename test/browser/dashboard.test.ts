import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Client } from '../helpers/client';
import { startServer, type RunningServer } from '../helpers/server';
import { CORPUS } from '../fixtures/corpus';
import { hashKey } from '../../src/services/keys';
import type { DashboardData } from '../../src/ops/operations';

const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 'browser-admin-secret';
const KEY = 'browser-key';
const REPO = path.join(__dirname, '..', '..', '..');
/** DASHBOARD_SCREENSHOT=1 (npm run dashboard:screenshot): 200 real posts, a minute of traffic, docs/dashboard.png. */
const FOR_DOCS = process.env.DASHBOARD_SCREENSHOT === '1';
const SCREENSHOT = FOR_DOCS ? path.join(REPO, 'docs', 'dashboard.png') : path.join(os.tmpdir(), 'kindred-dashboard.png');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Post { id: string; label: string; text: string }

function newsgroupPosts(count: number): Post[] {
  const file = '/work/shared/data/20newsgroups/20newsgroups-bydate-test.jsonl.gz';
  const all = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').trim().split('\n').map((line) => JSON.parse(line) as Post);
  // An even spread over the groups: every k-th post.
  const step = Math.floor(all.length / count);
  return Array.from({ length: count }, (_, i) => all[i * step]!);
}

/** Documents, users and preferences: the small fixture corpus, or 200 newsgroup posts for the docs. */
async function load(api: Client): Promise<void> {
  const docs = FOR_DOCS
    ? newsgroupPosts(200).map((p, i) => ({ id: `ng-${i}`, group: p.label, text: p.text.slice(0, 4000) }))
    : CORPUS.map((d) => ({ id: d.id, group: d.topic, text: d.text }));
  for (const doc of docs) assert.equal((await api.post(`/documents/${doc.id}`, { text: doc.text, meta: { group: doc.group } })).status, 201);
  const groups = [...new Set(docs.map((d) => d.group))];
  const users = FOR_DOCS ? 60 : 4;
  for (let u = 0; u < users; u++) {
    assert.equal((await api.post(`/users/user-${u}`)).status, 201);
    // Each user prefers documents of two groups.
    const liked = docs.filter((d) => d.group === groups[u % groups.length] || d.group === groups[(u * 7 + 3) % groups.length]);
    for (const doc of liked.slice(0, FOR_DOCS ? 12 : 3)) assert.ok([200, 201, 204].includes((await api.post(`/users/user-${u}/preferences/${doc.id}`)).status));
  }
}

/** A varied request mix, its rate rising and falling so the plots have shape. */
async function traffic(api: Client, seconds: number): Promise<void> {
  const ids = FOR_DOCS ? Array.from({ length: 200 }, (_, i) => `ng-${i}`) : CORPUS.map((d) => d.id);
  const started = Date.now();
  let i = 0;
  while (Date.now() - started < seconds * 1000) {
    const phase = (Date.now() - started) / 1000;
    const burst = 2 + Math.round(6 * (1 + Math.sin(phase / 4)));
    await Promise.all(Array.from({ length: burst }, () => {
      const id = ids[i++ % ids.length]!;
      switch (i % 6) {
        case 0: return api.get(`/documents/${id}/similar`);
        case 1: return api.post('/documents/by-keyword', { es_query: { query: { match: { text: 'computer graphics' } } } });
        case 2: return api.post('/documents/similar-to-text', { text: 'space shuttle launch and orbit' });
        case 3: return api.get(`/users/user-${i % 4}/recommendations`);
        default: return api.get(`/documents/${id}`);
      }
    }));
    await sleep(150);
  }
}

describe('operator dashboard in a real browser (Debian chromium)', function () {
  this.timeout(FOR_DOCS ? 600_000 : 120_000);
  let server: RunningServer;
  let api: Client;
  let browser: Browser;
  let page: Page;
  const tenant = hashKey(KEY).slice(0, 32);

  const data = async (): Promise<DashboardData> =>
    (await (await fetch(`${server.url}/dashboard/data.json`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json()) as DashboardData;

  before(async () => {
    assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`);
    server = await startServer({
      backend: 'embedded', keys: [KEY],
      // A training schedule for the key, so the jobs table has a run to show (every 20 s for the docs run).
      env: { KINDRED_ADMIN_TOKEN: TOKEN, ...(FOR_DOCS ? { KINDRED_TRAIN_CRON: `${tenant}=*/20 * * * * *`, KINDRED_WORKERS: '2' } : {}) },
    });
    api = new Client(server.url, KEY);
    await load(api);
    if (FOR_DOCS) {
      await new Client(`${server.url}/v3`, KEY).post('/cluster-models', { number_clusters: 20 });
      await traffic(api, 10);
    } else {
      await api.get(`/documents/${CORPUS[0]!.id}/similar`);
    }
    browser = await chromium.launch({
      executablePath: CHROMIUM, headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
    page = await browser.newPage({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('asks for the admin token, then shows figures that agree with the API', async () => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const response = await page.goto(`${server.url}/dashboard`);
    assert.equal(response?.status(), 401, 'the page load carries no token');
    await page.waitForSelector('#login:not([hidden])');
    await page.fill('#token', 'not-the-token');
    await page.click('#login button[type=submit]');
    await page.waitForFunction(() => document.getElementById('login-error')?.textContent === 'The server refused that token.');
    await page.fill('#token', TOKEN);
    await page.click('#login button[type=submit]');
    await page.waitForFunction(() => Number(document.body.dataset.polls) >= 1);
    assert.equal(await page.isHidden('#login'), true);

    const total = Number((await api.get('/documents?per_page=1')).headers.get('total'));
    const shownDocuments = await page.textContent(`tr[data-tenant="${tenant}"] [data-field="documents"]`);
    assert.equal(Number(shownDocuments?.replace(/,/g, '')), total);
    const users = Number((await api.get('/users?per_page=1')).headers.get('total'));
    assert.equal(users, FOR_DOCS ? 60 : 4);
    assert.equal(Number((await page.textContent(`tr[data-tenant="${tenant}"] [data-field="users"]`))?.replace(/,/g, '')), users);
    const figures = await data();
    assert.equal(await page.textContent('#pool-threads'), String(figures.pool.threads));
    assert.equal(figures.pool.threads, FOR_DOCS ? 2 : 1);
    assert.ok(await page.isVisible('tr[data-kind="embed"]'), 'the embed task kind is listed');
    assert.equal(await page.getAttribute('#status', 'class'), 'pill live');
    assert.deepEqual(errors, []);
  });

  it('redraws the plots at the next poll', async () => {
    const polls = Number(await page.getAttribute('body', 'data-polls'));
    const plot = await page.getAttribute('#spark-heap path.line', 'd');
    assert.match(plot ?? '', /^M[\d.]+,[\d.]+/);
    await page.waitForFunction((n) => Number(document.body.dataset.polls) >= n + 1, polls, { timeout: 10_000 });
    await page.waitForFunction((before) => document.querySelector('#spark-heap path.line')?.getAttribute('d') !== before, plot, { timeout: 10_000 });
    const after = await page.getAttribute('#spark-heap path.line', 'd');
    assert.notEqual(after, plot);
    // More readings, so at least as many points as before.
    assert.ok((after ?? '').split('L').length >= (plot ?? '').split('L').length);
  });

  it('keeps the token for the tab (session storage) across a reload', async () => {
    await page.reload();
    await page.waitForFunction(() => Number(document.body.dataset.polls) >= 1);
    assert.equal(await page.isHidden('#login'), true);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('kindred-admin-token')), TOKEN);
  });

  it('saves a screenshot', async () => {
    if (FOR_DOCS) {
      await traffic(api, 60);
      await page.waitForFunction(() => document.querySelector('#schedules')?.textContent?.includes('succeeded'), null, { timeout: 60_000 });
    }
    const polls = Number(await page.getAttribute('body', 'data-polls'));
    await page.waitForFunction((n) => Number(document.body.dataset.polls) > n, polls);
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    assert.ok(fs.statSync(SCREENSHOT).size > 10_000);
  });
});
