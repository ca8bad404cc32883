import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { fetchArticlePage, type FetchOptions, type HostLookup } from '../../../src/parser/fetch';
import { ParserError } from '../../../src/parser/errors';
import { httpErrorOf } from '../../../src/http/error-reply';
import { html, startServer, type TestServer } from './server';

const PAGE = '<!doctype html><html><head><title>Hello</title></head><body><p>Hello world</p></body></html>';

async function rejectsWith(promise: Promise<unknown>, message: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ParserError, `expected ParserError, got ${String(error)}`);
    assert.equal(httpErrorOf(error).status, 400);
    assert.equal(error.message, message);
    return true;
  });
}

const fixed =
  (...addresses: string[]): HostLookup =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('parser: fetchArticlePage', function () {
  let server: TestServer;
  const local: FetchOptions = { allowPrivate: true };

  before(async () => {
    server = await startServer();
    server.route('/page', (_req, res) => html(res, PAGE));
    server.route('/xhtml', (_req, res) => html(res, PAGE, { 'content-type': 'application/xhtml+xml' }));
    server.route('/pdf', (_req, res) => html(res, '%PDF-1.4', { 'content-type': 'application/pdf' }));
    server.route('/json', (_req, res) => html(res, '{}', { 'content-type': 'application/json; charset=utf-8' }));
    server.route('/untyped-html', (_req, res) => {
      res.writeHead(200);
      res.end(PAGE);
    });
    server.route('/untyped-binary', (_req, res) => {
      res.writeHead(200);
      res.end(Buffer.from([0, 1, 2, 3]));
    });
    server.route('/500', (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('oops');
    });
    server.route('/410', (_req, res) => {
      res.writeHead(410, { 'content-type': 'text/html' });
      res.end('gone');
    });
    for (let i = 1; i <= 8; i++) {
      server.route(`/hop${i}`, (_req, res) => {
        res.writeHead(302, { location: i === 1 ? '/page' : `/hop${i - 1}` });
        res.end();
      });
    }
    server.route('/relative-redirect', (_req, res) => {
      res.writeHead(301, { location: 'page' });
      res.end();
    });
    server.route('/redirect-no-location', (_req, res) => {
      res.writeHead(302);
      res.end();
    });
    server.route('/redirect-ftp', (_req, res) => {
      res.writeHead(302, { location: 'ftp://example.com/file' });
      res.end();
    });
    server.route('/redirect-loopback', (_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${server.port}/page` });
      res.end();
    });
    server.route('/redirect-private-name', (_req, res) => {
      res.writeHead(307, { location: `http://intranet.test:${server.port}/page` });
      res.end();
    });
    server.route('/big-declared', (_req, res) => html(res, Buffer.alloc(2048, 0x61)));
    server.route('/big-streamed', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      let sent = 0;
      const timer = setInterval(() => {
        if (res.destroyed || sent > 10_000) {
          clearInterval(timer);
          res.end();
          return;
        }
        res.write(Buffer.alloc(512, 0x62));
        sent += 512;
      }, 1);
    });
    server.route('/gzip-bomb', (_req, res) => html(res, zlib.gzipSync(Buffer.alloc(1_000_000, 0x20)), { 'content-encoding': 'gzip' }));
    server.route('/slow-headers', (_req, res) => {
      setTimeout(() => html(res, PAGE), 2000);
    });
    server.route('/slow-body', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><body>');
      setTimeout(() => res.end('</body></html>'), 2000);
    });
    server.route('/cp1252', (_req, res) =>
      html(res, Buffer.from('<html><body><p>caf\xe9 \x93quoted\x94 \x80 na\xefve</p></body></html>', 'latin1'), {
        'content-type': 'text/html; charset=windows-1252',
      }),
    );
    server.route('/latin1-meta', (_req, res) =>
      html(res, Buffer.from('<html><head><meta charset="iso-8859-1"></head><body><p>Gr\xfc\xdfe aus K\xf6ln</p></body></html>', 'latin1'), {
        'content-type': 'text/html',
      }),
    );
    server.route('/http-equiv', (_req, res) =>
      html(
        res,
        Buffer.from(
          '<html><head><meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-15"></head><body><p>prix: 5 \xa4</p></body></html>',
          'latin1',
        ),
        { 'content-type': 'text/html' },
      ),
    );
    server.route('/shift-jis', (_req, res) =>
      // 日本 in Shift_JIS
      html(res, Buffer.concat([Buffer.from('<html><body><p>'), Buffer.from([0x93, 0xfa, 0x96, 0x7b]), Buffer.from('</p></body></html>')]), {
        'content-type': 'text/html; charset=Shift_JIS',
      }),
    );
    server.route('/utf8-default', (_req, res) => html(res, Buffer.from('<html><body><p>naïve – ok</p></body></html>', 'utf8'), { 'content-type': 'text/html' }));
    server.route('/unknown-charset', (_req, res) =>
      html(res, Buffer.from('<html><body><p>naïve</p></body></html>', 'utf8'), { 'content-type': 'text/html; charset=klingon' }),
    );
    server.route('/gzip', (_req, res) => html(res, zlib.gzipSync(Buffer.from(PAGE)), { 'content-encoding': 'gzip' }));
    server.route('/br', (_req, res) => html(res, zlib.brotliCompressSync(Buffer.from(PAGE)), { 'content-encoding': 'br' }));
    server.route('/deflate', (_req, res) => html(res, zlib.deflateSync(Buffer.from(PAGE)), { 'content-encoding': 'deflate' }));
    server.route('/accept-encoding', (req, res) => html(res, `<html><body>${req.headers['accept-encoding'] ?? ''}</body></html>`));
  });
  after(() => server.close());

  describe('URL validation', () => {
    for (const missing of [undefined, null, '', '   ', 42]) {
      it(`refuses ${JSON.stringify(missing)} as missing`, () => rejectsWith(fetchArticlePage(missing, local), 'url is missing, url is empty'));
    }
    for (const bad of ['not a url', 'ftp://example.com/a', 'javascript:alert(1)', 'file:///etc/passwd', 'http://', 'data:text/html,hi']) {
      it(`refuses ${bad} as unparsable`, () => rejectsWith(fetchArticlePage(bad, local), 'Unable to parse the URL provided'));
    }
  });

  describe('responses', () => {
    it('fetches an HTML page', async () => {
      const page = await fetchArticlePage(`${server.origin}/page`, local);
      assert.equal(page.html, PAGE);
      assert.equal(page.url, `${server.origin}/page`);
      assert.equal(page.status, 200);
      assert.equal(page.contentType, 'text/html');
    });
    it('accepts application/xhtml+xml', async () => {
      assert.equal((await fetchArticlePage(`${server.origin}/xhtml`, local)).contentType, 'application/xhtml+xml');
    });
    it('refuses other content types', async () => {
      await rejectsWith(fetchArticlePage(`${server.origin}/pdf`, local), 'Content-Type application/pdf is not supported');
      await rejectsWith(fetchArticlePage(`${server.origin}/json`, local), 'Content-Type application/json is not supported');
    });
    it('sniffs a missing content type', async () => {
      assert.equal((await fetchArticlePage(`${server.origin}/untyped-html`, local)).html, PAGE);
      await rejectsWith(fetchArticlePage(`${server.origin}/untyped-binary`, local), 'Content-Type (none) is not supported');
    });
    it('reports error statuses', async () => {
      await rejectsWith(fetchArticlePage(`${server.origin}/missing`, local), 'URL responded with a 404 status code');
      await rejectsWith(fetchArticlePage(`${server.origin}/500`, local), 'URL responded with a 500 status code');
      await rejectsWith(fetchArticlePage(`${server.origin}/410`, local), 'URL responded with a 410 status code');
    });
    it('turns a refused connection into an HTTP response error', async () => {
      const gone = await startServer();
      const origin = gone.origin;
      await gone.close();
      await rejectsWith(fetchArticlePage(`${origin}/page`, local), 'HTTP response error');
    });
    it('turns a DNS failure into an HTTP response error', async () => {
      const failing: HostLookup = async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      };
      await rejectsWith(fetchArticlePage('http://no-such-host.test/', { lookup: failing }), 'HTTP response error');
    });
  });

  describe('redirects', () => {
    it('follows redirects by hand and reports every hop', async () => {
      const page = await fetchArticlePage(`${server.origin}/hop3`, local);
      assert.equal(page.url, `${server.origin}/page`);
      assert.deepEqual(page.hops, ['/hop3', '/hop2', '/hop1', '/page'].map((p) => server.origin + p));
    });
    it('follows exactly five redirects', async () => {
      assert.equal((await fetchArticlePage(`${server.origin}/hop5`, local)).hops.length, 6);
    });
    it('refuses a sixth redirect', async () => {
      await rejectsWith(fetchArticlePage(`${server.origin}/hop6`, local), 'HTTP response error');
      await rejectsWith(fetchArticlePage(`${server.origin}/hop8`, local), 'HTTP response error');
    });
    it('resolves a relative Location', async () => {
      assert.equal((await fetchArticlePage(`${server.origin}/relative-redirect`, local)).url, `${server.origin}/page`);
    });
    it('refuses a redirect without Location or to another scheme', async () => {
      await rejectsWith(fetchArticlePage(`${server.origin}/redirect-no-location`, local), 'URL responded with a 302 status code');
      await rejectsWith(fetchArticlePage(`${server.origin}/redirect-ftp`, local), 'Unable to parse the URL provided');
    });
  });

  describe('limits', () => {
    it('refuses a declared body over the cap before reading it', async () => {
      await rejectsWith(fetchArticlePage(`${server.origin}/big-declared`, { ...local, maxBytes: 1024 }), 'Content at URL is too large');
      assert.equal((await fetchArticlePage(`${server.origin}/big-declared`, { ...local, maxBytes: 4096 })).html.length, 2048);
    });
    it('aborts a streamed body once it passes the cap', async () => {
      await rejectsWith(fetchArticlePage(`${server.origin}/big-streamed`, { ...local, maxBytes: 4096 }), 'Content at URL is too large');
    });
    it('caps the decompressed size (gzip bomb)', async () => {
      await rejectsWith(fetchArticlePage(`${server.origin}/gzip-bomb`, { ...local, maxBytes: 100_000 }), 'Content at URL is too large');
    });
    it('times out waiting for headers', async () => {
      const started = Date.now();
      await rejectsWith(fetchArticlePage(`${server.origin}/slow-headers`, { ...local, timeoutMs: 300 }), 'HTTP response error');
      assert.ok(Date.now() - started < 1900, 'gave up before the server answered');
    });
    it('times out waiting for the rest of the body', async () => {
      await rejectsWith(fetchArticlePage(`${server.origin}/slow-body`, { ...local, timeoutMs: 300 }), 'HTTP response error');
    });
  });

  describe('charset and encoding', () => {
    it('decodes windows-1252 from the Content-Type header', async () => {
      const page = await fetchArticlePage(`${server.origin}/cp1252`, local);
      assert.equal(page.charset, 'windows-1252');
      assert.match(page.html, /café “quoted” € naïve/);
    });
    it('decodes iso-8859-1 from <meta charset>', async () => {
      const page = await fetchArticlePage(`${server.origin}/latin1-meta`, local);
      assert.equal(page.charset, 'windows-1252'); // the WHATWG label mapping for iso-8859-1
      assert.match(page.html, /Grüße aus Köln/);
    });
    it('decodes iso-8859-15 from <meta http-equiv>', async () => {
      const page = await fetchArticlePage(`${server.origin}/http-equiv`, local);
      assert.equal(page.charset, 'iso-8859-15');
      assert.match(page.html, /prix: 5 €/);
    });
    it('decodes Shift_JIS', async () => {
      assert.match((await fetchArticlePage(`${server.origin}/shift-jis`, local)).html, /日本/);
    });
    it('defaults to utf-8, also for an unknown label', async () => {
      assert.match((await fetchArticlePage(`${server.origin}/utf8-default`, local)).html, /naïve – ok/);
      const unknown = await fetchArticlePage(`${server.origin}/unknown-charset`, local);
      assert.equal(unknown.charset, 'utf-8');
      assert.match(unknown.html, /naïve/);
    });
    for (const encoding of ['gzip', 'br', 'deflate']) {
      it(`decompresses ${encoding}`, async () => assert.equal((await fetchArticlePage(`${server.origin}/${encoding}`, local)).html, PAGE));
    }
    it('asks for compressed bodies', async () => {
      const page = await fetchArticlePage(`${server.origin}/accept-encoding`, local);
      assert.match(page.html, /gzip/);
      assert.match(page.html, /br/);
    });
  });

  describe('SSRF protection', () => {
    const refused = 'URL resolves to a private or reserved address';
    const publicName = (hostname: string): HostLookup => async (name) => {
      assert.equal(name, hostname);
      return [{ address: '93.184.215.14', family: 4 }];
    };
    // the "public" name actually reaches the local test server
    const dialLocal = (): { address: string; family: 4 } => ({ address: '127.0.0.1', family: 4 });

    it('refuses 127.0.0.1 without allowPrivate, before connecting', async () => {
      const before = server.requests.length;
      await rejectsWith(fetchArticlePage(`${server.origin}/page`), refused);
      assert.equal(server.requests.length, before);
    });
    for (const literal of ['http://[::1]/', 'http://0x7f000001/', 'http://2130706433/', 'http://0/', 'http://[::ffff:127.0.0.1]/', 'http://169.254.169.254/latest/meta-data/', 'http://10.1.2.3/']) {
      it(`refuses the literal ${literal}`, () => rejectsWith(fetchArticlePage(literal), refused));
    }
    it('refuses localhost through the system resolver', () => rejectsWith(fetchArticlePage(`http://localhost:${server.port}/page`), refused));
    for (const address of ['10.0.0.7', '::ffff:127.0.0.1', 'fd00::1', '192.168.0.10', '100.64.1.1', 'fe80::1', '0.0.0.0']) {
      it(`refuses a DNS name resolving to ${address}`, () => rejectsWith(fetchArticlePage('http://news.example.test/a', { lookup: fixed(address) }), refused));
    }
    it('refuses a name when any of its addresses is private', () =>
      rejectsWith(fetchArticlePage('http://news.example.test/a', { lookup: fixed('93.184.215.14', '10.0.0.1') }), refused));
    it('fetches through a public name (connection pinned to the checked address)', async () => {
      const dialled: string[] = [];
      const page = await fetchArticlePage(`http://public.test:${server.port}/page`, {
        lookup: publicName('public.test'),
        dialAddress: (checked) => {
          dialled.push(checked.address);
          return dialLocal();
        },
      });
      assert.equal(page.html, PAGE);
      assert.deepEqual(dialled, ['93.184.215.14']);
    });
    it('re-checks every hop: a public page redirecting to 127.0.0.1 is refused', async () => {
      const before = server.requests.length;
      await rejectsWith(
        fetchArticlePage(`http://public.test:${server.port}/redirect-loopback`, { lookup: publicName('public.test'), dialAddress: dialLocal }),
        refused,
      );
      assert.deepEqual(server.requests.slice(before), ['/redirect-loopback']);
    });
    it('re-checks every hop: a redirect to a name resolving privately is refused', async () => {
      const lookup: HostLookup = async (name) => [{ address: name === 'public.test' ? '93.184.215.14' : '192.168.1.20', family: 4 }];
      await rejectsWith(fetchArticlePage(`http://public.test:${server.port}/redirect-private-name`, { lookup, dialAddress: dialLocal }), refused);
    });
    it('connects to the looked-up address, not a second DNS answer', async () => {
      // "pinned.test" does not exist in DNS: the request can only succeed through the pinned address
      const page = await fetchArticlePage(`http://pinned.test:${server.port}/page`, { allowPrivate: true, lookup: fixed('127.0.0.1') });
      assert.equal(page.html, PAGE);
    });
    it('allowPrivate lets tests reach 127.0.0.1', async () => {
      assert.equal((await fetchArticlePage(`${server.origin}/page`, { allowPrivate: true })).html, PAGE);
    });
  });
});
