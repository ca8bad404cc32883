import type { HybridAnswer, ScoredId } from '../models/hybrid/recommender';
import type { TenantContext } from './context';
import { getDocument } from './documents';
import { DEFAULT_NUMBER } from './recommend';
import { getUser } from './users';

export interface HybridOptions {
  number?: number;
  selectFrom?: string[];
  exclude?: string[];
  userId?: string;
  unseenOnly?: boolean;
}

async function preferencesOf(ctx: TenantContext, userId: string | undefined): Promise<string[] | undefined> {
  if (userId === undefined) return undefined;
  await getUser(ctx, userId);
  return ctx.store.preferences.secondsOf(userId);
}

async function recommender(ctx: TenantContext) {
  return ctx.indexes().hybridRecommender();
}

export async function hybridSimilar(ctx: TenantContext, documentIds: string[], options: HybridOptions): Promise<HybridAnswer> {
  for (const id of new Set(documentIds)) await getDocument(ctx, id);
  const preferences = await preferencesOf(ctx, options.userId);
  return (await recommender(ctx)).similarToDocuments({
    documentIds,
    userId: options.userId,
    preferences,
    unseenOnly: options.unseenOnly,
    number: options.number ?? DEFAULT_NUMBER,
    selectFrom: options.selectFrom,
    exclude: options.exclude,
  });
}

export async function hybridForUser(ctx: TenantContext, userId: string, options: HybridOptions): Promise<HybridAnswer> {
  const preferences = await preferencesOf(ctx, userId);
  return (await recommender(ctx)).recommendForUser({
    userId,
    preferences,
    unseenOnly: options.unseenOnly,
    number: options.number ?? DEFAULT_NUMBER,
    selectFrom: options.selectFrom,
    exclude: options.exclude,
  });
}

export async function popularDocuments(ctx: TenantContext, options: HybridOptions): Promise<ScoredId[]> {
  return (await recommender(ctx)).popular({ number: options.number ?? DEFAULT_NUMBER, selectFrom: options.selectFrom, exclude: options.exclude });
}
export type { HybridAnswer };
