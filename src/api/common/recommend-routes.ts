import { Type, type Static } from 'typebox';
import { badRequest } from '../../errors';
import type { RequestContext, RouteDef } from '../../http/route';
import type * as hybrid from '../../services/hybrid';
import * as recommend from '../../services/recommend';
import type { HybridAnswer } from '../../models/hybrid/recommender';
import { anyId, documentViews, ok, route, type IdParam } from './handlers';
import type { Dialect } from './dialect';
import { parseFields, type DocumentField } from './fields';
import { fieldsQuery, idList, onlyIf } from './schemas';

const numberParam = Type.Optional(Type.Integer({ minimum: 1, maximum: recommend.MAX_NUMBER, default: recommend.DEFAULT_NUMBER }));
const textParam = Type.String({ minLength: 1 });

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
  /** The hybrid recommender's response style, or false where the version has none (v2). */
  hybrid: 'v6' | 'v3' | false;
  idParam?: IdParam;
}

type Options = RecommendRoutesOptions;

/** Every parameter a recommendation route may take; each route's schema holds the ones its version has. */
const commonParams = (o: Options) => ({
  number: numberParam,
  fields: Type.Optional(fieldsQuery),
  expand_meta: Type.Optional(Type.Boolean()),
  ...onlyIf(o.filter, { filter: Type.Optional(Type.String()) }),
});
const selectParams = { select_from: Type.Optional(idList), exclude: Type.Optional(idList) };
const hybridParams = (o: Options) => onlyIf(o.hybrid !== false, {
  use_hybrid: Type.Optional(Type.Boolean({ default: false })),
  unseen_only: Type.Optional(Type.Boolean({ default: true })),
  user_id: Type.Optional(Type.String()),
});
const allParams = (o: Options) => Type.Object({ ...commonParams(o), ...selectParams, ...hybridParams(o) });
type Params = Static<ReturnType<typeof allParams>>;

/** select_from and exclude are honoured by both recommenders (the spec reserves them to the hybrid one on v6's similar; honouring them there too breaks no client). */
function candidateOptions(o: Options, input: Params): recommend.CandidateOptions {
  if (!o.filter && input.filter !== undefined) throw badRequest('filter is not available in this version');
  return {
    number: input.number,
    filter: o.filter ? input.filter : undefined,
    selectFrom: idListOf(input.select_from),
    exclude: idListOf(input.exclude),
    visible: o.d.showsEveryDocument ? undefined : (id) => o.d.visible(id),
  };
}

/** Result items (`{id, similarity}` or `{id, score}`) with the requested document fields (or v3's meta). */
async function withFields<T extends { id: string }>(o: Options, req: RequestContext, items: T[], input: Params) {
  const fields = o.expandMeta && input.expand_meta === true ? new Set<DocumentField>(['meta']) : parseFields(input.fields, o.d.fields, o.fieldsDefault);
  if (fields.size === 0) return items.map((i) => ({ ...i, id: o.d.id(i.id) }));
  const present = await req.tenant.documents.presentDocuments(items.map((i) => i.id));
  const views = new Map((await documentViews(o.d, req, present, fields)).map((v, i) => [present[i].id, v]));
  return items.filter((i) => views.has(i.id)).map((i) => {
    const { id: _id, created_at: _c, updated_at: _u, ...extra } = views.get(i.id)!;
    return { ...i, id: o.d.id(i.id), ...extra };
  });
}

const similarItems = (o: Options, req: RequestContext, items: recommend.Similar[], input: Params) => withFields(o, req, items, input);

/** The hybrid answer in the version's shape: v6/v5 list `document_ids`/`user_ids`; v3 and similar-to-ids use recognised/unrecognised. */
async function hybridBody(o: Options, req: RequestContext, answer: HybridAnswer, input: Params, idsStyle: boolean) {
  const results = await withFields(o, req, answer.results, input);
  const docs = answer.recognisedDocuments.map((r) => ({ id: o.d.id(r.id), recognised: r.recognised }));
  const user = answer.recognisedUser;
  if (o.hybrid === 'v6' && !idsStyle) {
    return { results, document_ids: docs, user_ids: user ? [{ id: o.d.id(user.id), recognised: user.recognised }] : [] };
  }
  const recognised: Record<string, unknown> = {};
  const unrecognised: Record<string, unknown> = {};
  if (user) (user.recognised ? recognised : unrecognised).user_id = o.d.id(user.id);
  const known = docs.filter((r) => r.recognised).map((r) => r.id);
  const unknown = docs.filter((r) => !r.recognised).map((r) => r.id);
  const single = !idsStyle && docs.length === 1;
  if (known.length) recognised.document_id = single ? known[0] : known;
  if (unknown.length) unrecognised.document_id = single ? unknown[0] : unknown;
  return { results, recognised, unrecognised };
}

