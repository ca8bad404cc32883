import { alreadyExists, hasCode, invalidParameter, KindredError, notFound } from '../errors';
import { now, type PreferenceRecord, type UserRecord } from '../domain';
import { ALL, type Page } from '../storage';
import { publish, type TenantContext } from './context';
import type { Listing } from './documents';
import { generateId, scopeRules, type IdScope } from './ids';

const preferenceNotFound = (): KindredError => new KindredError('preference_not_found', "Couldn't find all Preferences");

export async function getUser(ctx: TenantContext, id: string, scope?: IdScope): Promise<UserRecord> {
  scopeRules(scope).check('user', id);
  const user = await ctx.store.users.get(id);
  if (!user) throw notFound('User');
  return user;
}

/** A new user; the id is the client's (checked by the scope's rule) or made (a number under v2's scope). */
export async function createUser(ctx: TenantContext, clientId?: string, scope?: IdScope): Promise<UserRecord> {
  if (clientId === undefined && scope === 'numbered') return createNumberedUser(ctx);
  const id = clientId === undefined ? generateId() : scopeRules(scope).check('user', clientId);
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
export async function deleteUser(ctx: TenantContext, id: string, mergeInto?: string, scope?: IdScope): Promise<UserRecord & { merged_into?: string }> {
  await getUser(ctx, id, scope);
  if (mergeInto !== undefined) {
    if (mergeInto === id) throw invalidParameter('merge_into');
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

export async function preferencesOfUser(ctx: TenantContext, id: string, page: Page, scope?: IdScope): Promise<Listing<PreferenceRecord>> {
  await getUser(ctx, id, scope);
  const [items, total] = await Promise.all([ctx.store.preferences.listByFirst(id, page), ctx.store.preferences.countByFirst(id)]);
  return { items, total };
}

async function requireUserAndDocument(ctx: TenantContext, userId: string, documentId: string, scope: IdScope | undefined): Promise<void> {
  scopeRules(scope).check('user', userId);
  // The document's id is checked as v2 checked it (a number), and otherwise only looked up.
  if (scope === 'numbered') scopeRules(scope).check('document', documentId);
  await getUser(ctx, userId, scope);
  if (!(await ctx.store.documents.get(documentId))) throw notFound('Document');
}

export async function getPreference(ctx: TenantContext, userId: string, documentId: string, scope?: IdScope): Promise<PreferenceRecord> {
  await requireUserAndDocument(ctx, userId, documentId, scope);
  const pref = await ctx.store.preferences.get(userId, documentId);
  if (!pref) throw preferenceNotFound();
  return pref;
}

/** Records that the user is interested in the document; repeating it refreshes updated_at. */
export async function addPreference(ctx: TenantContext, userId: string, documentId: string, scope?: IdScope): Promise<PreferenceRecord> {
  await requireUserAndDocument(ctx, userId, documentId, scope);
  const existing = await ctx.store.preferences.get(userId, documentId);
  const at = now();
  const pref: PreferenceRecord = { user_id: userId, document_id: documentId, created_at: existing?.created_at ?? at, updated_at: at };
  await ctx.store.preferences.put(userId, documentId, pref);
  await publish(ctx, 'preference', 'put', `${userId}/${documentId}`);
  return pref;
}

export async function deletePreference(ctx: TenantContext, userId: string, documentId: string, scope?: IdScope): Promise<PreferenceRecord> {
  await requireUserAndDocument(ctx, userId, documentId, scope);
  const pref = await ctx.store.preferences.remove(userId, documentId);
  if (!pref) throw preferenceNotFound();
  await publish(ctx, 'preference', 'delete', `${userId}/${documentId}`);
  return pref;
}

/** v2 users carry integers the service counts out per key. */
async function createNumberedUser(ctx: TenantContext): Promise<UserRecord> {
  for (;;) {
    const id = String(await ctx.store.nextSequence('user-number'));
    try {
      return await createUser(ctx, id);
    } catch (error) {
      if (!hasCode(error, 'already_exists')) throw error;
    }
  }
}
