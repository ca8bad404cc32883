import { alreadyExists, hasCode, invalidParameter, KindredError, missingParameter, notFound } from '../errors';
import { now, type DocumentRecord, type Meta, type PreferenceRecord, type TagRecord } from '../domain';
import type { Page } from '../storage';
import { countWords } from '../text';
import { publish, type TenantContext } from './context';
import { generateId, scopeRules, type IdScope } from './ids';
import { documentsByKeywords } from './search';
import { presentDocuments, showDocuments, type DocumentField, type ShownDocument } from './shown';
import { parseMeta, parsePublishedAt } from './values';

/** A document as a client writes it; `meta` may also come JSON-encoded in a string. */
export interface DocumentInput {
  text?: string;
  meta?: Meta | string | null;
  published_at?: string | null;
}

/** How a write addresses its document. */
export interface DocumentWrite {
  /** The client's id; absent: one is made (a number under v2's scope). */
  id?: string;
  scope?: IdScope;
  /** v1: a text needs this many words (406 `too_few_words` otherwise). */
  minimumWords?: number;
}

export interface Listing<T> {
  items: T[];
  total: number;
}

/** What a read shows: which ids the version addresses and which fields it asked for. */
export interface DocumentRead {
  scope?: IdScope;
  fields: ReadonlySet<DocumentField>;
}

export interface DocumentListing extends DocumentRead {
  page: Page;
  /** v5/v3/v2: the 25 most relevant documents for these words (in these indexed fields) instead of a page. */
  keywords?: { words: string; fields: string[] };
}

/** A page of documents, or the most relevant ones for a listing by keywords (not paged). */
export type DocumentList = { paged: true; items: ShownDocument[]; total: number } | { paged: false; items: ShownDocument[] };

/**
 * v1's rule: a text must have this many words, in any language (its words, not the model's vocabulary, so a
 * key's first text in any language is accepted; docs/decisions.md).
 */
export function requireWords(text: string, minimum: number): void {
  if (countWords(text, minimum) < minimum) throw new KindredError('too_few_words', `less than ${minimum} words recognized`);
}

function checkText(text: string, write: DocumentWrite): string {
  if (write.minimumWords !== undefined) requireWords(text, write.minimumWords);
  return text;
}

function parseText(value: unknown): string {
  if (typeof value !== 'string') throw invalidParameter('text');
  return value;
}

export async function getDocument(ctx: TenantContext, id: string, scope?: IdScope): Promise<DocumentRecord> {
  scopeRules(scope).check('document', id);
  const doc = await ctx.store.documents.get(id);
  if (!doc) throw notFound('Document');
  return doc;
}

/** GET /documents/:id: the document with the fields asked for. */
export async function readDocument(ctx: TenantContext, id: string, read: DocumentRead): Promise<ShownDocument> {
  const [shown] = await showDocuments(ctx, [await getDocument(ctx, id, read.scope)], read.fields);
  return shown;
}

/** Stores a new document; the id is the client's (checked by the scope's rule) or made. */
export async function createDocument(ctx: TenantContext, input: DocumentInput, write: DocumentWrite = {}): Promise<DocumentRecord> {
  if (write.id === undefined && write.scope === 'numbered') return createNumberedDocument(ctx, input, write);
  const id = write.id === undefined ? generateId() : scopeRules(write.scope).check('document', write.id);
  if (input.text === undefined) throw missingParameter('text');
  const at = now();
  const doc: DocumentRecord = {
    id,
    text: checkText(parseText(input.text), write),
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

/** v2 documents carry integers the service counts out per key; ids taken by other versions are skipped. */
async function createNumberedDocument(ctx: TenantContext, input: DocumentInput, write: DocumentWrite): Promise<DocumentRecord> {
  for (;;) {
    const id = String(await ctx.store.nextSequence('document-number'));
    try {
      return await createDocument(ctx, input, { ...write, id });
    } catch (error) {
      if (!hasCode(error, 'already_exists')) throw error;
    }
  }
}

export async function updateDocument(ctx: TenantContext, id: string, input: DocumentInput, write: Omit<DocumentWrite, 'id'> = {}): Promise<DocumentRecord> {
  const existing = await getDocument(ctx, id, write.scope);
  const updated: DocumentRecord = {
    ...existing,
    text: input.text === undefined ? existing.text : checkText(parseText(input.text), write),
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
export async function deleteDocument(ctx: TenantContext, id: string, scope?: IdScope): Promise<DocumentRecord> {
  scopeRules(scope).check('document', id);
  const doc = await ctx.store.documents.remove(id);
  if (!doc) throw notFound('Document');
  await ctx.store.preferences.removeBySecond(id);
  await ctx.store.taggings.removeByFirst(id);
  await publish(ctx, 'document', 'delete', id);
  return doc;
}

/**
 * GET /documents: a page of the documents the scope shows, or, with keywords, the most relevant ones. Under
 * v2's scope a page reads every id of the key: v2 is a legacy interface, and keys written only through v2 hold
 * nothing else.
 */
export async function listDocuments(ctx: TenantContext, listing: DocumentListing): Promise<DocumentList> {
  const { shows } = scopeRules(listing.scope);
  if (listing.keywords) {
    const found = await documentsByKeywords(ctx, listing.keywords.words, listing.keywords.fields);
    return { paged: false, items: await showDocuments(ctx, shows ? found.filter((doc) => shows(doc.id)) : found, listing.fields) };
  }
  const { page } = listing;
  if (shows) {
    const ids = (await ctx.store.documents.ids()).filter(shows);
    const docs = await presentDocuments(ctx, ids.slice(page.offset, page.offset + page.limit));
    return { paged: true, items: await showDocuments(ctx, docs, listing.fields), total: ids.length };
  }
  const [docs, total] = await Promise.all([ctx.store.documents.list(page), ctx.store.documents.count()]);
  return { paged: true, items: await showDocuments(ctx, docs, listing.fields), total };
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

export async function preferencesOfDocument(ctx: TenantContext, id: string, page: Page, scope?: IdScope): Promise<Listing<PreferenceRecord>> {
  await getDocument(ctx, id, scope);
  const [items, total] = await Promise.all([ctx.store.preferences.listBySecond(id, page), ctx.store.preferences.countBySecond(id)]);
  return { items, total };
}

export type { Meta };
