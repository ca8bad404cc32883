import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { startServer, type RunningServer } from '../helpers/server';

const CHROMIUM = '/usr/bin/chromium';

/** What the page's script reports: the status and body it read, or the error fetch threw. */
interface Outcome { status?: number; total?: string | null; body?: unknown; error?: string }

/** A page of another origin whose script calls Kindred with a key header and a JSON body (a preflighted request). */
function pageServer(): Promise<http.Server> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>client</title><p>a browser client of Kindred</p>');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('CORS in a real browser (Debian chromium)', function () {
  this.timeout(120_000);
  let pages: http.Server;
  let pagePort: number;
  let kindred: RunningServer;
  let browser: Browser;

  before(async () => {
    pages = await pageServer();
    pagePort = (pages.address() as AddressInfo).port;
    // Only the page served as 127.0.0.1 may call; the same page served as localhost is another origin.
    kindred = await startServer({ backend: 'embedded', env: { KINDRED_CORS_ORIGINS: `http://127.0.0.1:${pagePort}` } });
    browser = await chromium.launch({
      executablePath: CHROMIUM, headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
  });
  after(async () => {
    await browser?.close();
    await kindred?.stop();
    pages?.close();
  });

  /** Runs a cross-origin fetch from a page of `origin`, counting the preflights the browser sent (seen through DevTools). */
  async function callFrom(origin: string, path: string, init: { method: string; body?: unknown }): Promise<{ outcome: Outcome; preflights: number }> {
    const page = await browser.newPage();
    const devtools = await page.context().newCDPSession(page);
    await devtools.send('Network.enable');
    let preflights = 0;
    devtools.on('Network.requestWillBeSent', (event) => {
      if (event.request.method === 'OPTIONS' && event.request.url.startsWith(kindred.url)) preflights++;
    });
    await page.goto(`${origin}/`);
    const outcome = await page.evaluate(async ({ url, method, body }) => {
      try {
        const res = await fetch(url, {
          method,
          headers: { 'Content-Type': 'application/json', 'Subscription-Key': 'test-key' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, total: res.headers.get('Total'), body: await res.json() as unknown };
      } catch (error) {
        return { error: String(error) };
      }
    }, { url: kindred.url + path, method: init.method, body: init.body });
    await page.close();
    return { outcome, preflights };
  }

  it('lets an allowed origin create, list and recommend, each after a preflight', async () => {
    const origin = `http://127.0.0.1:${pagePort}`;
    const text = 'The goalkeeper saved a penalty in the last minute of the football final at the stadium.';
    const created = await callFrom(origin, '/documents/from-browser', { method: 'POST', body: { text } });
    assert.equal(created.outcome.status, 201, JSON.stringify(created.outcome));
    assert.ok(created.preflights >= 1, 'the browser sent a preflight');
    const listed = await callFrom(origin, '/documents?per_page=1', { method: 'GET' });
    assert.equal(listed.outcome.status, 200);
    assert.equal(listed.outcome.total, '1', 'the exposed Total header is readable');
    const similar = await callFrom(origin, '/v5/documents/similar-to-text', { method: 'POST', body: { text } });
    assert.equal(similar.outcome.status, 200, JSON.stringify(similar.outcome));
    assert.ok(Array.isArray(similar.outcome.body));
    const error = await callFrom(origin, '/documents/ghost', { method: 'GET' });
    assert.equal(error.outcome.status, 404, 'an error answer is readable too');
    assert.deepEqual(error.outcome.body, { message: "Couldn't find Document" });
  });

  it('refuses an origin that is not listed', async () => {
    const refused = await callFrom(`http://localhost:${pagePort}`, '/documents/similar-to-text', { method: 'POST', body: { text: 'anything' } });
    assert.equal(refused.outcome.status, undefined);
    assert.match(refused.outcome.error ?? '', /Failed to fetch/);
  });
});
