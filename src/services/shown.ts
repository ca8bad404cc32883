import type { DocumentRecord, Meta } from '../domain';
import type { TenantContext } from './context';

/** Optional fields a request may ask of a document (each version allows some of them). */
export type DocumentField = 'text' | 'meta' | 'published_at' | 'tags';

/** A document as an answer shows it: its id and timestamps, and the fields asked for. */
export interface ShownDocument {
  id: string;
  created_at: string;
  updated_at: string;
  text?: string;
  meta?: Meta;
  published_at?: string | null;
  tags?: string[];
}

/** A stored document with the fields asked for; `tags` are the document's tag ids when asked for. */
export function showDocument(doc: DocumentRecord, fields: ReadonlySet<DocumentField>, tags: string[] = []): ShownDocument {
  const shown: ShownDocument = { id: doc.id, created_at: doc.created_at, updated_at: doc.updated_at };
  if (fields.has('text')) shown.text = doc.text;
  if (fields.has('meta')) shown.meta = doc.meta;
  if (fields.has('published_at')) shown.published_at = doc.published_at;
  if (fields.has('tags')) shown.tags = tags;
  return shown;
}

/** Tag ids of each document. */
async function tagIdsOf(ctx: TenantContext, ids: readonly string[]): Promise<Map<string, string[]>> {
  const lists = await Promise.all(ids.map((id) => ctx.store.taggings.secondsOf(id)));
  return new Map(ids.map((id, i) => [id, lists[i]!]));
}

/** Stored documents with the fields asked for, reading their tags only when `tags` is one of them. */
export async function showDocuments(ctx: TenantContext, docs: readonly DocumentRecord[], fields: ReadonlySet<DocumentField>): Promise<ShownDocument[]> {
  const tagIds = fields.has('tags') ? await tagIdsOf(ctx, docs.map((doc) => doc.id)) : undefined;
  return docs.map((doc) => showDocument(doc, fields, tagIds?.get(doc.id)));
}

/** The documents of `ids` that exist, in the order of `ids`. */
export async function presentDocuments(ctx: TenantContext, ids: readonly string[]): Promise<DocumentRecord[]> {
  return (await ctx.store.documents.getMany(ids)).filter((d): d is DocumentRecord => d !== undefined);
}
