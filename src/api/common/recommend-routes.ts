import { badRequest } from '../../errors';
import type { RequestContext, RouteDef, Schema } from '../../http/route';
import * as recommend from '../../services/recommend';
import type { Similar } from '../../index/content';
import { anyId, documentViews, ok, route, type IdParam } from './handlers';
import type { Dialect } from './dialect';
import { parseFields, type DocumentField } from './fields';
import { objectQuery } from './schemas';

const numberSchema: Schema = { type: 'integer', minimum: 1, maximum: recommend.MAX_NUMBER, default: recommend.DEFAULT_NUMBER };
const idList: Schema = { type: 'array', items: { type: ['string', 'integer'] } };
const textSchema: Schema = { type: 'string', minLength: 1 };

/** Lists of ids may come as repeated parameters, `name[]` parameters or comma-separated values. */
export function idListOf(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const items = Array.isArray(value) ? value : [value];
  return items.flatMap((item) => String(item).split(',')).map((s) => s.trim()).filter(Boolean);
}

export interface RecommendRoutesOptions {
  d: Dialect;
  /** Whether `filter` is accepted (v6). */
  filter: boolean;
  /** v3's expand_meta: each item also carries the document's meta. */
  expandMeta: boolean;
  fieldsDefault: readonly DocumentField[];
  /** POST /documents/similar-to-ids (not in v3 or v2). */
  similarToIds: boolean;
  idParam?: IdParam;
}

type Options = RecommendRoutesOptions;

/** select_from and exclude are honoured by both recommenders (the spec reserves them to the hybrid one on v6's similar; honouring them there too breaks no client). */
function candidateOptions(o: Options, input: Record<string, unknown>): recommend.CandidateOptions {
  if (!o.filter && input.filter !== undefined) throw badRequest('filter is not available in this version');
  return {
    number: input.number as number | undefined,
    filter: o.filter ? (input.filter as string | undefined) : undefined,
    selectFrom: idListOf(input.select_from),
    exclude: idListOf(input.exclude),
    visible: (id) => o.d.visible(id),
  };
}

/** `{id, similarity}` items, with the requested document fields (or v3's meta). */
async function similarItems(o: Options, req: RequestContext, items: Similar[], input: Record<string, unknown>) {
  const fields = o.expandMeta && input.expand_meta === true ? new Set<DocumentField>(['meta']) : parseFields(input.fields, o.d.fields, o.fieldsDefault);
  if (fields.size === 0) return items.map((i) => ({ id: o.d.id(i.id), similarity: i.similarity }));
  const docs = await req.tenant.store.documents.getMany(items.map((i) => i.id));
  const present = docs.filter((doc) => doc !== undefined);
  const views = new Map((await documentViews(o.d, req, present, fields)).map((v, i) => [present[i].id, v]));
  return items.filter((i) => views.has(i.id)).map((i) => {
    const { id: _id, created_at: _c, updated_at: _u, ...extra } = views.get(i.id)!;
    return { id: o.d.id(i.id), similarity: i.similarity, ...extra };
  });
}

const queryOf = (req: RequestContext) => req.query;
const bodyOf = (req: RequestContext) => req.body as Record<string, unknown>;

export function recommendRoutes(o: Options): RouteDef[] {
  const common: Record<string, Schema> = {
    number: numberSchema, fields: { type: 'string' }, expand_meta: { type: 'boolean' },
    ...(o.filter ? { filter: { type: 'string' } } : {}),
  };
  const select: Record<string, Schema> = { select_from: idList, exclude: idList };
  const id = o.idParam ?? anyId;
  const routes = [
    route('GET', '/documents/:id/similar', async (req) => {
      const items = await recommend.similarToDocument(req.tenant, id(req.params.id), candidateOptions(o, queryOf(req)));
      return ok(await similarItems(o, req, items, queryOf(req)));
    }, { query: objectQuery({ ...common, ...select }) }),
    route('POST', '/documents/similar-to-text', async (req) => {
      const body = bodyOf(req);
      const items = await recommend.similarToText(req.tenant, body.text as string, candidateOptions(o, body));
      return ok(await similarItems(o, req, items, body));
    }, { body: objectQuery({ ...common, text: textSchema, select_from: idList }, ['text']) }),
    route('GET', '/users/:id/recommendations', async (req) => {
      const items = await recommend.contentRecommendationsForUser(req.tenant, id(req.params.id), candidateOptions(o, queryOf(req)));
      return ok(await similarItems(o, req, items, queryOf(req)));
    }, { query: objectQuery({ ...common, ...select }) }),
  ];
  if (o.similarToIds) {
    routes.push(route('POST', '/documents/similar-to-ids', async (req) => {
      const body = bodyOf(req);
      const items = await recommend.similarToIds(req.tenant, body.ids as string[], candidateOptions(o, body));
      return ok(await similarItems(o, req, items, body));
    }, { body: objectQuery({ ...common, ...select, ids: { ...idList, minItems: 1, maxItems: 1000 } }, ['ids']) }));
  }
  return routes;
}

export function tagSuggestionRoutes(): RouteDef[] {
  return [
    route('GET', '/documents/:id/tags/suggested', async (req) =>
      ok({ results: await recommend.suggestTagsForDocument(req.tenant, req.params.id, req.query.number as number) }),
    { query: objectQuery({ number: numberSchema }) }),
    route('POST', '/tags/recommend-by-text', async (req) => {
      const body = bodyOf(req);
      return ok({ results: await recommend.suggestTagsForText(req.tenant, body.text as string, body.number as number) });
    }, { body: objectQuery({ text: textSchema, number: numberSchema }, ['text']) }),
  ];
}
