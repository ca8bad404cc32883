import { Type, type Static } from 'typebox';
import { invalidParameter, KindredError, missingParameter } from '../../errors';
import type { HttpError } from '../../http/error-reply';
import { ok, route, type ApiVersion, type Reply, type RequestContext, type RouteDef } from '../../http/route';
import type { RecommendationRequest, Recommendations } from '../../services/recommendations';
import type { DocumentField, ShownDocument } from '../../services/shown';
import { metaSchema } from '../common/schemas';
import { emptyObject, idsResponse, v1Distances, v1Document } from '../common/responses';

/** v1 needs this many recognised words in a text (406 otherwise). */
export const MIN_RECOGNISED_WORDS = 25;
const DEFAULT_RESULTS = 20;
const MAX_RESULTS = 200;
const SCOPE = 'client-string';
const V1_FIELDS: ReadonlySet<DocumentField> = new Set<DocumentField>(['text', 'meta']);

/** v1's error pages: `<code>: <text>` as title and body. */
function htmlError(error: Pick<HttpError, 'status' | 'message' | 'headers'>): Reply {
  const line = `${error.status}: ${error.message}`;
  const escaped = line.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return {
    status: error.status,
    body: `<html><title>${escaped}</title><body>${escaped}</body></html>`,
    headers: { ...error.headers, 'Content-Type': 'text/html; charset=utf-8' },
  };
}

function renderError(error: HttpError): Reply {
  // Authentication is answered by the gateway in front of every version, in JSON.
  if (error.type === 'auth') return { status: error.status, body: { message: error.message }, headers: { ...error.headers } };
  if (error.code === 'route_not_found') return { status: 404, body: { statusCode: 404, message: error.message } };
  // v1 names no missing thing: every other 404 reads `Not Found`.
  if (error.status === 404) return htmlError({ ...error, message: 'Not Found' });
  if (error.code === 'already_exists') return htmlError({ ...error, message: `id already exists! document_id ${error.subject ?? ''}` });
  return htmlError(error);
}

/** `YYYY-MM-DD HH:MM:SS.ffffff`, v1's timestamp format (UTC). */
export function v1Time(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}000`;
}

/** A document as v1 shows it: meta JSON-encoded in a string, its own timestamp format. */
const record = (doc: Pick<ShownDocument, 'id' | 'created_at' | 'text' | 'meta'>) =>
  ({ text: doc.text ?? '', created_at: v1Time(doc.created_at), meta: JSON.stringify(doc.meta ?? {}), document_id: doc.id });

/**
 * v1's parameters: form fields or query parameters (the body wins), all optional in the schema because a
 * parameter missing from both sources is answered in v1's words (`<name> is missing`).
 */
const paramsSchema = Type.Object({
  document_id: Type.Optional(Type.String()),
  text: Type.Optional(Type.String()),
  meta: Type.Optional(metaSchema),
  results: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
  select_from: Type.Optional(Type.Union([Type.String(), Type.Array(Type.Union([Type.String(), Type.Number()]))])),
});
type Params = Static<typeof paramsSchema>;
const writes = { query: paramsSchema, body: paramsSchema, responses: { 200: v1Document } };
const distanceSchemas = { query: paramsSchema, body: paramsSchema, responses: { 200: v1Distances } };

const params = (req: RequestContext<Params, Params>): Params => ({ ...req.query, ...req.body });

function required(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw missingParameter(name);
  return value;
}

function resultsParam(p: Params): number {
  if (p.results === undefined || p.results === '') return DEFAULT_RESULTS;
  const n = Number(p.results);
  if (!Number.isInteger(n) || n < 1 || n > MAX_RESULTS) throw invalidParameter('results');
  return n;
}

/** select_from: a JSON-encoded list in a form field, or a list in a JSON body. */
function selectFromParam(p: Params): string[] | undefined {
  if (p.select_from === undefined || p.select_from === '') return undefined;
  let parsed: unknown = p.select_from;
  if (typeof parsed === 'string') {
    try {
      parsed = JSON.parse(parsed);
    } catch {
      throw invalidParameter('select_from');
    }
  }
  if (!Array.isArray(parsed)) throw invalidParameter('select_from');
  return parsed.map(String);
}

const recommendation = (p: Params, number: number): RecommendationRequest =>
  ({ scope: SCOPE, number, selectFrom: selectFromParam(p), fields: new Set(), minimumWords: MIN_RECOGNISED_WORDS });

const distances = (answer: Pick<Recommendations, 'results'>) =>
  answer.results.map((i) => ({ distance: 1 - ('similarity' in i ? i.similarity : i.score), document_id: i.id }));

export const v1Routes: RouteDef[] = [
  route('POST', '/add', async (req) => {
    const p = params(req);
    const id = required(p.document_id, 'document_id');
    const text = required(p.text, 'text');
    return ok(record(await req.tenant.documents.createDocument({ text, meta: p.meta }, { id, scope: SCOPE, minimumWords: MIN_RECOGNISED_WORDS })));
  }, writes),
  route('POST', '/delete', async (req) =>
    ok(record(await req.tenant.documents.deleteDocument(required(params(req).document_id, 'document_id'), SCOPE))), writes),
  route('POST', '/delete-all', async (req) => {
    await req.tenant.deleteAllData();
    return ok({});
  }, { responses: { 200: emptyObject } }),
  route('GET', '/fetch', async (req) =>
    ok(record(await req.tenant.documents.readDocument(required(params(req).document_id, 'document_id'), { scope: SCOPE, fields: V1_FIELDS }))), writes),
  route('GET', '/list', async (req) => ok(await req.tenant.documents.documentIds()), { responses: { 200: idsResponse } }),
  route('POST', '/recommend-by-id', async (req) => {
    const p = params(req);
    const id = required(p.document_id, 'document_id');
    const number = resultsParam(p);
    const others = await req.tenant.recommendations.similarToIds([id], recommendation(p, number - 1));
    // As the original did: the document itself comes first, at distance 0.
    return ok(distances({ results: [{ id, similarity: 1 }, ...others.results] }));
  }, distanceSchemas),
  route('POST', '/recommend-by-text', async (req) => {
    const p = params(req);
    const text = required(p.text, 'text');
    return ok(distances(await req.tenant.recommendations.similarToText(text, recommendation(p, resultsParam(p)))));
  }, distanceSchemas),
  route('POST', '/update-meta', async (req) => {
    const p = params(req);
    const id = required(p.document_id, 'document_id');
    const meta = p.meta ?? required(undefined, 'meta');
    return ok(record(await req.tenant.documents.updateDocument(id, { meta }, { scope: SCOPE })));
  }, writes),
  route('POST', '/update-text', async (req) => {
    const p = params(req);
    const id = required(p.document_id, 'document_id');
    const text = required(p.text, 'text');
    return ok(record(await req.tenant.documents.updateDocument(id, { text }, { scope: SCOPE, minimumWords: MIN_RECOGNISED_WORDS })));
  }, writes),
];

export const v1: ApiVersion = {
  name: 'v1',
  keySource: 'query',
  routes: v1Routes,
  renderError,
  pathNotFound: () => new KindredError('route_not_found', 'Resource not found'),
};
