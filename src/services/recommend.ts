import { badRequest, notFound } from '../errors';
import type { DocumentRecord } from '../domain';
import { candidateIds, FilterError, matches, parseFilter } from '../index/filter';
import { TenantContent, type SearchLimits, type Similar } from '../index/content';
import type { TenantIndexes } from '../index/indexes';
import { ALL } from '../storage';
import type { TenantContext } from './context';
import { getDocument } from './documents';
import { getUser } from './users';

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
    let filter;
    try {
      filter = parseFilter(options.filter);
    } catch (error) {
      if (error instanceof FilterError) throw badRequest(`filter is invalid: ${error.message}`);
      throw error;
    }
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

async function requireDocuments(ctx: TenantContext, ids: string[]): Promise<DocumentRecord[]> {
  const docs = await ctx.store.documents.getMany(ids);
  if (docs.some((d) => d === undefined)) throw notFound('Document');
  return docs as DocumentRecord[];
}

async function similarToDocuments(ctx: TenantContext, docs: DocumentRecord[], options: CandidateOptions, alsoExclude: Iterable<string>): Promise<Similar[]> {
  const indexes = ctx.indexes();
  await indexes.ready;
  const vectors = await Promise.all(docs.map((doc) => indexes.content.vectorOf(doc)));
  return indexes.content.similar(
    { vector: TenantContent.centroid(vectors), texts: docs.map((d) => d.text) },
    options.number ?? DEFAULT_NUMBER,
    searchLimits(indexes, options, alsoExclude),
  );
}

export async function similarToDocument(ctx: TenantContext, id: string, options: CandidateOptions): Promise<Similar[]> {
  const doc = await getDocument(ctx, id);
  return similarToDocuments(ctx, [doc], options, [id]);
}

export async function similarToIds(ctx: TenantContext, ids: string[], options: CandidateOptions): Promise<Similar[]> {
  const docs = await requireDocuments(ctx, [...new Set(ids)]);
  return similarToDocuments(ctx, docs, options, ids);
}

export async function similarToText(ctx: TenantContext, text: string, options: CandidateOptions): Promise<Similar[]> {
  const indexes = ctx.indexes();
  await indexes.ready;
  const [vector] = await indexes.content.embed([text]);
  return indexes.content.similar({ vector, texts: [text] }, options.number ?? DEFAULT_NUMBER, searchLimits(indexes, options));
}

/** Documents like the ones the user preferred (the most recent ones), never one they have seen. */
export async function contentRecommendationsForUser(ctx: TenantContext, userId: string, options: CandidateOptions): Promise<Similar[]> {
  await getUser(ctx, userId);
  const prefs = await ctx.store.preferences.listByFirst(userId, ALL);
  if (prefs.length === 0) return [];
  const recent = [...prefs].sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1)).slice(0, PROFILE_SIZE);
  const docs = (await ctx.store.documents.getMany(recent.map((p) => p.document_id))).filter((d): d is DocumentRecord => d !== undefined);
  if (docs.length === 0) return [];
  return similarToDocuments(ctx, docs, options, prefs.map((p) => p.document_id));
}

export interface TagSuggestion {
  id: string;
  score: number;
}

/** Tags of the nearest documents, each weighted by its similarity; scores sum to at most 1. */
async function tagsOfNeighbours(ctx: TenantContext, neighbours: Similar[], number: number, skip: ReadonlySet<string>): Promise<TagSuggestion[]> {
  const { facts } = ctx.indexes();
  const votes = new Map<string, number>();
  let total = 0;
  for (const n of neighbours) {
    const tags = facts.tags(n.id);
    if (tags.length === 0) continue;
    total += n.similarity;
    for (const tag of tags) if (!skip.has(tag)) votes.set(tag, (votes.get(tag) ?? 0) + n.similarity);
  }
  if (total === 0) return [];
  return [...votes].map(([id, vote]) => ({ id, score: vote / total }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, number);
}

export async function suggestTagsForText(ctx: TenantContext, text: string, number = DEFAULT_NUMBER): Promise<TagSuggestion[]> {
  const neighbours = await similarToText(ctx, text, { number: TAG_NEIGHBOURS });
  return tagsOfNeighbours(ctx, neighbours, number, new Set());
}

/** Tags the document does not carry yet, from its nearest documents. */
export async function suggestTagsForDocument(ctx: TenantContext, id: string, number = DEFAULT_NUMBER): Promise<TagSuggestion[]> {
  const doc = await getDocument(ctx, id);
  const neighbours = await similarToDocuments(ctx, [doc], { number: TAG_NEIGHBOURS }, [id]);
  return tagsOfNeighbours(ctx, neighbours, number, new Set(ctx.indexes().facts.tags(id)));
}
