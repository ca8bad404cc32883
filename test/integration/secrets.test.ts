import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { MongoClient } from 'mongodb';
import pino from 'pino';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { batchRoute } from '../../src/http/batch';
import { apiPathNotFound } from '../../src/api/common/handlers';
import { jsonError } from '../../src/http/error-reply';
import { createApp } from '../../src/http/app';
import type { Services } from '../../src/http/dispatch';
import type { Metrics } from '../../src/http/metrics';
import type { ApiVersion } from '../../src/http/route';
import type { KeyResolver } from '../../src/services/keys';
import type { TenantApis } from '../../src/services/tenant';
import { backends, startServer, type RunningServer } from '../helpers/server';

/** Every file under `dir`, concatenated: the embedded store's on-disk bytes. */
function bytesUnder(dir: string): Buffer {
  const parts: Buffer[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) parts.push(bytesUnder(full));
    else if (entry.isFile()) parts.push(fs.readFileSync(full));
  }
  return Buffer.concat(parts);
}

const STORE_COLLECTIONS = ['api_keys', 'documents', 'tags', 'users', 'taggings', 'preferences', 'values', 'sequences', 'change_log', 'leases'];

/** Every document of every collection of the database, as JSON text. */
async function mongoDump(uri: string): Promise<string> {
  const client = await MongoClient.connect(uri);
  try {
    const db = client.db();
    const parts: string[] = [];
    // The bundled test server has no listCollections; the store's own collections are these.
    const names = await db.listCollections().toArray().then((list) => list.map((c) => c.name), () => STORE_COLLECTIONS);
    for (const name of names) {
      parts.push(JSON.stringify(await db.collection(name).find({}).toArray()));
    }
    return parts.join('\n');
  } finally {
    await client.close();
  }
}

