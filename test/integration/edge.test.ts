import assert from 'node:assert/strict';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { startServer, type RunningServer } from '../helpers/server';

/** A raw request: fetch cannot set the Host header. */
function request(server: RunningServer, options: { method: string; path: string; headers?: Record<string, string>; body?: Buffer | string }): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, method: options.method, path: options.path, headers: { 'Subscription-Key': 'test-key', ...options.headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The API's calls reach their version's dispatcher from Node's request (src/http/edge.ts); these are its edges. */
describe('HTTP edge', () => {
  let server: RunningServer;

  before(async () => {
    server = await startServer({ backend: 'embedded', env: { KINDRED_VERSION_HOSTS: 'old.example.test=v3', KINDRED_MAX_BODY_BYTES: '4096' } });
    const created = await request(server, { method: 'POST', path: '/documents/edge-doc', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: 'a document about the edge' }) });
    assert.equal(created.status, 201, created.text);
  });
  after(() => server?.stop());

  it('selects a version by prefix in any case, by host, and serves the root version elsewhere', async () => {
    const v5 = await request(server, { method: 'GET', path: '/V5/documents/edge-doc' });
    assert.equal(v5.status, 200);
    assert.equal(JSON.parse(v5.text).published_at, undefined, 'v5 shows no published_at');
    const byHost = await request(server, { method: 'GET', path: '/documents/edge-doc', headers: { Host: 'OLD.example.test:8080' } });
    assert.equal(byHost.status, 200);
    assert.equal(JSON.parse(byHost.text).published_at, undefined, 'the host selects v3');
    const root = await request(server, { method: 'GET', path: '/documents/edge-doc?fields=published_at' });
    assert.equal(root.status, 200);
    assert.ok('published_at' in JSON.parse(root.text), 'the root serves v6');
    // An absolute-form URL (as a proxy sends it) is routed by its path.
    const absolute = await request(server, { method: 'GET', path: `http://127.0.0.1:${server.port}/v5/documents/edge-doc` });
    assert.equal(absolute.status, 200, absolute.text);
    // A prefix is a whole segment: /v5x is a v6 path, not found.
    const notPrefix = await request(server, { method: 'GET', path: '/v5x/documents/edge-doc' });
    assert.equal(notPrefix.status, 404);
    assert.deepEqual(JSON.parse(notPrefix.text), { message: 'API path not found' });
  });

  it('leaves GET and HEAD of the operator paths to them, and any other method to the API', async () => {
    const health = await request(server, { method: 'GET', path: '/healthz/' });
    assert.equal(health.status, 200);
    assert.equal(JSON.parse(health.text).status, 'ok');
    const posted = await request(server, { method: 'POST', path: '/healthz', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    assert.equal(posted.status, 404);
    assert.deepEqual(JSON.parse(posted.text), { message: 'API path not found' });
    for (const answer of [health, posted]) assert.ok(answer.headers['kindred-node'], 'every answer names its node');
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const head = await request(server, { method: 'HEAD', path: '/documents/edge-doc' });
    const get = await request(server, { method: 'GET', path: '/documents/edge-doc' });
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers['content-length'], get.headers['content-length']);
    assert.match(String(head.headers['content-type']), /^application\/json/);
  });

  it('reads gzip bodies, refuses bodies over the limit and unreadable ones with a 4xx {message}', async () => {
    const zipped = await request(server, {
      method: 'POST', path: '/documents/zipped', headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ text: 'sent compressed' })),
    });
    assert.equal(zipped.status, 201, zipped.text);
    assert.equal(JSON.parse((await request(server, { method: 'GET', path: '/documents/zipped' })).text).text, 'sent compressed');
    const large = await request(server, { method: 'POST', path: '/documents/large', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: 'x'.repeat(10_000) }) });
    assert.equal(large.status, 413);
    assert.deepEqual(JSON.parse(large.text), { message: 'Request body is too large' });
    const garbled = await request(server, { method: 'POST', path: '/documents/garbled', headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, body: 'not gzip' });
    assert.equal(garbled.status, 400);
    assert.equal(typeof JSON.parse(garbled.text).message, 'string');
    const badJson = await request(server, { method: 'POST', path: '/documents/bad', headers: { 'Content-Type': 'application/json' }, body: '{"text":' });
    assert.equal(badJson.status, 400);
    assert.deepEqual(JSON.parse(badJson.text), { message: 'body is not valid JSON' });
  });

  it('parses repeated and bracketed query parameters as lists', async () => {
    for (const id of ['edge-two', 'edge-three', 'edge-four']) {
      const made = await request(server, { method: 'POST', path: `/documents/${id}`, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: `another document about the edge, ${id}` }) });
      assert.equal(made.status, 201, made.text);
    }
    const similar = await request(server, { method: 'GET', path: '/documents/edge-doc/similar?select_from[]=edge-two&select_from=edge-three' });
    assert.equal(similar.status, 200, similar.text);
    const ids = (JSON.parse(similar.text) as Array<{ id: string }>).map((hit) => hit.id).sort();
    assert.deepEqual(ids, ['edge-three', 'edge-two']);
  });
});
