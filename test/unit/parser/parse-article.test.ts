import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { WorkerPool } from '../../../src/pool';
import { ParserError, articleCacheKey, parseArticle, parserSettingsFromEnv } from '../../../src/parser';
import { httpErrorOf } from '../../../src/http/error-reply';
import { ARTICLE_HTML } from './fixtures';
import { html, startServer, type TestServer } from './server';

describe('parser: parseArticle (fetch + extract worker)', function () {
  let server: TestServer;
  let pool: WorkerPool;

  before(async () => {
    server = await startServer();
    pool = new WorkerPool({ threads: 1 });
    server.route('/article', (_req, res) => html(res, zlib.gzipSync(Buffer.from(ARTICLE_HTML)), { 'content-encoding': 'gzip' }));
    server.route('/moved', (_req, res) => {
      res.writeHead(301, { location: '/article' });
      res.end();
    });
    server.route('/relative-canonical', (_req, res) =>
      html(res, '<html><head><title>T</title></head><body><img src="lead.jpg" width="600"><p>x</p></body></html>'),
    );
  });
  after(async () => {
    await pool.close();
    await server.close();
  });

  it('fetches, follows a redirect and extracts every field in the worker', async () => {
    const result = await parseArticle(`${server.origin}/moved`, { pool, allowPrivate: true });
    assert.equal(result.title, 'Whales return to Monterey Bay');
    assert.equal(result.author, 'Jane Doe');
    assert.equal(result.published, '2024-03-05T10:00:00.000+01:00');
    assert.equal(result.url, `${server.origin}/news/2024/whales-return`);
    assert.equal(result.image, `${server.origin}/images/whales.jpg`);
    assert.ok(result.videos.includes('https://www.youtube.com/embed/abc123XYZ'));
    assert.ok(result.keywords.includes('humpback whales'));
    assert.ok(result.summary.length > 50);
    assert.ok(result.body.split('\n').length >= 6);
  });

  it('resolves relative links against the final URL after redirects', async () => {
    const result = await parseArticle(`${server.origin}/relative-canonical`, { pool, allowPrivate: true });
    assert.equal(result.url, `${server.origin}/relative-canonical`);
  });

  it('passes fetch errors through as ParserError 400', async () => {
    await assert.rejects(parseArticle(`${server.origin}/nope`, { pool, allowPrivate: true }), (error: unknown) => {
      assert.ok(error instanceof ParserError);
      assert.equal(httpErrorOf(error).status, 400);
      assert.equal(error.message, 'URL responded with a 404 status code');
      return true;
    });
    await assert.rejects(parseArticle(`${server.origin}/article`, { pool }), /URL resolves to a private or reserved address/);
    await assert.rejects(parseArticle('', { pool }), /url is missing, url is empty/);
  });

  it('reads its settings from the environment', () => {
    assert.deepEqual(parserSettingsFromEnv({ KINDRED_PARSER_ALLOW_PRIVATE: '1', KINDRED_PARSER_TIMEOUT_MS: '2500' }), {
      allowPrivate: true,
      timeoutMs: 2500,
      maxBytes: undefined,
    });
    assert.equal(parserSettingsFromEnv({}).allowPrivate, false);
    assert.equal(parserSettingsFromEnv({ KINDRED_PARSER_ALLOW_PRIVATE: '0', KINDRED_PARSER_MAX_BYTES: '-3' }).allowPrivate, false);
  });

  it('gives one cache key per article URL', () => {
    assert.equal(articleCacheKey(' https://Example.ORG/a?b=1#frag '), 'https://example.org/a?b=1');
    assert.throws(() => articleCacheKey('nope'), /Unable to parse the URL provided/);
  });
});
