import { alreadyExists, ApiError, notFound } from '../errors';
import { now, type PreferenceRecord, type UserRecord } from '../domain';
import { ALL, type Page } from '../storage';
import { publish, type TenantContext } from './context';
import type { Listing } from './documents';
import { checkId, generateId } from './ids';

export async function getUser(ctx: TenantContext, id: string): Promise<UserRecord> {
  checkId('user', id);
  const user = await ctx.store.users.get(id);
  if (!user) throw notFound('User');
  return user;
}

export async function createUser(ctx: TenantContext, clientId?: string): Promise<UserRecord> {
  const id = clientId === undefined ? generateId() : checkId('user', clientId);
  const at = now();
  const user: UserRecord = { id, created_at: at, updated_at: at };
  if (!(await ctx.store.users.insert(user))) throw alreadyExists('User', id);
  await publish(ctx, 'user', 'put', id);
  return user;
}

export async function listUsers(ctx: TenantContext, page: Page): Promise<Listing<UserRecord>> {
  const [items, total] = await Promise.all([ctx.store.users.list(page), ctx.store.users.count()]);
  return { items, total };
}

/**
 * Deletes a user. With `mergeInto`, the user's preferences move to that user first (a document
 * both preferred keeps the earlier created_at); without it they are deleted.
 */
export async function deleteUser(ctx: TenantContext, id: string, mergeInto?: string): Promise<UserRecord & { merged_into?: string }> {
  checkId('user', id);
  await getUser(ctx, id);
  if (mergeInto !== undefined) {
    if (mergeInto === id) throw new ApiError(400, 'merge_into is invalid');
    await getUser(ctx, mergeInto);
    const moving = await ctx.store.preferences.listByFirst(id, ALL);
    const at = now();
    for (const pref of moving) {
      const existing = await ctx.store.preferences.get(mergeInto, pref.document_id);
      const created_at = existing && existing.created_at < pref.created_at ? existing.created_at : pref.created_at;
      await ctx.store.preferences.put(mergeInto, pref.document_id, {
        user_id: mergeInto, document_id: pref.document_id, created_at, updated_at: at,
      });
      await publish(ctx, 'preference', 'put', `${mergeInto}/${pref.document_id}`);
    }
  }
  const user = await ctx.store.users.remove(id);
  if (!user) throw notFound('User');
  await ctx.store.preferences.removeByFirst(id);
  await publish(ctx, 'user', 'delete', id);
  return mergeInto === undefined ? user : { ...user, merged_into: mergeInto };
}

export async function preferencesOfUser(ctx: TenantContext, id: string, page: Page): Promise<Listing<PreferenceRecord>> {
  await getUser(ctx, id);
  const [items, total] = await Promise.all([ctx.store.preferences.listByFirst(id, page), ctx.store.preferences.countByFirst(id)]);
  return { items, total };
}

async function requireUserAndDocument(ctx: TenantContext, userId: string, documentId: string): Promise<void> {
  await getUser(ctx, userId);
  if (!(await ctx.store.documents.get(documentId))) throw notFound('Document');
}

export async function getPreference(ctx: TenantContext, userId: string, documentId: string): Promise<PreferenceRecord> {
  await requireUserAndDocument(ctx, userId, documentId);
  const pref = await ctx.store.preferences.get(userId, documentId);
  if (!pref) throw new ApiError(404, "Couldn't find all Preferences", {}, 'preference_not_found');
  return pref;
}

/** Records that the user is interested in the document; repeating it refreshes updated_at. */
export async function addPreference(ctx: TenantContext, userId: string, documentId: string): Promise<PreferenceRecord> {
  await requireUserAndDocument(ctx, userId, documentId);
  const existing = await ctx.store.preferences.get(userId, documentId);
  const at = now();
  const pref: PreferenceRecord = { user_id: userId, document_id: documentId, created_at: existing?.created_at ?? at, updated_at: at };
  await ctx.store.preferences.put(userId, documentId, pref);
  await publish(ctx, 'preference', 'put', `${userId}/${documentId}`);
  return pref;
}

export async function deletePreference(ctx: TenantContext, userId: string, documentId: string): Promise<PreferenceRecord> {
  await requireUserAndDocument(ctx, userId, documentId);
  const pref = await ctx.store.preferences.remove(userId, documentId);
  if (!pref) throw new ApiError(404, "Couldn't find all Preferences", {}, 'preference_not_found');
  await publish(ctx, 'preference', 'delete', `${userId}/${documentId}`);
  return pref;
}

/** v2 users carry integers the service counts out per key. */
export async function createNumberedUser(ctx: TenantContext): Promise<UserRecord> {
  for (;;) {
    const id = String(await ctx.store.nextSequence('user-number'));
    try {
      return await createUser(ctx, id);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 409)) throw error;
    }
  }
}
