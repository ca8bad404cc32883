import { ApiError, badRequest } from '../../errors';
import { isRecord, type DocumentRecord } from '../../domain';
import type { ApiVersion, Reply, RequestContext, RouteDef } from '../../http/route';
import { clientStringId } from '../../services/ids';
import * as recommend from '../../services/recommend';
import { ok, route } from '../common/handlers';

/** v1 needs this many recognised words in a text (406 otherwise). */
export const MIN_RECOGNISED_WORDS = 25;
const DEFAULT_RESULTS = 20;
const MAX_RESULTS = 200;

/** v1's error pages: `<code>: <text>` as title and body. */
function htmlError(error: ApiError): Reply {
  const line = `${error.status}: ${error.message}`;
  const escaped = line.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return {
    status: error.status,
    body: `<html><title>${escaped}</title><body>${escaped}</body></html>`,
    headers: { ...error.headers, 'Content-Type': 'text/html; charset=utf-8' },
  };
}

function renderError(error: ApiError): Reply {
  // Authentication is answered by the gateway in front of every version, in JSON.
  if (error.status === 401 || error.status === 403) return { status: error.status, body: { message: error.message } };
  if (error.code === 'route_not_found') return { status: 404, body: { statusCode: 404, message: error.message } };
  if (error.status === 404) return htmlError(new ApiError(404, 'Not Found'));
  return htmlError(error);
}

/** `YYYY-MM-DD HH:MM:SS.ffffff`, v1's timestamp format (UTC). */
export function v1Time(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}000`;
}

const record = (doc: DocumentRecord) => ({ text: doc.text, created_at: v1Time(doc.created_at), meta: JSON.stringify(doc.meta), document_id: doc.id });

/** Parameters come as form fields or in the query string; the body wins. */
function params(req: RequestContext): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...req.query, ...(isRecord(req.body) ? req.body : {}) };
  for (const [key, value] of Object.entries(merged)) if (Array.isArray(value)) merged[key] = value[value.length - 1];
  return merged;
}

function required(p: Record<string, unknown>, name: string): string {
  const value = p[name];
  if (typeof value !== 'string' || value === '') throw badRequest(`${name} is missing`);
  return value;
}

function resultsParam(p: Record<string, unknown>): number {
  if (p.results === undefined || p.results === '') return DEFAULT_RESULTS;
  const n = Number(p.results);
  if (!Number.isInteger(n) || n < 1 || n > MAX_RESULTS) throw badRequest('results is invalid');
  return n;
}

function selectFromParam(p: Record<string, unknown>): string[] | undefined {
  if (p.select_from === undefined || p.select_from === '') return undefined;
  let parsed: unknown = p.select_from;
  if (typeof parsed === 'string') {
    try {
      parsed = JSON.parse(parsed);
    } catch {
      throw badRequest('select_from is invalid');
    }
  }
  if (!Array.isArray(parsed)) throw badRequest('select_from is invalid');
  return parsed.map(String);
}

function requireRecognised(text: string): void {
  if (recommend.recognisedWords(text, MIN_RECOGNISED_WORDS) < MIN_RECOGNISED_WORDS) throw new ApiError(406, 'less than 25 words recognized', {}, 'too_few_words');
}

/** v1's ids are client strings: any non-empty string (docs/decisions.md). */
const requireDocument = (req: RequestContext, id: string): Promise<DocumentRecord> => req.tenant.documents.getDocument(id, clientStringId);

const distances = (items: Array<{ id: string; similarity: number }>) =>
  items.map((i) => ({ distance: 1 - i.similarity, document_id: i.id }));

export const v1Routes: RouteDef[] = [
  route('POST', '/add', async (req) => {
    const p = params(req);
    const id = required(p, 'document_id');
    const text = required(p, 'text');
    requireRecognised(text);
    try {
      return ok(record(await req.tenant.documents.createDocument({ text, meta: p.meta }, id, clientStringId)));
    } catch (error) {
      if (error instanceof ApiError && error.code === 'already_exists') throw new ApiError(409, `id already exists! document_id ${id}`, {}, error.code);
      throw error;
    }
  }),
  route('POST', '/delete', async (req) => ok(record(await req.tenant.documents.deleteDocument(required(params(req), 'document_id'), clientStringId)))),
  route('POST', '/delete-all', async (req) => {
    await req.tenant.deleteAllData();
    return ok({});
  }),
  route('GET', '/fetch', async (req) => ok(record(await requireDocument(req, required(params(req), 'document_id'))))),
  route('GET', '/list', async (req) => ok(await req.tenant.documents.documentIds())),
  route('POST', '/recommend-by-id', async (req) => {
    const p = params(req);
    const doc = await requireDocument(req, required(p, 'document_id'));
    const number = resultsParam(p);
    const others = await req.tenant.recommend.similarToIds([doc.id], { number: number - 1, selectFrom: selectFromParam(p) });
    // As the original did: the document itself comes first, at distance 0.
    return ok(distances([{ id: doc.id, similarity: 1 }, ...others]));
  }),
  route('POST', '/recommend-by-text', async (req) => {
    const p = params(req);
    const text = required(p, 'text');
    requireRecognised(text);
    return ok(distances(await req.tenant.recommend.similarToText(text, { number: resultsParam(p), selectFrom: selectFromParam(p) })));
  }),
  route('POST', '/update-meta', async (req) => {
    const p = params(req);
    const id = required(p, 'document_id');
    await requireDocument(req, id);
    return ok(record(await req.tenant.documents.updateDocument(id, { meta: p.meta ?? required(p, 'meta') }, clientStringId)));
  }),
  route('POST', '/update-text', async (req) => {
    const p = params(req);
    const id = required(p, 'document_id');
    const text = required(p, 'text');
    await requireDocument(req, id);
    requireRecognised(text);
    return ok(record(await req.tenant.documents.updateDocument(id, { text }, clientStringId)));
  }),
];

export const v1: ApiVersion = {
  name: 'v1',
  keySource: 'query',
  routes: v1Routes,
  renderError,
  pathNotFound: () => new ApiError(404, 'Resource not found', {}, 'route_not_found'),
};