/** Text that must never be answered to a client: stack frames or source/file paths. */
function assertNoInternals(text: string, what: string): void {
  assert.ok(!/\bat [\w.<>]+ \(|\bat (?:async )?\/|\bat node:/.test(text), `${what} carries a stack frame: ${text.slice(0, 300)}`);
  assert.ok(!/(?:\/work\/|\/src\/|\/dist\/|node_modules|\.ts:\d|\.js:\d)/.test(text), `${what} carries a file path: ${text.slice(0, 300)}`);
}

for (const backend of backends()) {
  describe(`secrets: keys stored hashed and never logged (${backend})`, function () {
    this.timeout(60_000);
    const key = `secret-${randomBytes(12).toString('hex')}`;
    const wrongKey = `wrong-${randomBytes(12).toString('hex')}`;
    let server: RunningServer;

    before(async () => {
      server = await startServer({ backend, keys: [key], env: { LOG_LEVEL: 'debug' } });
      const headers = { 'Subscription-Key': key, 'Content-Type': 'application/json' };
      const calls: Array<[string, RequestInit]> = [
        ['/documents/doc-1', { method: 'POST', headers, body: JSON.stringify({ text: 'rivers and the sea' }) }],
        ['/documents/doc-1', { headers }],
        ['/documents/missing', { headers }],
        ['/documents', { headers: { 'Subscription-Key': wrongKey } }],
        ['/documents', { method: 'POST', headers, body: '{"text": ' }],
        ['/batch', { method: 'POST', headers, body: JSON.stringify({ ops: [{ method: 'GET', url: '/documents/doc-1', headers: { 'Subscription-Key': key } }, { method: 'GET', url: '/documents', headers: { 'Subscription-Key': wrongKey } }], sequential: true }) }],
        [`/v1/list/?subscription-key=${key}`, {}],
        [`/v1/fetch/?subscription-key=${key}&document_id=missing`, {}],
        [`/v1/list/?subscription-key=${wrongKey}`, {}],
        [`/v1/nowhere/?subscription-key=${key}`, {}],
        [`/parser/?url=not-a-url`, { headers }],
        [`/no/such/path?subscription-key=${key}`, { headers }],
      ];
      for (const [url, init] of calls) await (await fetch(server.url + url, init)).text();
      await server.stop();
    });

    it('stores only the sha256 of a key, never the key', async () => {
      const hash = createHash('sha256').update(key).digest('hex');
      const stored = backend === 'mongodb' ? await mongoDump(server.mongodbUri!) : bytesUnder(server.dataDir).toString('latin1');
      assert.ok(stored.includes(hash), 'the key record was not found where the store keeps it');
      assert.ok(!stored.includes(key), 'the plaintext key is in the store');
      assert.ok(!stored.includes(wrongKey), 'a refused key was written to the store');
    });

    it('never writes a key to the log, even in query strings or failed authentication', () => {
      assert.ok(server.lines.some((l) => l.includes('/v1/list')), 'the requests were not logged at all');
      for (const line of server.lines) {
        assert.ok(!line.includes(key) && !line.includes(wrongKey), line);
      }
    });
  });
}

describe('secrets: admin surfaces and error bodies', function () {
  this.timeout(60_000);
  const token = `admin-${randomBytes(16).toString('hex')}`;
  let server: RunningServer;

  before(async () => {
    server = await startServer({ backend: 'embedded', keys: ['test-key'], env: { KINDRED_ADMIN_TOKEN: token } });
  });
  after(() => server?.stop());

  it('answers 401 on /metrics and the dashboard without the admin token, and never with a subscription key', async () => {
    const withToken = await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(withToken.status, 200);
    assert.match(await withToken.text(), /kindred_/);
    const dashboard = await fetch(`${server.url}/dashboard/data.json`, { headers: { Authorization: `Bearer ${token}` } });
    await dashboard.text();
    const paths = ['/metrics', ...(dashboard.status === 200 ? ['/dashboard', '/dashboard/data.json'] : [])];
    const refusals: Array<Record<string, string>> = [
      {},
      { Authorization: `Bearer ${token.slice(0, -1)}x` },
      { Authorization: `Bearer ${token}x` },
      { Authorization: token },
      { Authorization: `Basic ${Buffer.from(`admin:${token}`).toString('base64')}` },
      { 'Subscription-Key': 'test-key' },
    ];
    for (const url of paths) {
      for (const headers of refusals) {
        const res = await fetch(server.url + url, { headers });
        const text = await res.text();
        assert.equal(res.status, 401, `${url} with ${JSON.stringify(headers)}: ${res.status}`);
        assert.ok(!text.includes('kindred_') && !text.includes('"tenants"'), `${url} answered figures without the token`);
      }
    }
  });

  it('answers bad requests with a plain message: no stack frame, no file path', async () => {
    const headers = { 'Subscription-Key': 'test-key' };
    const json = { ...headers, 'Content-Type': 'application/json' };
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const cases: Array<[string, RequestInit]> = [
      ['/documents', { method: 'POST', headers: json, body: '{"text": ' }],
      ['/documents', { method: 'POST', headers: json, body: deep }],
      ['/documents', { method: 'POST', headers: json, body: JSON.stringify({ text: 'x', meta: JSON.parse(`${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`) }) }],
      ['/documents', { method: 'POST', headers: { ...headers, 'Content-Type': 'application/xml' }, body: '<a/>' }],
      ['/documents', { method: 'POST', headers: { ...json, 'Content-Encoding': 'gzip' }, body: 'not gzip' }],
      ['/documents', { method: 'POST', headers: { ...json, 'Content-Type': 'application/json; charset=ebcdic' }, body: '{}' }],
      ['/documents', { method: 'POST', headers: json, body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) }],
      ['/documents/%E0%A4%A', { headers }],
      ['/documents/..%2F..%2Fetc%2Fpasswd', { headers }],
      ['/documents/by-keyword', { method: 'POST', headers: json, body: JSON.stringify({ es_query: { query: { query_string: { query: '(((' } } } }) }],
      ['/documents/filtered', { method: 'POST', headers: json, body: JSON.stringify({ filter: "tagged with '" }) }],
      ['/documents?per_page=1e309', { headers }],
      ['/documents', { method: 'PATCH', headers }],
      ['/batch', { method: 'POST', headers: json, body: JSON.stringify({ ops: [{ method: 'GET', url: '/%E0%A4%A', headers }], sequential: true }) }],
      ['/v1/add/?subscription-key=test-key', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'document_id=%E0%A4%A&text=%' }],
      ['/parser/?url=http%3A%2F%2F%5B%3A%3A1', { headers }],
      ['/documents', { method: 'POST', headers: json, body: JSON.stringify({ text: 'x'.repeat(11 * 1024 * 1024) }) }],
    ];
    for (const [url, init] of cases) {
      const res = await fetch(server.url + url, init);
      const text = await res.text();
      assert.ok(res.status < 500, `case ${cases.findIndex((c) => c[1] === init)}: ${init.method ?? 'GET'} ${url}: ${res.status} ${text.slice(0, 200)}`);
      assertNoInternals(text, `${init.method ?? 'GET'} ${url}`);
    }
  });
});

