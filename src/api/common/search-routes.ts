import { Type } from 'typebox';
import type { Reply, RequestContext, RouteDef } from '../../http/route';
import { documentView, type Dialect } from './dialect';
import { documentViews, ok, route, type DocumentListQuery } from './handlers';
import { parseFields, type DocumentField } from './fields';
import { fieldsQuery } from './schemas';

const DEFAULT_FIELDS: readonly DocumentField[] = ['meta', 'text'];

export function searchRoutes(d: Dialect): RouteDef[] {
  return [
    route('POST', '/documents/by-keyword', async (req) => {
      const { body } = req;
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
    }, { body: Type.Object({ es_query: Type.Unsafe<Record<string, unknown>>({ type: 'object' }), fields: Type.Optional(fieldsQuery) }) }),
    route('POST', '/documents/filtered', async (req) => {
      const { body } = req;
      const fields = parseFields(body.fields, d.fields, DEFAULT_FIELDS);
      const docs = await req.tenant.search.filteredDocuments({
        filter: body.filter, sortByPublishedAt: body.sort_by === 'published_at', sortOrder: body.sort_order ?? 'asc',
        offset: body.offset ?? 0, limit: body.limit ?? 25,
      });
      return ok(await documentViews(d, req, docs, fields));
    }, {
      body: Type.Object({
        fields: Type.Optional(fieldsQuery),
        filter: Type.Optional(Type.String()),
        sort_by: Type.Optional(Type.Unsafe<'published_at'>({ type: 'string', enum: ['published_at'] })),
        sort_order: Type.Optional(Type.Unsafe<'asc' | 'desc'>({ type: 'string', enum: ['asc', 'desc'] })),
        offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
      }),
    }),
  ];
}

/**
 * GET /documents?keywords=... (v5, v3, v2): the 25 most relevant documents, in the version's
 * document shape; undefined (the plain listing) when no keywords are given.
 */
export function keywordListing(d: Dialect, defaults: readonly DocumentField[]) {
  return async (req: RequestContext<DocumentListQuery>): Promise<Reply | undefined> => {
    if (req.query.keywords === undefined) return undefined;
    const fields = parseFields(req.query.fields, d.fields, defaults);
    const searched = String(req.query.keywords_fields ?? 'text,meta.title').split(',').map((s) => s.trim()).filter(Boolean);
    const docs = await req.tenant.search.documentsByKeywords(req.query.keywords, searched);
    return ok(await documentViews(d, req, docs.filter((doc) => d.visible(doc.id)), fields));
  };
}
