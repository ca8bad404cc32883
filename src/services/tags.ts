import { alreadyExists, invalidParameter, KindredError, notFound } from '../errors';
import { now, type Meta, type TagRecord } from '../domain';
import { ALL, type Page } from '../storage';
import { publish, type TenantContext } from './context';
import type { Listing } from './documents';
import { checkId, generateId, isValidId } from './ids';
import { parseMeta } from './values';
import { presentDocuments, showDocuments, type DocumentField, type ShownDocument } from './shown';

/** A tag as a client writes it; `meta` may also come JSON-encoded in a string. */
export interface TagInput {
  meta?: Meta | string | null;
  type?: string | null;
}

function parseType(value: string | null): string | null {
  if (value !== null && typeof value !== 'string') throw invalidParameter('type');
  return value;
}

export async function getTag(ctx: TenantContext, id: string): Promise<TagRecord> {
  checkId('tag', id);
  const tag = await ctx.store.tags.get(id);
  if (!tag) throw notFound('Tag');
  return tag;
}

function newTag(id: string, input: TagInput): TagRecord {
  return {
    id,
    type: input.type === undefined ? null : parseType(input.type),
    meta: input.meta === undefined || input.meta === null ? {} : parseMeta(input.meta),
    created_at: now(),
  };
}

export async function createTag(ctx: TenantContext, input: TagInput, clientId?: string): Promise<TagRecord> {
  const id = clientId === undefined ? generateId() : checkId('tag', clientId);
  const tag = newTag(id, input);
  if (!(await ctx.store.tags.insert(tag))) throw alreadyExists('Tag', id);
  await publish(ctx, 'tag', 'put', id);
  return tag;
}

export async function updateTag(ctx: TenantContext, id: string, input: TagInput): Promise<TagRecord> {
  checkId('tag', id);
  const existing = await getTag(ctx, id);
  const updated: TagRecord = {
    ...existing,
    type: input.type === undefined ? existing.type : parseType(input.type),
    meta: input.meta === undefined ? existing.meta : input.meta === null ? {} : parseMeta(input.meta),
  };
  if (!(await ctx.store.tags.replace(updated))) throw notFound('Tag');
  await publish(ctx, 'tag', 'put', id);
  return updated;
}

export async function deleteTag(ctx: TenantContext, id: string): Promise<TagRecord> {
  checkId('tag', id);
  const tag = await ctx.store.tags.remove(id);
  if (!tag) throw notFound('Tag');
  await ctx.store.taggings.removeBySecond(id);
  await publish(ctx, 'tag', 'delete', id);
  return tag;
}

/** Tags are few per key; a type filter reads them all and pages in memory. */
export async function listTags(ctx: TenantContext, page: Page, type?: string): Promise<Listing<TagRecord>> {
  if (type === undefined) {
    const [items, total] = await Promise.all([ctx.store.tags.list(page), ctx.store.tags.count()]);
    return { items, total };
  }
  const matching = (await ctx.store.tags.list(ALL)).filter((t) => t.type === type);
  return { items: matching.slice(page.offset, page.offset + page.limit), total: matching.length };
}

/** The tag's documents with the fields asked for. */
export async function documentsOfTag(ctx: TenantContext, id: string, fields: ReadonlySet<DocumentField>): Promise<ShownDocument[]> {
  await getTag(ctx, id);
  const taggings = await ctx.store.taggings.listBySecond(id, ALL);
  return showDocuments(ctx, await presentDocuments(ctx, taggings.map((t) => t.document_id)), fields);
}

/** Tags the document; a tag that does not exist yet is created on the way. Tagging twice is a no-op. */
export async function tagDocument(ctx: TenantContext, documentId: string, tagId: string): Promise<void> {
  if (!isValidId(tagId) || tagId === 'recommend-by-text') throw new KindredError('invalid_id', 'tag_id is invalid');
  if (!(await ctx.store.documents.get(documentId))) throw notFound('Document');
  if (!(await ctx.store.tags.get(tagId))) {
    if (await ctx.store.tags.insert(newTag(tagId, {}))) await publish(ctx, 'tag', 'put', tagId);
  }
  if (await ctx.store.taggings.get(documentId, tagId)) return;
  await ctx.store.taggings.put(documentId, tagId, { document_id: documentId, tag_id: tagId, created_at: now() });
  await publish(ctx, 'tagging', 'put', `${documentId}/${tagId}`);
}

export async function untagDocument(ctx: TenantContext, documentId: string, tagId: string): Promise<void> {
  if (!(await ctx.store.documents.get(documentId))) throw notFound('Document');
  if (!(await ctx.store.tags.get(tagId))) throw notFound('Tag');
  if (!(await ctx.store.taggings.remove(documentId, tagId))) throw new KindredError('tagging_not_found', "Tagging doesn't exist");
  await publish(ctx, 'tagging', 'delete', `${documentId}/${tagId}`);
}
