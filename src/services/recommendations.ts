import { KindredError } from '../errors';
import type { TenantContext } from './context';
import { requireWords } from './documents';
import * as hybrid from './hybrid';
import { scopeRules, type IdScope } from './ids';
import * as content from './recommend';
import { presentDocuments, showDocuments, type DocumentField, type ShownDocument } from './shown';

/**
 * Recommendations as routes ask for them: the service picks the content-based or the hybrid recommender
 * (`hybrid` given or not), applies the version's id scope and returns each result with the fields asked for.
 */
export interface RecommendationRequest {
  scope?: IdScope;
  /** Stored fields shown beside each result; with none, results whose document is gone stay in. */
  fields: ReadonlySet<DocumentField>;
  number?: number;
  selectFrom?: string[];
  exclude?: string[];
  /** The filter grammar (content-based recommender only). */
  filter?: string;
  /** Present: the hybrid recommender answers (`use_hybrid=true`). */
  hybrid?: { userId?: string; unseenOnly?: boolean };
  /** v1: a text needs this many words. */
  minimumWords?: number;
}

export type Scored = { id: string; similarity: number } | { id: string; score: number };
export type Recommended = Scored & { shown?: ShownDocument };

export interface Recognition {
  id: string;
  recognised: boolean;
}

export interface Recommendations {
  recommender: 'content' | 'hybrid';
  results: Recommended[];
  /** The hybrid recommender's word on the documents and user asked about (empty for the content-based one). */
  recognisedDocuments: Recognition[];
  recognisedUser?: Recognition;
}

/** Results with the documents' fields; results whose document is gone are left out when fields are asked for. */
async function withFields<T extends Scored>(ctx: TenantContext, items: T[], fields: ReadonlySet<DocumentField>): Promise<Array<T & { shown?: ShownDocument }>> {
  if (fields.size === 0) return items;
  const shown = new Map((await showDocuments(ctx, await presentDocuments(ctx, items.map((i) => i.id)), fields)).map((s) => [s.id, s]));
  return items.flatMap((item) => {
    const doc = shown.get(item.id);
    return doc ? [{ ...item, shown: doc }] : [];
  });
}

function candidateOptions(request: RecommendationRequest): content.CandidateOptions {
  return {
    number: request.number,
    filter: request.filter,
    selectFrom: request.selectFrom,
    exclude: request.exclude,
    visible: scopeRules(request.scope).shows,
  };
}

function hybridOptions(request: RecommendationRequest, asked: NonNullable<RecommendationRequest['hybrid']>): hybrid.HybridOptions {
  if (request.filter !== undefined) throw new KindredError('unsupported_parameter', 'filter can be used only with the content-based recommender (use_hybrid=false)');
  return { number: request.number, selectFrom: request.selectFrom, exclude: request.exclude, userId: asked.userId, unseenOnly: asked.unseenOnly };
}

async function contentAnswer(ctx: TenantContext, items: content.Similar[], request: RecommendationRequest): Promise<Recommendations> {
  return { recommender: 'content', results: await withFields(ctx, items, request.fields), recognisedDocuments: [] };
}

async function hybridAnswer(ctx: TenantContext, answer: hybrid.HybridAnswer, request: RecommendationRequest): Promise<Recommendations> {
  return { ...answer, recommender: 'hybrid', results: await withFields(ctx, answer.results, request.fields) };
}

const checkIds = (ids: readonly string[], scope: IdScope | undefined) => ids.map((id) => scopeRules(scope).check('document', id));

/** GET /documents/:id/similar */
export async function similarToDocument(ctx: TenantContext, id: string, request: RecommendationRequest): Promise<Recommendations> {
  checkIds([id], request.scope);
  if (request.hybrid) return hybridAnswer(ctx, await hybrid.hybridSimilar(ctx, [id], hybridOptions(request, request.hybrid)), request);
  return contentAnswer(ctx, await content.similarToDocument(ctx, id, candidateOptions(request)), request);
}

/** POST /documents/similar-to-ids (and v1's recommend-by-id) */
export async function similarToIds(ctx: TenantContext, ids: string[], request: RecommendationRequest): Promise<Recommendations> {
  checkIds(ids, request.scope);
  if (request.hybrid) return hybridAnswer(ctx, await hybrid.hybridSimilar(ctx, ids, hybridOptions(request, request.hybrid)), request);
  return contentAnswer(ctx, await content.similarToIds(ctx, ids, candidateOptions(request)), request);
}

/** POST /documents/similar-to-text (content-based only) */
export async function similarToText(ctx: TenantContext, text: string, request: RecommendationRequest): Promise<Recommendations> {
  if (request.minimumWords !== undefined) requireWords(text, request.minimumWords);
  return contentAnswer(ctx, await content.similarToText(ctx, text, candidateOptions(request)), request);
}

/** GET /users/:id/recommendations */
export async function forUser(ctx: TenantContext, userId: string, request: RecommendationRequest): Promise<Recommendations> {
  scopeRules(request.scope).check('user', userId);
  if (request.hybrid) return hybridAnswer(ctx, await hybrid.hybridForUser(ctx, userId, hybridOptions(request, request.hybrid)), request);
  return contentAnswer(ctx, await content.contentRecommendationsForUser(ctx, userId, candidateOptions(request)), request);
}

/** GET /documents/popular (the hybrid recommender's popularity) */
export async function popular(ctx: TenantContext, request: RecommendationRequest): Promise<Recommendations> {
  const results = await hybrid.popularDocuments(ctx, { number: request.number, selectFrom: request.selectFrom, exclude: request.exclude });
  return { recommender: 'hybrid', results: await withFields(ctx, results, request.fields), recognisedDocuments: [] };
}

export { suggestTagsForDocument, suggestTagsForText, DEFAULT_NUMBER, MAX_NUMBER, type TagSuggestion } from './recommend';
