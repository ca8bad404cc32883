import assert from 'node:assert/strict';
import net from 'node:net';
import { loadConfig } from '../../src/config';
import { callCost, MAX_BODY_DEPTH, nestedDeeperThan } from '../../src/http/dispatch';
import { retryAfterSeconds, TokenBucketLimiter } from '../../src/rate-limit';
import { Client } from '../helpers/client';
import { backends, startServer, type RunningServer } from '../helpers/server';

describe('token bucket limiter', () => {
  it('admits a burst, refuses the next request and refills at the rate', () => {
    const limiter = new TokenBucketLimiter({ ratePerSecond: 2, burst: 3 });
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) assert.equal(limiter.take('a', 1, t0).allowed, true);
    const refused = limiter.take('a', 1, t0);
    assert.equal(refused.allowed, false);
    assert.equal(refused.remaining, 0);
    assert.equal(refused.retryAfterMs, 500);
    assert.equal(retryAfterSeconds(refused), 1);
    assert.deepEqual(refused.headers, { 'X-RateLimit-Limit': '3', 'X-RateLimit-Remaining': '0' });
    // Another key has its own bucket.
    assert.equal(limiter.take('b', 1, t0).allowed, true);
    assert.equal(limiter.take('a', 1, t0 + 499).allowed, false);
    assert.equal(limiter.take('a', 1, t0 + 500).allowed, true);
    // A long pause refills only up to the burst.
    const later = t0 + 60_000;
    for (let i = 0; i < 3; i++) assert.equal(limiter.take('a', 1, later).allowed, true);
    assert.equal(limiter.take('a', 1, later).allowed, false);
  });

  it('charges a cost, caps it at the burst, and says how long to wait for it', () => {
    const limiter = new TokenBucketLimiter({ ratePerSecond: 0.5, burst: 5 });
    assert.equal(limiter.take('k', 3, 0).allowed, true);
    const refused = limiter.take('k', 3, 0);
    assert.equal(refused.allowed, false);
    assert.equal(refused.retryAfterMs, 2000);
    assert.equal(retryAfterSeconds(refused), 2);
    assert.equal(limiter.take('k', 1, 0).allowed, true, 'a cheaper request still fits');
    // 100 operations with a burst of 5: admitted once the bucket is full, then nothing for 10 s.
    assert.equal(limiter.take('big', 100, 0).allowed, true);
    assert.equal(limiter.take('big', 1, 0).allowed, false);
    assert.equal(limiter.take('big', 1, 2000).allowed, true);
  });

  it('holds bounded memory: full buckets are pruned and the least recently used evicted', () => {
    const limiter = new TokenBucketLimiter({ ratePerSecond: 1, burst: 2, maxKeys: 100 });
    for (let i = 0; i < 1000; i++) limiter.take(`key-${i}`, 1, i);
    assert.ok(limiter.size <= 100, `holds ${limiter.size} buckets`);
    limiter.prune(10_000_000);
    assert.equal(limiter.size, 0);
    // The most recently used keys survive an eviction with their spent tokens.
    const busy = new TokenBucketLimiter({ ratePerSecond: 0.001, burst: 1, maxKeys: 10 });
    for (let i = 0; i < 50; i++) busy.take(`key-${i}`, 1, 0);
    assert.equal(busy.size, 10);
    assert.equal(busy.take('key-49', 1, 0).allowed, false);
  });

  it('refuses nonsense settings', () => {
    assert.throws(() => new TokenBucketLimiter({ ratePerSecond: 0, burst: 1 }), RangeError);
    assert.throws(() => new TokenBucketLimiter({ ratePerSecond: 1, burst: 0.5 }), RangeError);
    assert.throws(() => loadConfig({ KINDRED_RATE_LIMIT: '-1' }), /KINDRED_RATE_LIMIT/);
    assert.throws(() => loadConfig({ KINDRED_HEADERS_TIMEOUT_MS: '5000', KINDRED_REQUEST_TIMEOUT_MS: '1000' }), /HEADERS_TIMEOUT/);
    assert.deepEqual(loadConfig({}).rateLimit, { perSecond: 0, burst: 1 });
    assert.deepEqual(loadConfig({ KINDRED_RATE_LIMIT: '10' }).rateLimit, { perSecond: 10, burst: 20 });
    assert.deepEqual(loadConfig({}).timeouts, { headersMs: 66_000, requestMs: 120_000, keepAliveMs: 65_000 });
  });

  it('counts a batch as its operations', () => {
    const ops = (n: number) => ({ ops: Array.from({ length: n }, () => ({ method: 'GET', url: '/documents' })), sequential: true });
    assert.equal(callCost({ method: 'POST', path: '/batch', body: ops(7) }), 7);
    assert.equal(callCost({ method: 'POST', path: '/batch/', body: ops(0) }), 1);
    assert.equal(callCost({ method: 'POST', path: '/batch', body: 'nonsense' }), 1);
    assert.equal(callCost({ method: 'GET', path: '/batch', body: ops(7) }), 1);
    assert.equal(callCost({ method: 'POST', path: '/documents', body: ops(7) }), 1);
  });
});

