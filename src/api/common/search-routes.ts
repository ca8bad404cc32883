import { Type } from 'typebox';
import { ok, route, type RouteDef } from '../../http/route';
import type { DocumentField } from '../../services/shown';
import { documentView, type Dialect } from './dialect';
import { parseFields } from './fields';
import { fieldsQuery } from './schemas';
import { documentList, keywordSearch } from './responses';

const DEFAULT_FIELDS: readonly DocumentField[] = ['meta', 'text'];

const byKeywordBody = Type.Object({ es_query: Type.Record(Type.String(), Type.Unknown()), fields: Type.Optional(fieldsQuery) });

const filteredBody = Type.Object({
  fields: Type.Optional(fieldsQuery),
  filter: Type.Optional(Type.String()),
  sort_by: Type.Optional(Type.Literal('published_at')),
  sort_order: Type.Optional(Type.Enum(['asc', 'desc'])),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
});

export function searchRoutes(d: Dialect): RouteDef[] {
  return [
    route('POST', '/documents/by-keyword', async (req) => {
      const { body } = req;
      const fields = parseFields(body.fields, d.fields, DEFAULT_FIELDS);
      const result = await req.tenant.search.searchByKeyword(body.es_query, [...fields, 'created_at', 'updated_at']);
      const hits = result.hits.hits.map((hit) => {
        const { id, _score, sort, highlight, text, meta, tags, published_at, created_at, updated_at } = hit;
        const view = documentView(d, {
          id, created_at: created_at ?? '', updated_at: updated_at ?? '',
          ...(fields.has('text') ? { text: text ?? '' } : {}),
          ...(fields.has('meta') ? { meta: meta ?? {} } : {}),
          ...(fields.has('published_at') ? { published_at: published_at ?? null } : {}),
          ...(fields.has('tags') ? { tags: tags ?? [] } : {}),
        });
        return { ...view, _score, ...(sort ? { sort } : {}), ...(highlight ? { highlight } : {}) };
      });
      return ok({ hits: { ...result.hits, hits }, aggregations: result.aggregations ?? {} });
    }, { body: byKeywordBody, responses: { 200: keywordSearch(d) } }),
    route('POST', '/documents/filtered', async (req) => {
      const { body } = req;
      const docs = await req.tenant.search.filteredDocuments({
        fields: parseFields(body.fields, d.fields, DEFAULT_FIELDS),
        filter: body.filter, sortByPublishedAt: body.sort_by === 'published_at', sortOrder: body.sort_order ?? 'asc',
        offset: body.offset ?? 0, limit: body.limit ?? 25,
      });
      return ok(docs.map((doc) => documentView(d, doc)));
    }, { body: filteredBody, responses: { 200: documentList(d) } }),
  ];
}
