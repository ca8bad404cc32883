import { notFound } from '../errors';
import { candidateIds, matches } from '../index/filter';
import { requestFilter } from './filter';
import type { SearchLimits, Similar } from '../index/content';
import type { TenantIndexes } from '../index/indexes';
import { ALL } from '../storage';
import type { TenantContext } from './context';
import { getDocument } from './documents';
import { getUser } from './users';

export type { Similar };

export const DEFAULT_NUMBER = 10;
export const MAX_NUMBER = 1000;
/** A user's most recent preferences that make up their content profile. */
const PROFILE_SIZE = 100;
/** Neighbours whose tags vote in a tag suggestion. */
const TAG_NEIGHBOURS = 30;

export interface CandidateOptions {
  number?: number;
  exclude?: string[];
  selectFrom?: string[];
  filter?: string;
  /** Only documents a version can show (v2: integer ids). */
  visible?: (id: string) => boolean;
}

/** Turns select_from, exclude and filter into the limits of one vector search. */
export function searchLimits(indexes: TenantIndexes, options: CandidateOptions, alsoExclude: Iterable<string> = []): SearchLimits {
  const exclude = new Set([...alsoExclude, ...(options.exclude ?? [])]);
  let allow: SearchLimits['allow'];
  if (options.filter !== undefined) {
    const filter = requestFilter(options.filter);
    const { facts } = indexes;
    const candidates = candidateIds(filter, (tag) => facts.documentsTagged(tag));
    if (candidates) {
      allow = new Set([...candidates].filter((id) => matches(filter, facts.of(id))));
    } else {
      allow = (id: string) => matches(filter, facts.of(id));
    }
  }
  if (options.visible) {
    const visible = options.visible;
    const narrowed = allow;
    allow = narrowed === undefined ? visible
      : narrowed instanceof Set ? new Set([...narrowed].filter(visible))
        : (id: string) => visible(id) && (narrowed as (id: string) => boolean)(id);
  }
  if (options.selectFrom) {
    const select = new Set(options.selectFrom);
    const narrowed = allow;
    allow = narrowed === undefined ? select
      : narrowed instanceof Set ? new Set([...select].filter((id) => narrowed.has(id)))
        : new Set([...select].filter((id) => (narrowed as (id: string) => boolean)(id)));
  }
  return { exclude, allow };
}

async function requireDocuments(ctx: TenantContext, ids: string[]): Promise<void> {
  const indexes = ctx.indexes();
  await indexes.caughtUp({ facts: false });
  // Caught up, the content index holds only stored documents: storage is asked about the others alone, not read
  // once per query (docs/decisions/throughput.md, "Eleventh session").
  const others = ids.filter((id) => !indexes.content.holds(id));
  if (others.length > 0 && (await ctx.store.documents.existMany(others)).includes(false)) throw notFound('Document');
}

/** Documents like stored ones (read from the index: their vectors and terms as stored). */
async function similarToDocuments(ctx: TenantContext, ids: string[], options: CandidateOptions, alsoExclude: Iterable<string>): Promise<Similar[]> {
  const indexes = ctx.indexes();
  // Facts (tags, publication times) matter only to a filter.
  await indexes.caughtUp({ facts: options.filter !== undefined });
  return indexes.content.similar({ ids }, options.number ?? DEFAULT_NUMBER, searchLimits(indexes, options, alsoExclude));
}

export async function similarToDocument(ctx: TenantContext, id: string, options: CandidateOptions): Promise<Similar[]> {
  await requireDocuments(ctx, [id]);
  return similarToDocuments(ctx, [id], options, [id]);
}

export async function similarToIds(ctx: TenantContext, ids: string[], options: CandidateOptions): Promise<Similar[]> {
  const unique = [...new Set(ids)];
  await requireDocuments(ctx, unique);
  return similarToDocuments(ctx, unique, options, ids);
}

export async function similarToText(ctx: TenantContext, text: string, options: CandidateOptions): Promise<Similar[]> {
  const indexes = ctx.indexes();
  // Facts (tags, publication times) matter only to a filter.
  await indexes.caughtUp({ facts: options.filter !== undefined });
  return indexes.content.similar({ texts: [text] }, options.number ?? DEFAULT_NUMBER, searchLimits(indexes, options));
}

/** Documents like the ones the user preferred (the most recent ones), never one they have seen. */
export async function contentRecommendationsForUser(ctx: TenantContext, userId: string, options: CandidateOptions): Promise<Similar[]> {
  await getUser(ctx, userId);
  const preferred = await ctx.store.preferences.secondsOf(userId);
  if (preferred.length === 0) return [];
  // Preferences may name deleted documents: the index leaves them out.
  return similarToDocuments(ctx, await profileOf(ctx, userId, preferred), options, preferred);
}