describe('per-key rate limit over the API (KINDRED_RATE_LIMIT)', function () {
  this.timeout(60_000);
  let server: RunningServer;
  const keys = ['rate-a', 'rate-b', 'rate-c', 'rate-d'];

  before(async () => {
    // 0.2 tokens/s: nothing refills noticeably while a test runs.
    server = await startServer({ backend: 'embedded', keys, env: { KINDRED_RATE_LIMIT: '0.2', KINDRED_RATE_BURST: '3' } });
  });
  after(() => server?.stop());

  it('answers 429 with Retry-After and {message} once a key has spent its burst, and only for that key', async () => {
    const a = new Client(server.url, 'rate-a');
    for (let i = 0; i < 3; i++) assert.equal((await a.get('/documents')).status, 200);
    const refused = await a.get('/v5/documents/ids');
    assert.equal(refused.status, 429);
    assert.deepEqual(refused.body, { message: 'API rate limit exceeded' });
    const retryAfter = refused.headers.get('retry-after') ?? '';
    assert.match(retryAfter, /^[1-9][0-9]*$/);
    assert.ok(Number(retryAfter) <= 5, retryAfter);
    assert.equal(refused.headers.get('x-ratelimit-limit'), '3');
    assert.equal(refused.headers.get('x-ratelimit-remaining'), '0');
    // Another key is unaffected; requests without a valid key are answered as before.
    assert.equal((await a.withKey('rate-b').get('/documents')).status, 200);
    assert.equal((await a.withKey(null).get('/documents')).status, 401);
    assert.equal((await a.withKey('nobody').get('/documents')).status, 403);
  });

  it('answers v1 in its HTML error form, with Retry-After', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await fetch(`${server.url}/v1/list/?subscription-key=rate-c`)).status, 200);
    const refused = await fetch(`${server.url}/v1/list/?subscription-key=rate-c`);
    assert.equal(refused.status, 429);
    assert.match(refused.headers.get('content-type') ?? '', /text\/html/);
    assert.equal(await refused.text(), '<html><title>429: API rate limit exceeded</title><body>429: API rate limit exceeded</body></html>');
    assert.match(refused.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
  });

  it('charges a batch its number of operations, up front: refused whole, nothing run', async () => {
    const d = new Client(server.url, 'rate-d');
    const create = (id: string) => ({ method: 'POST', url: `/documents/${id}`, params: { text: 'a small document' }, headers: { 'Subscription-Key': 'rate-d' } });
    const first = await d.post('/batch', { ops: [create('one'), create('two')], sequential: true });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body.results.map((r: { status: number }) => r.status), [201, 201]);
    const second = await d.post('/batch', { ops: [create('three'), create('four')], sequential: true });
    assert.equal(second.status, 429);
    assert.ok(Number(second.headers.get('retry-after')) >= 1);
    // One token left: a single request passes, and the refused batch created nothing.
    const ids = await d.get('/documents/ids');
    assert.equal(ids.status, 200);
    assert.deepEqual([...ids.body].sort(), ['one', 'two']);
  });
});

interface SocketOutcome {
  closedAfterMs: number;
  received: string;
}

/** Writes `chunks` one at a time every `everyMs` until the server closes the connection. */
function trickle(port: number, head: string, chunks: string[], everyMs: number): Promise<SocketOutcome> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    let i = 0;
    socket.setEncoding('utf8');
    socket.on('data', (data: string) => { received += data; });
    socket.on('error', () => { /* a reset is one way of being cut off */ });
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ closedAfterMs: Date.now() - started, received });
    });
    socket.on('connect', () => {
      if (head) socket.write(head);
      timer = setInterval(() => {
        if (i < chunks.length) socket.write(chunks[i++]);
        else {
          clearInterval(timer);
          socket.destroy();
          reject(new Error(`the server kept the connection open through the whole trickle; got ${JSON.stringify(received)}`));
        }
      }, everyMs);
    });
  });
}

