import type { Reply, RequestContext, RouteDef } from '../../http/route';
import * as search from '../../services/search';
import { documentView, type Dialect } from './dialect';
import { documentViews, ok, route } from './handlers';
import { parseFields, type DocumentField } from './fields';
import { objectQuery } from './schemas';

const DEFAULT_FIELDS: readonly DocumentField[] = ['meta', 'text'];

export function searchRoutes(d: Dialect): RouteDef[] {
  return [
    route('POST', '/documents/by-keyword', async (req) => {
      const body = req.body as { es_query: unknown; fields?: string };
      const fields = parseFields(body.fields, d.fields, DEFAULT_FIELDS);
      const result = await req.tenant.search.searchByKeyword(body.es_query, [...fields, 'created_at', 'updated_at']);
      const hits = result.hits.hits.map((hit) => {
        const { id, _score, sort, highlight, text, meta, tags, published_at, created_at, updated_at } = hit;
        const view = documentView(d, {
          id, text: text ?? '', meta: meta ?? {}, published_at: published_at ?? null, created_at: created_at ?? '', updated_at: updated_at ?? '',
        }, fields, tags ?? []);
        return { ...view, _score, ...(sort ? { sort } : {}), ...(highlight ? { highlight } : {}) };
      });
      return ok({ hits: { ...result.hits, hits }, aggregations: result.aggregations ?? {} });
    }, { body: objectQuery({ es_query: { type: 'object' }, fields: { type: 'string' } }, ['es_query']) }),
    route('POST', '/documents/filtered', async (req) => {
      const body = req.body as { fields?: string; filter?: string; sort_by?: string; sort_order?: 'asc' | 'desc'; offset: number; limit: number };
      const fields = parseFields(body.fields, d.fields, DEFAULT_FIELDS);
      const docs = await req.tenant.search.filteredDocuments({
        filter: body.filter, sortByPublishedAt: body.sort_by === 'published_at', sortOrder: body.sort_order ?? 'asc',
        offset: body.offset, limit: body.limit,
      });
      return ok(await documentViews(d, req, docs, fields));
    }, {
      body: objectQuery({
        fields: { type: 'string' },
        filter: { type: 'string' },
        sort_by: { type: 'string', enum: ['published_at'] },
        sort_order: { type: 'string', enum: ['asc', 'desc'] },
        offset: { type: 'integer', minimum: 0, default: 0 },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
      }),
    }),
  ];
}

/**
 * GET /documents?keywords=... (v5, v3, v2): the 25 most relevant documents, in the version's
 * document shape; undefined (the plain listing) when no keywords are given.
 */
export function keywordListing(d: Dialect, defaults: readonly DocumentField[]) {
  return async (req: RequestContext): Promise<Reply | undefined> => {
    if (typeof req.query.keywords !== 'string') return undefined;
    const fields = parseFields(req.query.fields, d.fields, defaults);
    const searched = String(req.query.keywords_fields ?? 'text,meta.title').split(',').map((s) => s.trim()).filter(Boolean);
    const docs = await req.tenant.search.documentsByKeywords(req.query.keywords, searched);
    return ok(await documentViews(d, req, docs.filter((doc) => d.visible(doc.id)), fields));
  };
}

export const keywordListingQuery = { keywords: { type: 'string' }, keywords_fields: { type: 'string' } };