function hybridOptions(input: Params): hybrid.HybridOptions {
  if (input.filter !== undefined) throw badRequest('filter can be used only with the content-based recommender (use_hybrid=false)');
  return {
    number: input.number,
    selectFrom: idListOf(input.select_from),
    exclude: idListOf(input.exclude),
    userId: input.user_id,
    unseenOnly: input.unseen_only,
  };
}

const useHybrid = (o: Options, input: Params) => o.hybrid !== false && input.use_hybrid === true;

export function recommendRoutes(o: Options): RouteDef[] {
  const common = commonParams(o);
  const id = o.idParam ?? anyId;
  const routes = [
    route('GET', '/documents/:id/similar', async (req) => {
      const input = req.query;
      if (useHybrid(o, input)) {
        const answer = await req.tenant.hybrid.hybridSimilar([id(req.params.id)], hybridOptions(input));
        return ok(await hybridBody(o, req, answer, input, false));
      }
      const items = await req.tenant.recommend.similarToDocument(id(req.params.id), candidateOptions(o, input));
      return ok(await similarItems(o, req, items, input));
    }, { query: allParams(o) }),
    route('POST', '/documents/similar-to-text', async (req) => {
      const { body } = req;
      const items = await req.tenant.recommend.similarToText(body.text, candidateOptions(o, body));
      return ok(await similarItems(o, req, items, body));
    }, { body: Type.Object({ ...common, text: textParam, select_from: selectParams.select_from }) }),
    route('GET', '/users/:id/recommendations', async (req) => {
      const input = req.query;
      if (useHybrid(o, input)) {
        const answer = await req.tenant.hybrid.hybridForUser(id(req.params.id), hybridOptions(input));
        return ok(await hybridBody(o, req, answer, input, false));
      }
      const items = await req.tenant.recommend.contentRecommendationsForUser(id(req.params.id), candidateOptions(o, input));
      return ok(await similarItems(o, req, items, input));
    }, { query: allParams(o) }),
  ];
  if (o.hybrid !== false) {
    routes.push(route('GET', '/documents/popular', async (req) => {
      const input = req.query;
      const results = await withFields(o, req, await req.tenant.hybrid.popularDocuments(hybridOptions({ ...input, filter: undefined })), input);
      return ok(o.hybrid === 'v6' ? { results, document_ids: [], user_ids: [] } : { results, recognised: {}, unrecognised: {} });
    }, { query: Type.Object({ number: numberParam, fields: Type.Optional(fieldsQuery), expand_meta: Type.Optional(Type.Boolean()), ...selectParams }) }));
  }
  if (o.similarToIds) {
    routes.push(route('POST', '/documents/similar-to-ids', async (req) => {
      const { body } = req;
      const ids = body.ids.map(String);
      if (useHybrid(o, body)) {
        const answer = await req.tenant.hybrid.hybridSimilar(ids, hybridOptions(body));
        return ok(await hybridBody(o, req, answer, body, true));
      }
      const items = await req.tenant.recommend.similarToIds(ids, candidateOptions(o, body));
      return ok(await similarItems(o, req, items, body));
    }, { body: Type.Object({ ...allParams(o).properties, ids: Type.Unsafe<Array<string | number>>({ ...idList, minItems: 1, maxItems: 1000 }) }) }));
  }
  return routes;
}

export function tagSuggestionRoutes(): RouteDef[] {
  return [
    route('GET', '/documents/:id/tags/suggested', async (req) =>
      ok({ results: await req.tenant.recommend.suggestTagsForDocument(req.params.id, req.query.number) }),
    { query: Type.Object({ number: numberParam }) }),
    route('POST', '/tags/recommend-by-text', async (req) =>
      ok({ results: await req.tenant.recommend.suggestTagsForText(req.body.text, req.body.number) }),
    { body: Type.Object({ text: textParam, number: numberParam }) }),
  ];
}