describe('slow clients (headers, body and keep-alive timeouts)', function () {
  this.timeout(60_000);
  let server: RunningServer;
  let api: Client;
  const HEADERS_MS = 1000;
  const REQUEST_MS = 2000;
  const KEEP_ALIVE_MS = 500;

  before(async () => {
    server = await startServer({
      backend: 'embedded',
      env: { KINDRED_HEADERS_TIMEOUT_MS: String(HEADERS_MS), KINDRED_REQUEST_TIMEOUT_MS: String(REQUEST_MS), KINDRED_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS) },
    });
    api = new Client(server.url, 'test-key');
    assert.equal((await api.post('/documents/d1', { text: 'a document about rivers and the sea' })).status, 201);
  });
  after(() => server?.stop());

  /** Normal requests on other connections, every 100 ms, while `slow` runs: all must be answered. */
  async function whileServing<T>(slow: Promise<T>): Promise<{ outcome: T; answered: number }> {
    let done = false;
    let answered = 0;
    const traffic = (async () => {
      while (!done) {
        const res = await api.get('/documents/d1');
        assert.equal(res.status, 200);
        answered += 1;
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    try {
      return { outcome: await slow, answered };
    } finally {
      done = true;
      await traffic;
    }
  }

  it('closes a connection whose headers arrive one byte at a time, slower than allowed', async () => {
    const request = 'GET /documents/d1 HTTP/1.1\r\nHost: localhost\r\nSubscription-Key: test-key\r\nX-Padding: slowly-slowly-slowly\r\n\r\n';
    const { outcome, answered } = await whileServing(trickle(server.port, '', request.split(''), 100));
    // Cut off after the headers deadline, well before the trickle ends (~10 s); Node checks every 250 ms here.
    assert.ok(outcome.closedAfterMs >= HEADERS_MS, `closed after ${outcome.closedAfterMs} ms`);
    assert.ok(outcome.closedAfterMs < HEADERS_MS * 2 + 1000, `closed after ${outcome.closedAfterMs} ms`);
    assert.ok(outcome.received === '' || outcome.received.startsWith('HTTP/1.1 408'), outcome.received);
    assert.ok(answered >= 3, `only ${answered} normal requests were answered meanwhile`);
  });

  it('closes a connection whose body trickles in slower than the request timeout', async () => {
    const body = JSON.stringify({ text: 'x'.repeat(80) });
    const head = `POST /documents/slow HTTP/1.1\r\nHost: localhost\r\nSubscription-Key: test-key\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { outcome, answered } = await whileServing(trickle(server.port, head, body.split(''), 100));
    assert.ok(outcome.closedAfterMs >= REQUEST_MS, `closed after ${outcome.closedAfterMs} ms`);
    assert.ok(outcome.closedAfterMs < REQUEST_MS * 2 + 1000, `closed after ${outcome.closedAfterMs} ms`);
    assert.ok(outcome.received === '' || outcome.received.startsWith('HTTP/1.1 408'), outcome.received);
    assert.ok(answered >= 5, `only ${answered} normal requests were answered meanwhile`);
    assert.equal((await api.get('/documents/slow')).status, 404, 'the cut-off request must not have been stored');
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const outcome = await new Promise<SocketOutcome>((resolve) => {
      const started = Date.now();
      const socket = net.connect(server.port, '127.0.0.1', () => {
        socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n');
      });
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (data: string) => { received += data; });
      socket.on('error', () => {});
      socket.on('close', () => resolve({ closedAfterMs: Date.now() - started, received }));
    });
    assert.match(outcome.received, /^HTTP\/1.1 200/);
    assert.ok(outcome.closedAfterMs >= KEEP_ALIVE_MS * 0.9 && outcome.closedAfterMs < KEEP_ALIVE_MS + 3000, `closed after ${outcome.closedAfterMs} ms`);
  });

  it('logged no server error for the cut-off requests', () => {
    assert.deepEqual(server.lines.filter((l) => l.includes('"level":50')), []);
  });
});

/** `{"a": {"a": ... 1}}`, `levels` objects deep. */
const nested = (levels: number): unknown => JSON.parse(`${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`);

describe('body nesting depth', () => {
  it('measures depth without recursion', () => {
    assert.equal(nestedDeeperThan(nested(64), 64), false);
    assert.equal(nestedDeeperThan(nested(65), 64), true);
    assert.equal(nestedDeeperThan(JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`), 64), true);
    assert.equal(nestedDeeperThan([1, 'x', null, { a: [] }], 3), false);
    assert.equal(nestedDeeperThan([1, 'x', null, { a: [] }], 2), true);
    assert.equal(nestedDeeperThan(undefined, 1), false);
  });

  for (const backend of backends()) {
    describe(`over HTTP (${backend})`, function () {
      this.timeout(60_000);
      let server: RunningServer;
      before(async () => { server = await startServer({ backend }); });
      after(() => server?.stop());

      // Regression: a meta nested 2,000 deep overflowed the embedded store's encoder (500).
      it('refuses a body nested too deeply with 400, and stores the deepest one it accepts', async () => {
        const api = new Client(server.url, 'test-key');
        for (const levels of [2000, MAX_BODY_DEPTH]) {
          const refused = await api.post('/documents/deep', { text: 'a deep document', meta: nested(levels) });
          assert.equal(refused.status, 400, refused.text.slice(0, 200));
          assert.deepEqual(refused.body, { message: `Request body is nested deeper than ${MAX_BODY_DEPTH} levels` });
        }
        const deepest = nested(MAX_BODY_DEPTH - 1);
        const stored = await api.post('/documents/deep', { text: 'a deep document', meta: deepest });
        assert.equal(stored.status, 201, stored.text.slice(0, 200));
        assert.deepEqual((await api.get('/documents/deep')).body.meta, deepest);
        const v1 = await fetch(`${server.url}/v1/add/?subscription-key=test-key`, {
          method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ document_id: 'x', text: 'y', meta: nested(100) }),
        });
        assert.equal(v1.status, 400);
      });
    });
  }
});
