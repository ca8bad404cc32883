import { alreadyExists, ApiError, badRequest, notFound } from '../errors';
import { now, type DocumentRecord, type Meta, type PreferenceRecord, type TagRecord } from '../domain';
import type { Page } from '../storage';
import { publish, type TenantContext } from './context';
import { checkId, generateId, isNumberedId, type IdRule } from './ids';
import { parseMeta, parsePublishedAt } from './values';

export interface DocumentInput {
  text?: unknown;
  meta?: unknown;
  published_at?: unknown;
}

export interface Listing<T> {
  items: T[];
  total: number;
}

function parseText(value: unknown): string {
  if (typeof value !== 'string') throw badRequest('text is invalid');
  return value;
}

export async function getDocument(ctx: TenantContext, id: string, idRule: IdRule = checkId): Promise<DocumentRecord> {
  idRule('document', id);
  const doc = await ctx.store.documents.get(id);
  if (!doc) throw notFound('Document');
  return doc;
}

/** The id is either chosen by the client (checked) or generated. */
export async function createDocument(ctx: TenantContext, input: DocumentInput, clientId?: string, idRule: IdRule = checkId): Promise<DocumentRecord> {
  const id = clientId === undefined ? generateId() : idRule('document', clientId);
  if (input.text === undefined) throw badRequest('text is missing');
  const at = now();
  const doc: DocumentRecord = {
    id,
    text: parseText(input.text),
    meta: input.meta === undefined || input.meta === null ? {} : parseMeta(input.meta),
    published_at: input.published_at === undefined ? null : parsePublishedAt(input.published_at),
    created_at: at,
    updated_at: at,
  };
  if (!(await ctx.store.documents.insert(doc))) throw alreadyExists('Document', id);
  await publish(ctx, 'document', 'put', id);
  await ctx.indexes().keepUp();
  return doc;
}

export async function updateDocument(ctx: TenantContext, id: string, input: DocumentInput, idRule: IdRule = checkId): Promise<DocumentRecord> {
  const existing = await getDocument(ctx, id, idRule);
  const updated: DocumentRecord = {
    ...existing,
    text: input.text === undefined ? existing.text : parseText(input.text),
    meta: input.meta === undefined ? existing.meta : input.meta === null ? {} : parseMeta(input.meta),
    published_at: input.published_at === undefined ? existing.published_at : parsePublishedAt(input.published_at),
    updated_at: now(),
  };
  if (!(await ctx.store.documents.replace(updated))) throw notFound('Document');
  await publish(ctx, 'document', 'put', id);
  await ctx.indexes().keepUp();
  return updated;
}

/** Removes the document first, so no new preference or tagging can attach to it, then what hung on it. */
export async function deleteDocument(ctx: TenantContext, id: string, idRule: IdRule = checkId): Promise<DocumentRecord> {
  idRule('document', id);
  const doc = await ctx.store.documents.remove(id);
  if (!doc) throw notFound('Document');
  await ctx.store.preferences.removeBySecond(id);
  await ctx.store.taggings.removeByFirst(id);
  await publish(ctx, 'document', 'delete', id);
  return doc;
}

export async function listDocuments(ctx: TenantContext, page: Page): Promise<Listing<DocumentRecord>> {
  const [items, total] = await Promise.all([ctx.store.documents.list(page), ctx.store.documents.count()]);
  return { items, total };
}

/** The documents of `ids` that exist, in the order of `ids` (a result list's stored fields). */
export async function presentDocuments(ctx: TenantContext, ids: readonly string[]): Promise<DocumentRecord[]> {
  return (await ctx.store.documents.getMany(ids)).filter((d): d is DocumentRecord => d !== undefined);
}

export function documentIds(ctx: TenantContext): Promise<string[]> {
  return ctx.store.documents.ids();
}

export async function tagsOfDocument(ctx: TenantContext, id: string, page: Page): Promise<Listing<TagRecord>> {
  await getDocument(ctx, id);
  const [taggings, total] = await Promise.all([ctx.store.taggings.listByFirst(id, page), ctx.store.taggings.countByFirst(id)]);
  const tags = await ctx.store.tags.getMany(taggings.map((t) => t.tag_id));
  return { items: tags.filter((t): t is TagRecord => t !== undefined), total };
}

export async function preferencesOfDocument(ctx: TenantContext, id: string, page: Page): Promise<Listing<PreferenceRecord>> {
  await getDocument(ctx, id);
  const [items, total] = await Promise.all([ctx.store.preferences.listBySecond(id, page), ctx.store.preferences.countBySecond(id)]);
  return { items, total };
}

/** Tag ids of each document, for responses that ask for the `tags` field. */
export async function tagIdsOf(ctx: TenantContext, ids: readonly string[]): Promise<Map<string, string[]>> {
  const all = { offset: 0, limit: Number.MAX_SAFE_INTEGER };
  const lists = await Promise.all(ids.map((id) => ctx.store.taggings.listByFirst(id, all)));
  return new Map(ids.map((id, i) => [id, lists[i].map((t) => t.tag_id)]));
}

export type { Meta };

/** v2 documents carry integers the service counts out per key; ids taken by other versions are skipped. */
export async function createNumberedDocument(ctx: TenantContext, input: DocumentInput): Promise<DocumentRecord> {
  for (;;) {
    const id = String(await ctx.store.nextSequence('document-number'));
    try {
      return await createDocument(ctx, input, id);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 409)) throw error;
    }
  }
}

export { isNumberedId };

/**
 * The documents whose ids are integers, in creation order (what v2 can see). It reads every id
 * of the key: v2 is a legacy interface, and keys written only through v2 hold nothing else.
 */
export async function listNumberedDocuments(ctx: TenantContext, page: Page): Promise<Listing<DocumentRecord>> {
  const ids = (await ctx.store.documents.ids()).filter(isNumberedId);
  const docs = await ctx.store.documents.getMany(ids.slice(page.offset, page.offset + page.limit));
  return { items: docs.filter((d): d is DocumentRecord => d !== undefined), total: ids.length };
}