/**
 * The documents of a user's content profile: every preferred one, or the PROFILE_SIZE most recent of more. The
 * records are read only then: the keys name the documents, and decoding 15 records was a seventh of the event
 * loop's time on a user's recommendations (docs/decisions/throughput.md, "Twelfth session").
 */
async function profileOf(ctx: TenantContext, userId: string, preferred: string[]): Promise<string[]> {
  if (preferred.length <= PROFILE_SIZE) return preferred;
  const prefs = await ctx.store.preferences.listByFirst(userId, ALL);
  return [...prefs].sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1)).slice(0, PROFILE_SIZE).map((p) => p.document_id);
}

export interface TagSuggestion {
  id: string;
  score: number;
}

/**
 * Tag suggestions blend two voices (docs/decisions/tags.md): the key's complement Naive Bayes model over its
 * own taggings (src/index/tag-model.ts) and the tags of the nearest documents. Measured on 20 Newsgroups
 * through HTTP (bench/results/tags.md): top-1 0.755 for the votes alone, 0.832 for the blend (weight 0.6
 * chosen in process, where the model alone scored 0.830).
 */
const TAG_MODEL_WEIGHT = 0.6;
/** Below this many tagged documents, or with a single tag, the neighbours' votes suggest alone. */
const TAG_MODEL_MIN_DOCUMENTS = 20;

/** Tags of the nearest documents, each weighted by its similarity; the votes sum to at most 1. */
function votesOfNeighbours(ctx: TenantContext, neighbours: Similar[]): Map<string, number> {
  const { facts } = ctx.indexes();
  const votes = new Map<string, number>();
  let total = 0;
  for (const n of neighbours) {
    const tags = facts.tags(n.id);
    if (tags.length === 0) continue;
    total += n.similarity;
    for (const tag of tags) votes.set(tag, (votes.get(tag) ?? 0) + n.similarity);
  }
  if (total > 0) for (const [tag, vote] of votes) votes.set(tag, vote / total);
  return votes;
}

/** The blend of model probabilities and neighbour votes: each sums to at most 1, so scores stay in [0,1]. */
async function suggestTags(ctx: TenantContext, text: string, neighbours: Similar[], number: number, skip: ReadonlySet<string>): Promise<TagSuggestion[]> {
  const indexes = ctx.indexes();
  // The model learns the key's writes (their texts analysed in the pool): wait for those told so far.
  await indexes.tagModelSettled();
  const votes = votesOfNeighbours(ctx, neighbours);
  const model = indexes.tagModel;
  const useModel = model.documentCount >= TAG_MODEL_MIN_DOCUMENTS && model.tagCount >= 2;
  const modelWeight = !useModel ? 0 : votes.size === 0 ? 1 : TAG_MODEL_WEIGHT;
  const scores = new Map<string, number>();
  for (const [tag, vote] of votes) scores.set(tag, (1 - modelWeight) * vote);
  if (modelWeight > 0) {
    // The top `number` of the blend lies within the model's top `number + skipped + voted` and the voted tags.
    const limit = number + skip.size + votes.size;
    const analysed = await indexes.termCountsOf(text, model.languageHint);
    for (const { tag, probability } of model.scoreTerms(analysed, limit, new Set(votes.keys()))) {
      scores.set(tag, (scores.get(tag) ?? 0) + modelWeight * probability);
    }
  }
  return [...scores]
    .filter(([id, score]) => !skip.has(id) && score > 0)
    .map(([id, score]) => ({ id, score: Math.min(1, score) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, number);
}

export async function suggestTagsForText(ctx: TenantContext, text: string, number = DEFAULT_NUMBER): Promise<TagSuggestion[]> {
  const neighbours = await similarToText(ctx, text, { number: TAG_NEIGHBOURS });
  return suggestTags(ctx, text, neighbours, number, new Set());
}

/** Tags the document does not carry yet, from the key's tag model and the document's nearest documents. */
export async function suggestTagsForDocument(ctx: TenantContext, id: string, number = DEFAULT_NUMBER): Promise<TagSuggestion[]> {
  const doc = await getDocument(ctx, id);
  const neighbours = await similarToDocuments(ctx, [id], { number: TAG_NEIGHBOURS }, [id]);
  return suggestTags(ctx, doc.text, neighbours, number, new Set(ctx.indexes().facts.tags(id)));
}
