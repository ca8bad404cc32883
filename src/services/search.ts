import { KindredError } from '../errors';
import type { DocumentRecord } from '../domain';
import { filterToEsQuery } from '../index/filter';
import { requestFilter } from './filter';
import { QueryError, type SearchResponse } from '../keyword';
import type { TenantContext } from './context';
import { presentDocuments, showDocuments, type DocumentField, type ShownDocument } from './shown';

/** Runs the search in the key's keyword index, turning a malformed request into a 400. */
async function run(ctx: TenantContext, esQuery: Readonly<Record<string, unknown>>, fields: readonly string[]): Promise<SearchResponse> {
  try {
    return await ctx.indexes().search(esQuery, { fields: [...fields] });
  } catch (error) {
    if (error instanceof QueryError) throw new KindredError('invalid_search_query', error.message);
    throw error;
  }
}

/** POST /documents/by-keyword: an Elasticsearch request body over the key's documents. */
export function searchByKeyword(ctx: TenantContext, esQuery: Readonly<Record<string, unknown>>, fields: readonly string[]): Promise<SearchResponse> {
  return run(ctx, esQuery, fields);
}

export interface FilteredListing {
  filter?: string;
  fields: ReadonlySet<DocumentField>;
  sortOrder: 'asc' | 'desc';
  sortByPublishedAt: boolean;
  offset: number;
  limit: number;
}

/**
 * POST /documents/filtered: documents matching the filter grammar, by publication time or else in
 * creation order. Documents without published_at sort last either way.
 */
export async function filteredDocuments(ctx: TenantContext, listing: FilteredListing): Promise<ShownDocument[]> {
  let query: Record<string, unknown> = { match_all: {} };
  if (listing.filter !== undefined) {
    query = filterToEsQuery(requestFilter(listing.filter));
  }
  const sort = listing.sortByPublishedAt
    ? [{ published_at: { order: listing.sortOrder, missing: '_last' } }, { created_at: 'asc' }]
    : [{ created_at: listing.sortOrder }];
  const result = await run(ctx, { query, sort, from: listing.offset, size: listing.limit }, []);
  return showDocuments(ctx, await presentDocuments(ctx, result.hits.hits.map((h) => h.id)), listing.fields);
}

/** v5/v3/v2 `GET /documents?keywords=`: the most relevant documents for a few words. */
export async function documentsByKeywords(ctx: TenantContext, keywords: string, fields: string[], n = 25): Promise<DocumentRecord[]> {
  const hits = await ctx.indexes().topByKeywords(keywords, fields, n);
  return presentDocuments(ctx, hits.map((h) => h.id));
}
