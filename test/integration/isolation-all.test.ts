import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import http from 'node:http';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { v1 } from '../../src/api/v1/routes';
import { v2 } from '../../src/api/v2/routes';
import { v3 } from '../../src/api/v3/routes';
import { v5 } from '../../src/api/v5/routes';
import { v6 } from '../../src/api/v6/routes';
import { parserVersion } from '../../src/api/parser/routes';
import type { ApiVersion } from '../../src/http/route';
import { CORPUS } from '../fixtures/corpus';
import { Client, type Response } from '../helpers/client';
import { backends, CLI_ENTRY, startServer, type RunningServer } from '../helpers/server';

/**
 * Every route of every version, called with key B on key A's data, must behave as if A's data did not
 * exist. Everything A owns carries MARK (ids, texts, meta, tag types), so a leak shows in the raw
 * response text; where B's request itself names A's ids, the checks look at what the route returns.
 * A route without a case here fails the suite, so a new route cannot slip by.
 */
const MARK = 'amark';
const A_KEY = 'isolation-key-a';
const B_KEY = 'isolation-key-b';

const VERSIONS: ApiVersion[] = [v6, v5, v3, v2, v1, parserVersion];

const V1_TEXT = 'The football team won the championship final after a dramatic penalty shootout in the stadium while the striker scored two goals and the goalkeeper saved a penalty in the soccer match as basketball players train hard before the league season and the coach praised the team defence';

type Phase = 'read' | 'write' | 'wipe';

interface Ids {
  aDoc: string;
  aDoc2: string;
  aUser: string;
  aTag: string;
  aCluster: string;
  bDoc: string;
  bUser: string;
  /** Every id B may legitimately see in this version. */
  bDocs: Set<string>;
}

interface Ctx {
  version: string;
  a: Client;
  b: Client;
  ids: Ids;
  /** v1 and the parser: plain requests with the key where that version wants it. */
  v1(key: string, method: string, path: string, params?: Record<string, string>): Promise<Response>;
  parserHits(url: string): number;
  pageUrl(name: string): string;
}

interface Case {
  phase: Phase;
  run(ctx: Ctx): Promise<void>;
}

function noLeak(res: Response, what: string): void {
  assert.ok(!res.text.includes(MARK), `${what} leaked key A's data: ${res.text.slice(0, 400)}`);
}

function notFound(res: Response, message: string | string[], what: string): void {
  assert.equal(res.status, 404, `${what}: ${res.status} ${res.text.slice(0, 200)}`);
  const messages = Array.isArray(message) ? message : [message];
  assert.ok(messages.includes((res.body as { message?: string }).message ?? ''), `${what}: ${res.text.slice(0, 200)}`);
  noLeak(res, what);
}

