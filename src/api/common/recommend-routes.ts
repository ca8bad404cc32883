import { Type } from 'typebox';
import { ok, route, type RouteDef } from '../../http/route';
import * as recommendations from '../../services/recommendations';
import type { DocumentField } from '../../services/shown';
import { documentView, type Dialect } from './dialect';
import { parseFields } from './fields';
import { fieldsQuery, idList, onlyIf, unsupported } from './schemas';
import { contentRecommendations, hybridRecommendations, recommendations as recommendationsResponse, tagSuggestions } from './responses';
import type { TProperties } from 'typebox';

const numberParam = Type.Optional(Type.Integer({ minimum: 1, maximum: recommendations.MAX_NUMBER, default: recommendations.DEFAULT_NUMBER }));
const textParam = Type.String({ minLength: 1 });

/** Lists of ids may come as repeated parameters, `name[]` parameters or comma-separated values. */
export function idListOf(value: ReadonlyArray<string | number> | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value.flatMap((item) => String(item).split(',')).map((s) => s.trim()).filter(Boolean);
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
}

type Options = RecommendRoutesOptions;

/** Every parameter a recommendation route may take; each route's schema holds the ones its version has. */
const commonParams = (o: Options) => ({
  number: numberParam,
  fields: Type.Optional(fieldsQuery),
  // A version without `filter` refuses it rather than ignoring it: ignoring would answer unfiltered results.
  filter: Type.Optional(o.filter ? Type.String() : unsupported()),
});
const selectParams = { select_from: Type.Optional(idList), exclude: Type.Optional(idList) };
const hybridParams = {
  use_hybrid: Type.Optional(Type.Boolean({ default: false })),
  unseen_only: Type.Optional(Type.Boolean({ default: true })),
  user_id: Type.Optional(Type.String()),
};
/** v3's expand_meta: each item also carries the document's meta. */
const expandMeta = { expand_meta: Type.Optional(Type.Boolean()) };
/** The common parameters, with v3's expand_meta where the version has it. */
const withCommon = <P extends TProperties>(o: Options, properties: P) => onlyIf(o.expandMeta, expandMeta, { ...commonParams(o), ...properties });
/** The parameters of a route that either recommender may answer (the hybrid one where the version has it; v3 has expand_meta too). */
function eitherRecommender<P extends TProperties>(o: Options, properties: P) {
  const base = { ...commonParams(o), ...selectParams, ...properties };
  return o.expandMeta ? Type.Object({ ...base, ...hybridParams, ...expandMeta }) : onlyIf(o.hybrid !== false, hybridParams, base);
}

/** What any recommendation route's validated parameters may hold. */
interface RecommendParams {
  number?: number;
  fields?: string;
  filter?: string;
  expand_meta?: boolean;
  select_from?: Array<string | number>;
  exclude?: Array<string | number>;
  use_hybrid?: boolean;
  unseen_only?: boolean;
  user_id?: string;
}

/** The request's parameters as the recommendation service takes them. */
function requestOf(o: Options, input: RecommendParams): recommendations.RecommendationRequest {
  return {
    scope: o.d.scope,
    fields: input.expand_meta === true ? new Set<DocumentField>(['meta']) : parseFields(input.fields, o.d.fields, o.fieldsDefault),
    number: input.number,
    filter: input.filter,
    selectFrom: idListOf(input.select_from),
    exclude: idListOf(input.exclude),
    hybrid: input.use_hybrid === true ? { userId: input.user_id, unseenOnly: input.unseen_only } : undefined,
  };
}

/** One result in the version's shape: its id and score, then the document's fields asked for. */
function resultView(d: Dialect, item: recommendations.Recommended) {
  const { shown, ...scored } = item;
  const view = { ...scored, id: d.id(item.id) };
  if (!shown) return view;
  const { id: _id, created_at: _c, updated_at: _u, ...fields } = documentView(d, shown);
  return { ...view, ...fields };
}

/**
 * The answer in the version's shape: the content-based recommender's is a list; the hybrid one's lists
 * `document_ids`/`user_ids` (v6/v5) or recognised/unrecognised ids (v3, and similar-to-ids everywhere).
 */
function answerView(o: Options, answer: recommendations.Recommendations, idsStyle = false) {
  const results = answer.results.map((item) => resultView(o.d, item));
  if (answer.recommender === 'content') return results;
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

export function recommendRoutes(o: Options): RouteDef[] {
  const either = { 200: recommendationsResponse(o.d, o.hybrid !== false) };
  const routes = [
    route('GET', '/documents/:id/similar', async (req) =>
      ok(answerView(o, await req.tenant.recommendations.similarToDocument(req.params.id, requestOf(o, req.query)))),
    { query: eitherRecommender(o, {}), responses: either }),
    route('POST', '/documents/similar-to-text', async (req) =>
      ok(answerView(o, await req.tenant.recommendations.similarToText(req.body.text, requestOf(o, req.body)))),
    { body: withCommon(o, { text: textParam, select_from: selectParams.select_from }), responses: { 200: contentRecommendations(o.d) } }),
    route('GET', '/users/:id/recommendations', async (req) =>
      ok(answerView(o, await req.tenant.recommendations.forUser(req.params.id, requestOf(o, req.query)))),
    { query: eitherRecommender(o, {}), responses: either }),
  ];
  if (o.hybrid !== false) {
    routes.push(route('GET', '/documents/popular', async (req) => {
      const answer = await req.tenant.recommendations.popular(requestOf(o, req.query));
      const results = answer.results.map((item) => resultView(o.d, item));
      return ok(o.hybrid === 'v6' ? { results, document_ids: [], user_ids: [] } : { results, recognised: {}, unrecognised: {} });
    }, { query: onlyIf(o.expandMeta, expandMeta, { number: numberParam, fields: Type.Optional(fieldsQuery), ...selectParams }), responses: { 200: hybridRecommendations(o.d) } }));
  }
  if (o.similarToIds) {
    routes.push(route('POST', '/documents/similar-to-ids', async (req) =>
      ok(answerView(o, await req.tenant.recommendations.similarToIds(req.body.ids.map(String), requestOf(o, req.body)), true)),
    { body: eitherRecommender(o, { ids: Type.Array(Type.Union([Type.String(), Type.Integer()]), { minItems: 1, maxItems: 1000 }) }), responses: either }));
  }
  return routes;
}

export function tagSuggestionRoutes(): RouteDef[] {
  return [
    route('GET', '/documents/:id/tags/suggested', async (req) =>
      ok({ results: await req.tenant.recommendations.suggestTagsForDocument(req.params.id, req.query.number) }),
    { query: Type.Object({ number: numberParam }), responses: { 200: tagSuggestions } }),
    route('POST', '/tags/recommend-by-text', async (req) =>
      ok({ results: await req.tenant.recommendations.suggestTagsForText(req.body.text, req.body.number) }),
    { body: Type.Object({ text: textParam, number: numberParam }), responses: { 200: tagSuggestions } }),
  ];
}