describe('secrets: an internal error is answered without its details', () => {
  /** A version whose one route fails the way a bug would: an Error naming a source file, with a stack. */
  const failing: ApiVersion = {
    name: 'failing',
    keySource: 'header',
    renderError: jsonError,
    pathNotFound: apiPathNotFound,
    routes: [
      { method: 'GET', path: '/boom', handle: async () => { throw new Error('cannot read /work/main/src/secret.ts:12'); }, responses: {} },
      batchRoute(),
    ],
  };
  const lines: string[] = [];
  let base = '';
  let close: () => void = () => {};

  before(async () => {
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
    const tenants = { tenantOf: async (k: string) => (k === 'test-key' ? 'tenant-1' : null) } as unknown as KeyResolver;
    const logger = pino({ level: 'info' }, sink);
    const services = { keys: tenants, tenants: { of: () => ({}) } as unknown as TenantApis, logger } as unknown as Services;
    const app = createApp({
      services,
      logger,
      maxBodyBytes: 1024 * 1024,
      versions: [{ prefix: '', version: failing }],
      versionHosts: new Map(),
      isReady: () => true,
      metrics: {} as Metrics,
    });
    const listening = createServer(app).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => listening.once('listening', () => resolve()));
    base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    close = () => listening.close();
  });
  after(() => close());

  it('answers 500 {message} with no stack or path, and logs it without the key', async () => {
    const res = await fetch(`${base}/boom`, { headers: { 'Subscription-Key': 'test-key' } });
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { message: 'Internal server error' });
    assert.equal(res.headers.get('Kindred-Error-Code'), 'internal');
    const batch = await fetch(`${base}/batch`, {
      method: 'POST',
      headers: { 'Subscription-Key': 'test-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ ops: [{ method: 'GET', url: '/boom', headers: { 'Subscription-Key': 'test-key' } }], sequential: true }),
    });
    const text = await batch.text();
    assert.equal(batch.status, 200);
    assert.deepEqual(JSON.parse(text).results[0], {
      body: { message: 'Internal server error' },
      headers: { 'Content-Type': 'application/json', 'Kindred-Error-Code': 'internal', 'Kindred-Error-Type': 'internal', 'Kindred-Error-Link': 'docs/errors.md#internal' },
      status: 500,
    });
    assertNoInternals(text, 'the batch result');
    const logged = lines.filter((l) => l.includes('"level":50') && l.includes('/boom'));
    assert.ok(logged.some((l) => !l.includes('batch operation')), 'the internal error was not logged');
    assert.ok(logged.some((l) => l.includes('batch operation')), 'the internal error inside a batch was not logged');
    assert.ok(lines.every((l) => !l.includes('test-key')), 'a key was logged');
  });
});