function ok(res: Response, what: string, status = 200): void {
  assert.equal(res.status, status, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
  noLeak(res, what);
}

/** B's own record that B gave one of A's ids: only that id may appear, nothing else of A's. */
function ownRecord(res: Response, id: string, what: string, status = 200): void {
  assert.equal(res.status, status, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
  assert.ok(!res.text.split(id).join('').includes(MARK), `${what} leaked key A's data: ${res.text.slice(0, 400)}`);
}

/** The owner can read it; the other key gets the not-found answer. */
async function ownerOnly(ctx: Ctx, path: string, message: string | string[], method = 'GET', body?: unknown): Promise<void> {
  const mine = await ctx.a.request(method, path, { body });
  assert.ok(mine.status < 300, `${ctx.version} ${method} ${path} for its owner: ${mine.status} ${mine.text.slice(0, 200)}`);
  notFound(await ctx.b.request(method, path, { body }), message, `${ctx.version} ${method} ${path}`);
}

/** Ids in a result body: a list of items, or a hybrid object's results. */
function resultIds(body: unknown): string[] {
  const items = Array.isArray(body) ? body : (body as { results?: unknown[] }).results ?? [];
  return items.map((item) => String(typeof item === 'object' && item !== null ? (item as { id?: unknown; document_id?: unknown }).id ?? (item as { document_id?: unknown }).document_id : item));
}

function onlyB(ctx: Ctx, res: Response, what: string, nonEmpty = true): void {
  ok(res, what, res.status === 201 ? 201 : 200);
  const ids = resultIds(res.body);
  if (nonEmpty) assert.ok(ids.length > 0, `${what}: expected some of B's own results, got none`);
  for (const id of ids) assert.ok(ctx.ids.bDocs.has(id), `${what}: ${id} is not one of B's documents`);
}

const DOC_404 = "Couldn't find Document";
const TAG_404 = "Couldn't find Tag";
const USER_404 = "Couldn't find User";
const MODEL_404 = "Couldn't find DocumentClusterModel";

const sportText = { text: 'The football striker scored goals in the soccer match and the team won the final in the stadium' };

/** Keyed `METHOD path` (all versions) or `version METHOD path` (one version). */
const CASES: Record<string, Case> = {
  // ---- documents ----
  'GET /documents': { phase: 'read', async run(ctx) {
    const res = await ctx.b.get('/documents?per_page=100');
    onlyB(ctx, res, 'document list');
    assert.equal(res.headers.get('total'), String((res.body as unknown[]).length));
    if (ctx.version !== 'v6') {
      onlyB(ctx, await ctx.b.get(`/documents?keywords=${MARK}word`), 'keyword listing of A\'s word', false);
      assert.deepEqual((await ctx.b.get(`/documents?keywords=${MARK}word`)).body, []);
      onlyB(ctx, await ctx.b.get('/documents?keywords=football'), 'keyword listing');
      onlyB(ctx, await ctx.b.get(`/documents?keywords=${MARK}-meta&keywords_fields=meta.source`), 'keyword listing on A\'s meta', false);
    }
  } },
  'GET /documents/ids': { phase: 'read', async run(ctx) {
    const res = await ctx.b.get('/documents/ids');
    ok(res, 'document ids');
    assert.deepEqual([...(res.body as string[])].sort(), [...ctx.ids.bDocs].sort());
  } },
  'GET /documents/:id': { phase: 'read', run: (ctx) => ownerOnly(ctx, `/documents/${ctx.ids.aDoc}`, DOC_404) },
  'GET /documents/:id/preferences': { phase: 'read', run: (ctx) => ownerOnly(ctx, `/documents/${ctx.ids.aDoc}/preferences`, DOC_404) },
  'GET /documents/:id/tags': { phase: 'read', run: (ctx) => ownerOnly(ctx, `/documents/${ctx.ids.aDoc}/tags`, DOC_404) },
  'GET /documents/:id/tags/suggested': { phase: 'read', async run(ctx) {
    await ownerOnly(ctx, `/documents/${ctx.ids.aDoc}/tags/suggested`, DOC_404);
    const res = await ctx.b.get(`/documents/${ctx.ids.bDoc}/tags/suggested`);
    ok(res, 'tag suggestions for B\'s document');
    assert.ok((res.body as { results: unknown[] }).results.length > 0, res.text);
  } },
  'GET /documents/:id/similar': { phase: 'read', async run(ctx) {
    await ownerOnly(ctx, `/documents/${ctx.ids.aDoc}/similar`, DOC_404);
    onlyB(ctx, await ctx.b.get(`/documents/${ctx.ids.bDoc}/similar?number=50`), 'similar to B\'s document');
    if (ctx.version !== 'v2') {
      await ownerOnly(ctx, `/documents/${ctx.ids.aDoc}/similar?use_hybrid=true`, DOC_404);
      onlyB(ctx, await ctx.b.get(`/documents/${ctx.ids.bDoc}/similar?use_hybrid=true&number=50`), 'hybrid similar', false);
      const forAUser = await ctx.b.get(`/documents/${ctx.ids.bDoc}/similar?use_hybrid=true&user_id=${ctx.ids.aUser}`);
      assert.ok(forAUser.status === 404 || forAUser.status === 200, forAUser.text);
      if (forAUser.status === 200) assert.ok(!JSON.stringify(forAUser.body).includes('"recognised":true'), forAUser.text);
    }
  } },
  'POST /documents/similar-to-text': { phase: 'read', async run(ctx) {
    onlyB(ctx, await ctx.b.post('/documents/similar-to-text', { text: `${CORPUS[0].text} ${MARK}word`, number: 50 }), 'similar to text');
  } },
  'POST /documents/similar-to-ids': { phase: 'read', async run(ctx) {
    await ownerOnly(ctx, '/documents/similar-to-ids', DOC_404, 'POST', { ids: [ctx.ids.aDoc] });
    await ownerOnly(ctx, '/documents/similar-to-ids', DOC_404, 'POST', { ids: [ctx.ids.aDoc], use_hybrid: true });
    onlyB(ctx, await ctx.b.post('/documents/similar-to-ids', { ids: [ctx.ids.bDoc], number: 50 }), 'similar to B\'s ids');
  } },
  'GET /documents/popular': { phase: 'read', async run(ctx) {
    onlyB(ctx, await ctx.b.get('/documents/popular?number=50'), 'popular');
  } },
  'POST /documents/by-keyword': { phase: 'read', async run(ctx) {
    const none = await ctx.b.post('/documents/by-keyword', { es_query: { query: { match: { text: `${MARK}word` } } } });
    ok(none, 'keyword search for A\'s word');
    assert.deepEqual((none.body as { hits: { hits: unknown[] } }).hits.hits, []);
    const all = await ctx.b.post('/documents/by-keyword', { es_query: { query: { match_all: {} }, size: 100, aggs: { tags: { terms: { field: 'tags' } }, sources: { terms: { field: 'meta.source' } } } } });
    ok(all, 'keyword search for everything');
    const hits = (all.body as { hits: { hits: Array<{ id: string }> } }).hits.hits;
    assert.ok(hits.length > 0);
    for (const hit of hits) assert.ok(ctx.ids.bDocs.has(hit.id), hit.id);
  } },
  'POST /documents/filtered': { phase: 'read', async run(ctx) {
    const tagged = await ctx.b.post('/documents/filtered', { filter: `tagged with '${ctx.ids.aTag}'` });
    ok(tagged, 'filtered by A\'s tag');
    assert.deepEqual(tagged.body, []);
    onlyB(ctx, await ctx.b.post('/documents/filtered', { limit: 100 }), 'filtered listing');
  } },
  'POST /documents': { phase: 'write', async run(ctx) {
    const res = await ctx.b.post('/documents', sportText);
    ok(res, 'create', 201);
    const id = String((res.body as { id: unknown }).id);
    ok(await ctx.b.delete(`/documents/${id}`), 'delete B\'s new document', ctx.version === 'v2' ? 201 : 200);
  } },
  'POST /documents/:id': { phase: 'write', async run(ctx) {
    // A's id is free in B's namespace: no 409, and B's document is B's.
    const res = await ctx.b.post(`/documents/${ctx.ids.aDoc}`, sportText);
    assert.equal(res.status, 201, res.text);
    assert.equal((res.body as { text: string }).text, sportText.text);
    assert.ok(!(await ctx.b.get(`/documents/${ctx.ids.aDoc}`)).text.includes(`${MARK}word`));
    assert.ok((await ctx.a.get(`/documents/${ctx.ids.aDoc}`)).text.includes(`${MARK}word`));
    assert.equal((await ctx.b.delete(`/documents/${ctx.ids.aDoc}`)).status, 200);
    assert.equal((await ctx.a.get(`/documents/${ctx.ids.aDoc}`)).status, 200);
  } },
  'PUT /documents/:id': { phase: 'write', async run(ctx) {
    notFound(await ctx.b.put(`/documents/${ctx.ids.aDoc}`, { text: 'overwritten by B' }), DOC_404, 'update A\'s document');
  } },
  'DELETE /documents/:id': { phase: 'write', async run(ctx) {
    notFound(await ctx.b.delete(`/documents/${ctx.ids.aDoc}`), DOC_404, 'delete A\'s document');
  } },
  // ---- tags and taggings ----
  'GET /tags': { phase: 'read', async run(ctx) {
    const res = await ctx.b.get('/tags?per_page=100');
    ok(res, 'tag list');
    assert.ok((res.body as unknown[]).length > 0);
    assert.equal(res.headers.get('total'), String((res.body as unknown[]).length));
    if (ctx.version === 'v6') {
      const typed = await ctx.b.get(`/tags?type=${MARK}-type`);
      ok(typed, 'tags of A\'s type');
      assert.deepEqual(typed.body, []);
      assert.equal(typed.headers.get('total'), '0');
    }
  } },
  'GET /tags/:id': { phase: 'read', run: (ctx) => ownerOnly(ctx, `/tags/${ctx.ids.aTag}`, TAG_404) },
  'GET /tags/:id/documents': { phase: 'read', run: (ctx) => ownerOnly(ctx, `/tags/${ctx.ids.aTag}/documents`, TAG_404) },
  'POST /tags/recommend-by-text': { phase: 'read', async run(ctx) {
    const res = await ctx.b.post('/tags/recommend-by-text', { text: `${CORPUS[0].text} ${MARK}word` });
    ok(res, 'tag suggestions for text');
    assert.ok((res.body as { results: unknown[] }).results.length > 0, res.text);
  } },
  'POST /tags': { phase: 'write', async run(ctx) {
    const res = await ctx.b.post('/tags', ctx.version === 'v6' ? { type: 'b-type' } : undefined);
    ok(res, 'create tag', 201);
    ok(await ctx.b.delete(`/tags/${(res.body as { id: string }).id}`), 'delete B\'s new tag');
  } },
  'POST /tags/:id': { phase: 'write', async run(ctx) {
    ownRecord(await ctx.b.post(`/tags/${ctx.ids.aTag}`), ctx.ids.aTag, 'create a tag with A\'s tag id', 201);
    ok(await ctx.b.get(`/tags/${ctx.ids.aTag}/documents`), 'B\'s tag of that id');
    assert.deepEqual((await ctx.b.get(`/tags/${ctx.ids.aTag}/documents`)).body, []);
    ownRecord(await ctx.b.delete(`/tags/${ctx.ids.aTag}`), ctx.ids.aTag, 'delete B\'s tag');
  } },
  'PUT /tags/:id': { phase: 'write', async run(ctx) {
    notFound(await ctx.b.put(`/tags/${ctx.ids.aTag}`, { type: 'changed-by-b' }), TAG_404, 'update A\'s tag');
  } },
  'DELETE /tags/:id': { phase: 'write', async run(ctx) {
    notFound(await ctx.b.delete(`/tags/${ctx.ids.aTag}`), TAG_404, 'delete A\'s tag');
  } },
  'POST /documents/:document_id/tags/:tag_id': { phase: 'write', async run(ctx) {
    notFound(await ctx.b.post(`/documents/${ctx.ids.aDoc}/tags/${ctx.ids.aTag}`), DOC_404, 'tag A\'s document');
    // B tags its own document with A's tag id: B gets its own tag, A's tag gains nothing.
    assert.equal((await ctx.b.post(`/documents/${ctx.ids.bDoc}/tags/${ctx.ids.aTag}`)).status, 204);
    const docs = await ctx.b.get(`/tags/${ctx.ids.aTag}/documents`);
    assert.deepEqual(resultIds(docs.body), [ctx.ids.bDoc]);
    noLeak(docs, 'B\'s documents of A\'s tag id');
    assert.ok(!resultIds((await ctx.a.get(`/tags/${ctx.ids.aTag}/documents`)).body).includes(ctx.ids.bDoc));
    assert.equal((await ctx.b.delete(`/documents/${ctx.ids.bDoc}/tags/${ctx.ids.aTag}`)).status, 204);
    ownRecord(await ctx.b.delete(`/tags/${ctx.ids.aTag}`), ctx.ids.aTag, 'delete B\'s tag');
  } },
  'DELETE /documents/:document_id/tags/:tag_id': { phase: 'write', async run(ctx) {
    notFound(await ctx.b.delete(`/documents/${ctx.ids.aDoc}/tags/${ctx.ids.aTag}`), [DOC_404, TAG_404, "Tagging doesn't exist"], 'untag A\'s document');
  } },
  // ---- users and preferences ----
  'GET /users': { phase: 'read', async run(ctx) {
    const res = await ctx.b.get('/users?per_page=100');
    ok(res, 'user list');
    assert.ok((res.body as unknown[]).length > 0);
    assert.equal(res.headers.get('total'), String((res.body as unknown[]).length));
  } },
  'GET /users/:id': { phase: 'read', run: (ctx) => ownerOnly(ctx, `/users/${ctx.ids.aUser}`, USER_404) },
  'GET /users/:id/preferences': { phase: 'read', run: (ctx) => ownerOnly(ctx, `/users/${ctx.ids.aUser}/preferences`, USER_404) },
  'GET /users/:user_id/preferences/:document_id': { phase: 'read', run: (ctx) => ownerOnly(ctx, `/users/${ctx.ids.aUser}/preferences/${ctx.ids.aDoc}`, USER_404) },
  'GET /users/:id/recommendations': { phase: 'read', async run(ctx) {
    await ownerOnly(ctx, `/users/${ctx.ids.aUser}/recommendations`, USER_404);
    onlyB(ctx, await ctx.b.get(`/users/${ctx.ids.bUser}/recommendations?number=50`), 'B\'s user recommendations');
    if (ctx.version !== 'v2') {
      await ownerOnly(ctx, `/users/${ctx.ids.aUser}/recommendations?use_hybrid=true`, USER_404);
      const hybrid = await ctx.b.get(`/users/${ctx.ids.bUser}/recommendations?use_hybrid=true&number=50`);
      onlyB(ctx, hybrid, 'B\'s hybrid user recommendations');
      assert.ok(!hybrid.text.includes('"recognised":true') && !hybrid.text.includes('"recognised":{"'), `B has no model, yet: ${hybrid.text.slice(0, 300)}`);
    }
  } },
  'POST /users': { phase: 'write', async run(ctx) {
    const res = await ctx.b.post('/users');
    ok(res, 'create user', 201);
    ok(await ctx.b.delete(`/users/${(res.body as { id: string }).id}`), 'delete B\'s new user', ctx.version === 'v2' ? 201 : 200);
  } },
  'POST /users/:id': { phase: 'write', async run(ctx) {
    ownRecord(await ctx.b.post(`/users/${ctx.ids.aUser}`), ctx.ids.aUser, 'create a user with A\'s user id', 201);
    const prefs = await ctx.b.get(`/users/${ctx.ids.aUser}/preferences`);
    ok(prefs, 'preferences of B\'s user of that id');
    assert.deepEqual(prefs.body, []);
    ownRecord(await ctx.b.delete(`/users/${ctx.ids.aUser}`), ctx.ids.aUser, 'delete B\'s user');
  } },
  'DELETE /users/:id': { phase: 'write', async run(ctx) {
    notFound(await ctx.b.delete(`/users/${ctx.ids.aUser}`), USER_404, 'delete A\'s user');
    if (ctx.version !== 'v2') {
      // Merging B's user into A's must not find A's user (nor move B's preferences to A).
      notFound(await ctx.b.delete(`/users/${ctx.ids.bUser}?merge_into=${ctx.ids.aUser}`), USER_404, 'merge into A\'s user');
      assert.equal((await ctx.b.get(`/users/${ctx.ids.bUser}`)).status, 201);
    }
  } },
  'POST /users/:user_id/preferences/:document_id': { phase: 'write', async run(ctx) {
    notFound(await ctx.b.post(`/users/${ctx.ids.aUser}/preferences/${ctx.ids.aDoc}`), [USER_404, DOC_404], 'prefer for A\'s user');
    notFound(await ctx.b.post(`/users/${ctx.ids.bUser}/preferences/${ctx.ids.aDoc}`), DOC_404, 'B\'s user prefers A\'s document');
  } },
  'DELETE /users/:user_id/preferences/:document_id': { phase: 'write', async run(ctx) {
    notFound(await ctx.b.delete(`/users/${ctx.ids.aUser}/preferences/${ctx.ids.aDoc}`), [USER_404, DOC_404, "Couldn't find all Preferences"], 'delete A\'s preference');
  } },
  // ---- clustering ----
  'GET /cluster-models': { phase: 'read', async run(ctx) {
    const res = await ctx.b.get('/cluster-models');
    ok(res, 'cluster model list');
    assert.deepEqual(res.body, []);
    assert.equal(res.headers.get('total'), '0');
  } },
  'GET /cluster-models/:id': { phase: 'read', run: (ctx) => ownerOnly(ctx, `/cluster-models/${ctx.ids.aCluster}`, MODEL_404) },
  'GET /cluster-models/:id/clusters': { phase: 'read', run: (ctx) => ownerOnly(ctx, `/cluster-models/${ctx.ids.aCluster}/clusters`, MODEL_404) },
  'GET /cluster-models/:id/clusters/:cluster_id/documents': { phase: 'read', run: (ctx) => ownerOnly(ctx, `/cluster-models/${ctx.ids.aCluster}/clusters/0/documents`, MODEL_404) },
  'GET /cluster-models/:id/clusters/:cluster_id/words': { phase: 'read', run: (ctx) => ownerOnly(ctx, `/cluster-models/${ctx.ids.aCluster}/clusters/0/words`, MODEL_404) },
  'GET /cluster-models/:id/clusters/:cluster_id/word-cloud': { phase: 'read', run: (ctx) => ownerOnly(ctx, `/cluster-models/${ctx.ids.aCluster}/clusters/0/word-cloud`, MODEL_404) },
  'POST /cluster-models': { phase: 'write', async run(ctx) {
    // B's first model takes the same number as A's: its own, with B's documents only.
    const res = await ctx.b.post('/cluster-models', { number_clusters: 2 });
    ok(res, 'create cluster model', 201);
    const id = (res.body as { id: number }).id;
    const list = await ctx.b.get('/cluster-models');
    assert.deepEqual(resultIds(list.body), [String(id)]);
    assert.equal((await ctx.b.delete(`/cluster-models/${id}`)).status, ctx.version === 'v2' ? 201 : 200);
    assert.equal((await ctx.a.get(`/cluster-models/${ctx.ids.aCluster}`)).status, 201, 'A\'s model of the same number survives');
  } },
  'DELETE /cluster-models/:id': { phase: 'write', async run(ctx) {
    notFound(await ctx.b.delete(`/cluster-models/${ctx.ids.aCluster}`), MODEL_404, 'delete A\'s cluster model');
  } },
  // ---- batch and bulk deletion ----
  'POST /batch': { phase: 'write', async run(ctx) {
    const op = (method: string, url: string, params?: unknown) => ({ method, url, params, headers: { 'Subscription-Key': B_KEY } });
    const ops = [
      op('GET', `/documents/${ctx.ids.aDoc}`),
      op('PUT', `/documents/${ctx.ids.aDoc}`, { text: 'overwritten by B' }),
      op('DELETE', `/documents/${ctx.ids.aDoc}`),
      op('GET', `/users/${ctx.ids.aUser}/preferences`),
      op('GET', '/documents'),
    ];
    const res = await ctx.b.post('/batch', { ops, sequential: true });
    ok(res, 'batch');
    const statuses = (res.body as { results: Array<{ status: number }> }).results.map((r) => r.status);
    assert.deepEqual(statuses, [404, 404, 404, 404, 200]);
    // An operation without a key is not run as the caller.
    const keyless = await ctx.b.post('/batch', { ops: [{ method: 'GET', url: '/documents' }], sequential: true });
    assert.equal((keyless.body as { results: Array<{ status: number }> }).results[0].status, 401);
  } },
  'DELETE /delete-all-data': { phase: 'wipe', async run(ctx) {
    assert.equal((await ctx.b.delete('/delete-all-data')).status, 204);
    assert.equal((await ctx.b.get('/documents')).headers.get('total'), '0');
  } },
  // ---- v1 ----
  'v1 GET /list': { phase: 'read', async run(ctx) {
    const res = await ctx.v1(B_KEY, 'GET', '/list/');
    ok(res, 'v1 list');
    for (const id of res.body as string[]) assert.ok(ctx.ids.bDocs.has(id), id);
  } },
  'v1 GET /fetch': { phase: 'read', async run(ctx) {
    assert.equal((await ctx.v1(A_KEY, 'GET', '/fetch/', { document_id: ctx.ids.aDoc })).status, 200);
    const res = await ctx.v1(B_KEY, 'GET', '/fetch/', { document_id: ctx.ids.aDoc });
    assert.equal(res.status, 404);
    noLeak(res, 'v1 fetch');
  } },
  'v1 POST /recommend-by-id': { phase: 'read', async run(ctx) {
    assert.equal((await ctx.v1(B_KEY, 'POST', '/recommend-by-id/', { document_id: ctx.ids.aDoc })).status, 404);
    onlyB(ctx, await ctx.v1(B_KEY, 'POST', '/recommend-by-id/', { document_id: ctx.ids.bDoc, results: '50' }), 'v1 recommend by id');
  } },
  'v1 POST /recommend-by-text': { phase: 'read', async run(ctx) {
    onlyB(ctx, await ctx.v1(B_KEY, 'POST', '/recommend-by-text/', { text: V1_TEXT, results: '50' }), 'v1 recommend by text');
  } },
  'v1 POST /add': { phase: 'write', async run(ctx) {
    const res = await ctx.v1(B_KEY, 'POST', '/add/', { document_id: ctx.ids.aDoc, text: V1_TEXT });
    ownRecord(res, ctx.ids.aDoc, 'v1 add with A\'s id');
    ownRecord(await ctx.v1(B_KEY, 'POST', '/delete/', { document_id: ctx.ids.aDoc }), ctx.ids.aDoc, 'v1 delete B\'s document');
  } },
  'v1 POST /delete': { phase: 'write', async run(ctx) {
    const res = await ctx.v1(B_KEY, 'POST', '/delete/', { document_id: ctx.ids.aDoc });
    assert.equal(res.status, 404);
    noLeak(res, 'v1 delete');
  } },
  'v1 POST /update-meta': { phase: 'write', async run(ctx) {
    assert.equal((await ctx.v1(B_KEY, 'POST', '/update-meta/', { document_id: ctx.ids.aDoc, meta: '{"by":"b"}' })).status, 404);
  } },
  'v1 POST /update-text': { phase: 'write', async run(ctx) {
    assert.equal((await ctx.v1(B_KEY, 'POST', '/update-text/', { document_id: ctx.ids.aDoc, text: V1_TEXT })).status, 404);
  } },
  'v1 POST /delete-all': { phase: 'wipe', async run(ctx) {
    ok(await ctx.v1(B_KEY, 'POST', '/delete-all/'), 'v1 delete-all');
    assert.deepEqual((await ctx.v1(B_KEY, 'GET', '/list/')).body, []);
  } },
  // ---- article extraction ----
  'parser GET /': { phase: 'read', async run(ctx) {
    const url = ctx.pageUrl('article-isolation');
    const get = (key: string) => fetch(`${ctx.b.baseUrl.replace(/\/parser$/, '')}/parser/?url=${encodeURIComponent(url)}`, { headers: { 'Subscription-Key': key } });
    assert.equal((await get(A_KEY)).status, 200);
    assert.equal((await get(A_KEY)).status, 200);
    assert.equal(ctx.parserHits(url), 1, 'A\'s second request is served from A\'s cache');
    assert.equal((await get(B_KEY)).status, 200);
    assert.equal(ctx.parserHits(url), 2, 'B\'s request is fetched again, not served from A\'s cache');
  } },
};

function caseOf(version: string, method: string, path: string): Case | undefined {
  return CASES[`${version} ${method} ${path}`] ?? (version === 'v1' || version === 'parser' ? undefined : CASES[`${method} ${path}`]);
}

const ARTICLE = `<!doctype html><html><head><title>Rivers of the North</title></head><body><article><h1>Rivers of the North</h1>
<p>The northern rivers carry meltwater from the glaciers to the sea every spring, and the salmon follow them upstream to spawn in the cold gravel beds.</p>
<p>Scientists measuring the rivers found that the glaciers are shrinking, so the meltwater arrives earlier each year and the salmon must adapt.</p>
</article></body></html>`;

for (const backend of backends()) describe(`isolation of two keys over every route of every version (${backend})`, function () {
  this.timeout(120_000);
  let server: RunningServer;
  let pages: http.Server;
  let pagesBase = '';
  const hits = new Map<string, number>();
  const ids: Record<string, Ids> = {};
  let snapshotBefore = '';

  const client = (version: string, key: string) => new Client(`${server.url}/${version}`, key);

  /** Everything A can observe of its own data, to compare after B's writes and wipes. */
  async function snapshotOfA(): Promise<string> {
    const a = client('v6', A_KEY);
    const parts: unknown[] = [];
    parts.push((await a.get('/documents?per_page=100&fields=meta,text,published_at,tags')).body);
    parts.push((await a.get('/tags?per_page=100')).body);
    const users = (await a.get('/users?per_page=100')).body as Array<{ id: string }>;
    parts.push(users);
    for (const user of users) parts.push((await a.get(`/users/${user.id}/preferences?per_page=100`)).body);
    parts.push((await client('v2', A_KEY).get('/documents?per_page=100')).body);
    parts.push((await client('v3', A_KEY).get('/cluster-models')).body);
    return JSON.stringify(parts);
  }

  before(async () => {
    pages = http.createServer((req, res) => {
      hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1);
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(ARTICLE);
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', () => resolve()));
    pagesBase = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    server = await startServer({ backend, keys: [A_KEY, B_KEY], env: { KINDRED_PARSER_ALLOW_PRIVATE: '1', KINDRED_PARSER_RATE: '50' } });

    const a = client('v6', A_KEY);
    const b = client('v6', B_KEY);
    const must = async (res: Promise<Response>, status: number) => {
      const r = await res;
      assert.equal(r.status, status, r.text);
      return r;
    };
    await Promise.all(CORPUS.map(async (doc) => {
      await must(a.post(`/documents/${MARK}-${doc.id}`, { text: `${doc.text} ${MARK}word`, meta: { source: `${MARK}-meta` }, published_at: '2024-01-01T00:00:00Z' }), 201);
      await must(b.post(`/documents/b-${doc.id}`, { text: doc.text, meta: { source: 'b-meta' }, published_at: '2024-01-01T00:00:00Z' }), 201);
    }));
    for (const topic of ['sport', 'tech', 'food']) {
      for (let i = 1; i <= 5; i++) {
        await must(a.post(`/documents/${MARK}-${topic}-${i}/tags/${MARK}-tag-${topic}`), 204);
        await must(b.post(`/documents/b-${topic}-${i}/tags/b-tag-${topic}`), 204);
      }
    }
    await must(a.put(`/tags/${MARK}-tag-sport`, { type: `${MARK}-type`, meta: { note: `${MARK}-tag-meta` } }), 200);
    for (let u = 1; u <= 3; u++) {
      await must(a.post(`/users/${MARK}-user-${u}`), 201);
      await must(b.post(`/users/b-user-${u}`), 201);
      for (const n of [1, 2, 3]) {
        await must(a.post(`/users/${MARK}-user-${u}/preferences/${MARK}-sport-${n}`), 201);
        await must(b.post(`/users/b-user-${u}/preferences/b-food-${n}`), 201);
      }
    }
    // v2's generated integer ids are counted per key: A's are pushed past B's so that B asking for
    // A's number cannot hit a document of B's own with that number.
    const a2 = client('v2', A_KEY);
    const b2 = client('v2', B_KEY);
    for (let i = 0; i < 5; i++) {
      const filler = await must(a2.post('/documents', { text: 'filler' }), 201);
      await must(a2.delete(`/documents/${(filler.body as { id: number }).id}`), 201);
      const fillerUser = await must(a2.post('/users'), 201);
      await must(a2.delete(`/users/${(fillerUser.body as { id: number }).id}`), 201);
    }
    const a2Docs: string[] = [];
    const b2Docs: string[] = [];
    for (const doc of CORPUS.slice(0, 4)) {
      a2Docs.push(String(((await must(a2.post('/documents', { text: `${doc.text} ${MARK}word`, meta: { source: `${MARK}-meta` } }), 201)).body as { id: number }).id));
      b2Docs.push(String(((await must(b2.post('/documents', { text: doc.text }), 201)).body as { id: number }).id));
    }
    const a2User = String(((await must(a2.post('/users'), 201)).body as { id: number }).id);
    const b2User = String(((await must(b2.post('/users'), 201)).body as { id: number }).id);
    await must(a2.post(`/users/${a2User}/preferences/${a2Docs[0]}`), 201);
    await must(b2.post(`/users/${b2User}/preferences/${b2Docs[0]}`), 201);
    assert.ok(a2Docs.every((id) => !b2Docs.includes(id)), `A's ${a2Docs} and B's ${b2Docs}`);

    // A hybrid model for A only (B's hybrid answers must not recognise anything through it), trained
    // while A's cluster model trains.
    const training = promisify(execFile)(process.execPath, [CLI_ENTRY, 'train', '--key', A_KEY, '--factors', '4', '--iterations', '3'], {
      env: { ...process.env, KINDRED_DATA_DIR: server.dataDir, MONGODB_URI: server.mongodbUri ?? '', KINDRED_WORKERS: '1' },
    });
    const model = await must(client('v3', A_KEY).post('/cluster-models', { number_clusters: 2 }), 201);
    const aCluster = String((model.body as { id: number }).id);
    const until = Date.now() + 30_000;
    while ((await client('v3', A_KEY).get(`/cluster-models/${aCluster}`)).body.status !== 'trained') {
      assert.ok(Date.now() < until, 'A\'s cluster model did not train within 30 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    await training;
    const served = Date.now() + 15_000;
    while ((await a.get(`/users/${MARK}-user-1/recommendations?use_hybrid=true`)).body.user_ids?.[0]?.recognised !== true) {
      assert.ok(Date.now() < served, 'A\'s hybrid model was not served within 15 s');
      await new Promise((r) => setTimeout(r, 250));
    }

    // B's integer-id documents (made through v2) are B's too, and visible in every other version.
    const bStringDocs = new Set([...CORPUS.map((d) => `b-${d.id}`), ...b2Docs]);
    const common = { aDoc: `${MARK}-sport-1`, aDoc2: `${MARK}-tech-1`, aUser: `${MARK}-user-1`, aTag: `${MARK}-tag-sport`, aCluster, bDoc: 'b-sport-1', bUser: 'b-user-1', bDocs: bStringDocs };
    for (const name of ['v6', 'v5', 'v3', 'v1', 'parser']) ids[name] = common;
    ids.v2 = { ...common, aDoc: a2Docs[0], aDoc2: a2Docs[1], aUser: a2User, bDoc: b2Docs[0], bUser: b2User, bDocs: new Set(b2Docs) };
    snapshotBefore = await snapshotOfA();
    assert.ok(snapshotBefore.includes(MARK));
  });

  after(async () => {
    await server?.stop();
    pages?.close();
  });

  const contextOf = (version: string): Ctx => ({
    version,
    a: client(version, A_KEY),
    b: client(version, B_KEY),
    ids: ids[version],
    v1: async (key, method, path, params = {}) => {
      const query = new URLSearchParams({ 'subscription-key': key, ...(method === 'GET' ? params : {}) });
      const res = await fetch(`${server.url}/v1${path}?${query}`, {
        method,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: method === 'POST' ? new URLSearchParams(params).toString() : undefined,
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, text, body: (res.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : text };
    },
    parserHits: (url) => hits.get(url.slice(pagesBase.length)) ?? 0,
    pageUrl: (name) => `${pagesBase}/${name}`,
  });

  const all = VERSIONS.flatMap((version) => version.routes.map((route) => ({ version: version.name, route })));
  const phases: Phase[] = ['read', 'write', 'wipe'];
  for (const phase of phases) {
    for (const { version, route } of all) {
      const found = caseOf(version, route.method, route.path);
      if (phase === 'read' && !found) {
        it(`${version} ${route.method} ${route.path}: has an isolation case`, () => {
          assert.fail(`no isolation case for ${version} ${route.method} ${route.path}: add one to CASES`);
        });
      }
      if (found?.phase !== phase) continue;
      it(`${version} ${route.method} ${route.path} (${phase})`, () => found.run(contextOf(version)));
    }
    if (phase === 'write') {
      it('left all of A\'s data as it was after B\'s writes', async () => {
        assert.equal(await snapshotOfA(), snapshotBefore);
      });
    }
  }

  it('left all of A\'s data as it was after B deleted all of its own', async () => {
    assert.equal(await snapshotOfA(), snapshotBefore);
    const similar = await client('v6', A_KEY).get(`/documents/${MARK}-sport-1/similar`);
    assert.equal(similar.status, 200);
    assert.ok(resultIds(similar.body).length > 0, 'A\'s index was emptied by B\'s wipe');
  });
});
