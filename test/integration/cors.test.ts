import assert from 'node:assert/strict';
import http from 'node:http';
import { startServer, type RunningServer } from '../helpers/server';

interface Answer { status: number; headers: http.IncomingHttpHeaders; text: string }

/** A raw request, so Origin and Host are sent exactly as a browser would. */
function request(server: RunningServer, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const ORIGIN = 'http://app.example.test';
const preflight = (method = 'POST') => ({
  Origin: ORIGIN,
  'Access-Control-Request-Method': method,
  'Access-Control-Request-Headers': 'content-type,subscription-key',
});

describe('CORS: browsers may call every version directly', () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({
      backend: 'embedded',
      env: { KINDRED_VERSION_HOSTS: 'legacy.example.test=v3', KINDRED_MAX_BODY_BYTES: '2048', KINDRED_ADMIN_TOKEN: 'admin-secret' },
    });
  });
  after(() => server?.stop());

  const paths = [
    '/documents/similar-to-text', '/v6/documents/similar-to-text', '/v5/documents/similar-to-text', '/v3/documents/similar-to-text',
    '/v2/documents/similar-to-text', '/v1/recommend-by-text/?subscription-key=test-key', '/parser/?url=http%3A%2F%2Fexample.com', '/batch',
  ];

  it('answers preflights without a key: 204, the methods and the headers a client sends', async () => {
    for (const path of paths) {
      const res = await request(server, 'OPTIONS', path, preflight());
      assert.equal(res.status, 204, path);
      assert.equal(res.headers['access-control-allow-origin'], '*', path);
      const methods = String(res.headers['access-control-allow-methods']).split(',');
      for (const m of ['GET', 'POST', 'PUT', 'DELETE']) assert.ok(methods.includes(m), `${path}: ${m}`);
      const allowed = String(res.headers['access-control-allow-headers']).toLowerCase().split(',');
      assert.ok(allowed.includes('subscription-key') && allowed.includes('content-type'), path);
      assert.ok(Number(res.headers['access-control-max-age']) > 0, path);
    }
    const hosted = await request(server, 'OPTIONS', '/documents', { ...preflight('GET'), Host: 'legacy.example.test' });
    assert.equal(hosted.status, 204);
  });

  it('puts Access-Control-Allow-Origin on successes and on every kind of error', async () => {
    const key = { Origin: ORIGIN, 'Subscription-Key': 'test-key', 'Content-Type': 'application/json' };
    const cases: Array<[string, string, Record<string, string>, string | undefined, number]> = [
      ['POST', '/documents/cors-1', key, JSON.stringify({ text: 'cross-origin text' }), 201],
      ['GET', '/documents?per_page=1', key, undefined, 200],
      ['GET', '/v5/documents', { Origin: ORIGIN }, undefined, 401],
      ['GET', '/v3/documents', { Origin: ORIGIN, 'Subscription-Key': 'wrong' }, undefined, 403],
      ['GET', '/v2/nowhere', key, undefined, 404],
      ['GET', '/v1/fetch/?subscription-key=test-key&document_id=ghost', { Origin: ORIGIN }, undefined, 404],
      ['GET', '/v1/list/', { Origin: ORIGIN }, undefined, 401],
      ['POST', '/documents', key, JSON.stringify({ text: 'x'.repeat(4096) }), 413],
      ['POST', '/batch', key, JSON.stringify({ ops: [], sequential: 'maybe' }), 422],
      ['GET', '/documents', { ...key, Host: 'legacy.example.test' }, undefined, 200],
    ];
    for (const [method, path, headers, body, status] of cases) {
      const res = await request(server, method, path, headers, body);
      assert.equal(res.status, status, `${method} ${path}`);
      assert.equal(res.headers['access-control-allow-origin'], '*', `${method} ${path}`);
    }
    const listed = await request(server, 'GET', '/documents', key);
    const exposed = String(listed.headers['access-control-expose-headers']).toLowerCase().split(',');
    for (const name of ['link', 'total', 'per-page', 'retry-after']) assert.ok(exposed.includes(name), name);
  });

  it('leaves the admin surfaces same-origin', async () => {
    const metrics = await request(server, 'GET', '/metrics', { Origin: ORIGIN, Authorization: 'Bearer admin-secret' });
    assert.equal(metrics.status, 200);
    assert.equal(metrics.headers['access-control-allow-origin'], undefined);
    const pre = await request(server, 'OPTIONS', '/dashboard/data.json', preflight('GET'));
    assert.equal(pre.headers['access-control-allow-origin'], undefined);
  });
});

describe('CORS limited to listed origins (KINDRED_CORS_ORIGINS)', () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({ backend: 'embedded', env: { KINDRED_CORS_ORIGINS: 'http://one.example.test, https://two.example.test:8443' } });
  });
  after(() => server?.stop());

  it('echoes an allowed origin with Vary: Origin and names no origin to others', async () => {
    for (const origin of ['http://one.example.test', 'https://two.example.test:8443']) {
      const res = await request(server, 'OPTIONS', '/documents/similar-to-text', { ...preflight(), Origin: origin });
      assert.equal(res.headers['access-control-allow-origin'], origin);
      assert.match(String(res.headers.vary), /Origin/);
    }
    const other = await request(server, 'GET', '/documents', { Origin: 'http://evil.example.test', 'Subscription-Key': 'test-key' });
    assert.equal(other.status, 200);
    assert.equal(other.headers['access-control-allow-origin'], undefined);
  });

  it('refuses to start on a value that is not an origin', async () => {
    await assert.rejects(startServer({ backend: 'embedded', env: { KINDRED_CORS_ORIGINS: 'one.example.test/path' } }), /KINDRED_CORS_ORIGINS/);
  });
});
