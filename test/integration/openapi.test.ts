import assert from 'node:assert/strict';
import Ajv from 'ajv';
import { Client, type Response } from '../helpers/client';
import { startServer, type RunningServer } from '../helpers/server';
import { CORPUS } from '../fixtures/corpus';

interface Operation { responses: Record<string, { content?: Record<string, { schema: object }> }> }
type Paths = Record<string, Record<string, Operation>>;

const VERSIONS = ['/v6', '/v5', '/v3', '/v2', '/v1'];
const LONG_TEXT = 'The football team and the basketball players trained in the stadium before the championship final, ' +
  'while the coach watched the striker, the goalkeeper and the defenders practise penalties and passes for the league match.';

/** Issue 31: OpenAPI lists what each route answers, and real answers through HTTP match it. */
describe('OpenAPI response schemas against real answers', function () {
  this.timeout(180_000);
  let server: RunningServer;
  let api: Client;
  let paths: Paths;
  const ajv = new Ajv({ strict: false, allErrors: true });
  const checked = new Set<string>();

  /** The answer matches the schema OpenAPI gives for its route, method and status. */
  function matches(prefix: string, method: string, template: string, res: Pick<Response, 'status' | 'body'>): void {
    const key = `${method} ${prefix}${template}`;
    const operation = paths[`${prefix}${template.replace(/:([A-Za-z_]+)/g, '{$1}')}`]?.[method.toLowerCase()];
    assert.ok(operation, `${key} is not in OpenAPI`);
    const response = operation.responses[String(res.status)];
    assert.ok(response, `${key}: OpenAPI has no ${res.status} answer (body ${JSON.stringify(res.body).slice(0, 200)})`);
    if (res.status === 204) return;
    const content = response.content?.['application/json'] ?? response.content?.['image/svg+xml'];
    assert.ok(content, `${key}: no schema for ${res.status}`);
    const validate = ajv.compile(content.schema);
    assert.ok(validate(res.body), `${key}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(res.body).slice(0, 300)}`);
    checked.add(key);
  }

  const call = async (prefix: string, method: string, template: string, url: string, body?: unknown): Promise<Response> => {
    const res = await api.request(method, `${prefix}${url}`, body === undefined ? {} : { body });
    assert.ok(res.status < 400, `${method} ${prefix}${url}: ${res.status} ${JSON.stringify(res.body)}`);
    matches(prefix, method, template, res);
    return res;
  };

  before(async () => {
    server = await startServer({ backend: 'embedded' });
    api = new Client(server.url);
    paths = (await api.get<{ paths: Paths }>('/openapi.json')).body.paths;
  });
  after(() => server?.stop());

  it('gives every route of every version a success schema', () => {
    for (const [path, operations] of Object.entries(paths)) {
      if (!VERSIONS.some((v) => path.startsWith(`${v}/`))) continue;
      for (const [method, operation] of Object.entries(operations)) {
        const success = Object.entries(operation.responses).filter(([status]) => /^2\d\d$/.test(status));
        assert.ok(success.length > 0, `${method} ${path} has no success answer`);
        for (const [status, response] of success) assert.ok(status === '204' || response.content, `${method} ${path} ${status} has no schema`);
      }
    }
  });

  it('v6 answers as its schemas say', async () => {
    const v6 = (m: string, t: string, u: string, b?: unknown) => call('/v6', m, t, u, b);
    for (const doc of CORPUS) await v6('POST', '/documents/:id', `/documents/${doc.id}`, { text: doc.text, meta: { topic: doc.topic }, published_at: '2024-01-02T03:04:05Z' });
    await v6('POST', '/documents', '/documents', { text: 'a generated id' });
    await v6('GET', '/documents', '/documents?per_page=5');
    await v6('GET', '/documents/:id', '/documents/sport-1?fields=text,meta,published_at,tags');
    await v6('PUT', '/documents/:id', '/documents/sport-2', { meta: { topic: 'sport', n: 2 } });
    await v6('GET', '/documents/ids', '/documents/ids');
    await v6('POST', '/documents/:document_id/tags/:tag_id', '/documents/sport-1/tags/ball');
    await v6('POST', '/documents/:document_id/tags/:tag_id', '/documents/sport-2/tags/ball');
    await v6('GET', '/documents/:id/tags', '/documents/sport-1/tags');
    await v6('POST', '/tags/:id', '/tags/kitchen', { type: 'topic', meta: { colour: 'red' } });
    await v6('POST', '/tags', '/tags', {});
    await v6('GET', '/tags', '/tags');
    await v6('GET', '/tags/:id', '/tags/ball');
    await v6('PUT', '/tags/:id', '/tags/ball', { type: 'sport' });
    await v6('GET', '/tags/:id/documents', '/tags/ball/documents?fields=tags,published_at');
    await v6('POST', '/users/:id', '/users/u1');
    await v6('POST', '/users/:id', '/users/u2');
    await v6('POST', '/users', '/users');
    await v6('GET', '/users', '/users');
    await v6('GET', '/users/:id', '/users/u1');
    await v6('POST', '/users/:user_id/preferences/:document_id', '/users/u1/preferences/sport-1');
    await v6('POST', '/users/:user_id/preferences/:document_id', '/users/u2/preferences/sport-3');
    await v6('GET', '/users/:user_id/preferences/:document_id', '/users/u1/preferences/sport-1');
    await v6('GET', '/users/:id/preferences', '/users/u1/preferences');
    await v6('GET', '/documents/:id/preferences', '/documents/sport-1/preferences');
    await new Promise((r) => setTimeout(r, 300));
    await v6('GET', '/documents/:id/similar', '/documents/sport-1/similar?number=3&fields=meta,tags,published_at,text');
    await v6('GET', '/documents/:id/similar', `/documents/sport-1/similar?filter=${encodeURIComponent("tagged with 'ball'")}`);
    await v6('GET', '/documents/:id/similar', '/documents/sport-1/similar?use_hybrid=true&fields=meta');
    await v6('POST', '/documents/similar-to-text', '/documents/similar-to-text', { text: 'pasta sauce', number: 2, fields: 'text' });
    await v6('POST', '/documents/similar-to-ids', '/documents/similar-to-ids', { ids: ['food-1', 'food-2'] });
    await v6('POST', '/documents/similar-to-ids', '/documents/similar-to-ids', { ids: ['food-1'], use_hybrid: true });
    await v6('GET', '/users/:id/recommendations', '/users/u1/recommendations');
    await v6('GET', '/users/:id/recommendations', '/users/u1/recommendations?use_hybrid=true');
    await v6('GET', '/documents/popular', '/documents/popular?fields=text');
    await v6('GET', '/documents/:id/tags/suggested', '/documents/sport-3/tags/suggested');
    await v6('POST', '/tags/recommend-by-text', '/tags/recommend-by-text', { text: 'football match' });
    await v6('POST', '/documents/by-keyword', '/documents/by-keyword', { es_query: { query: { match: { text: 'pasta' } }, highlight: { fields: { text: {} } } }, fields: 'text,tags' });
    await v6('POST', '/documents/by-keyword', '/documents/by-keyword', { es_query: { query: { match_all: {} }, sort: [{ created_at: 'asc' }], aggs: { topics: { terms: { field: 'tags' } } } } });
    await v6('POST', '/documents/filtered', '/documents/filtered', { filter: "tagged with 'ball'", fields: 'tags', sort_by: 'published_at' });
    await v6('POST', '/batch', '/batch', { sequential: true, ops: [{ method: 'GET', url: '/documents/ghost', headers: { 'Subscription-Key': 'test-key' } }] });
    await v6('DELETE', '/documents/:document_id/tags/:tag_id', '/documents/sport-2/tags/ball');
    await v6('DELETE', '/users/:user_id/preferences/:document_id', '/users/u2/preferences/sport-3');
    await v6('DELETE', '/users/:id', '/users/u2?merge_into=u1');
    await v6('DELETE', '/tags/:id', '/tags/kitchen');
    await v6('DELETE', '/documents/:id', '/documents/tech-5');
  });

  it('v5, v3 and v2 answer as their schemas say', async () => {
    await call('/v5', 'GET', '/documents', '/documents?keywords=pasta');
    await call('/v5', 'GET', '/documents/:id', '/documents/food-1');
    await call('/v5', 'GET', '/documents/:id/similar', '/documents/food-1/similar?use_hybrid=true');
    await call('/v5', 'GET', '/tags', '/tags');
    await call('/v5', 'POST', '/tags/:id', '/tags/v5-tag', {});
    await call('/v3', 'GET', '/documents/:id/similar', '/documents/tech-1/similar?expand_meta=true&number=2');
    await call('/v3', 'GET', '/documents/:id/similar', '/documents/tech-1/similar?use_hybrid=true');
    await call('/v3', 'GET', '/documents/popular', '/documents/popular?expand_meta=true');
    await call('/v3', 'POST', '/cluster-models', '/cluster-models', { number_clusters: 2 });
    await call('/v3', 'GET', '/cluster-models', '/cluster-models');
    await call('/v3', 'GET', '/cluster-models/:id', '/cluster-models/1');
    const v2doc = (await call('/v2', 'POST', '/documents', '/documents', { text: CORPUS[0].text })).body as { id: number };
    await call('/v2', 'POST', '/documents', '/documents', { text: CORPUS[1].text });
    await call('/v2', 'GET', '/documents', '/documents');
    await call('/v2', 'GET', '/documents/:id', `/documents/${v2doc.id}`);
    await call('/v2', 'GET', '/documents/:id/similar', `/documents/${v2doc.id}/similar`);
    const v2user = (await call('/v2', 'POST', '/users', '/users')).body as { id: number };
    await call('/v2', 'POST', '/users/:user_id/preferences/:document_id', `/users/${v2user.id}/preferences/${v2doc.id}`);
    await call('/v2', 'GET', '/users/:id/recommendations', `/users/${v2user.id}/recommendations`);
    await call('/v2', 'DELETE', '/users/:id', `/users/${v2user.id}`);
  });

  it('v1 answers as its schemas say', async () => {
    const v1 = async (method: string, template: string, form?: Record<string, string>) => {
      const res = await fetch(`${server.url}/v1${template}/?subscription-key=test-key${method === 'GET' && form ? `&${new URLSearchParams(form)}` : ''}`, {
        method,
        headers: method === 'POST' ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {},
        body: method === 'POST' && form ? new URLSearchParams(form).toString() : undefined,
      });
      const body: unknown = await res.json();
      assert.ok(res.status < 400, `v1 ${template}: ${res.status}`);
      matches('/v1', method, template, { status: res.status, body });
    };
    await v1('POST', '/add', { document_id: 'v1-doc', text: LONG_TEXT, meta: '{"source": "v1"}' });
    await v1('GET', '/fetch', { document_id: 'v1-doc' });
    await v1('GET', '/list');
    await v1('POST', '/update-meta', { document_id: 'v1-doc', meta: '{"n": 2}' });
    await v1('POST', '/update-text', { document_id: 'v1-doc', text: `${LONG_TEXT} Again.` });
    await v1('POST', '/recommend-by-id', { document_id: 'v1-doc', results: '3' });
    await v1('POST', '/recommend-by-text', { text: LONG_TEXT });
    await v1('POST', '/delete', { document_id: 'v1-doc' });
  });

  it('checked answers of many routes', () => {
    assert.ok(checked.size >= 60, `only ${checked.size} route answers checked`);
  });
});
