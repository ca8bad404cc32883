import type { DocumentRecord, PreferenceRecord, TagRecord, UserRecord } from '../../domain';
import { isNumberedId } from '../../services/documents';
import type { DocumentField } from './fields';

/** Ids as a version shows them: strings, or integers in v2. */
export type WireId = string | number;

/**
 * How one API version shows the shared records. A version's route table plus its dialect is the
 * whole of what makes it differ from another.
 */
export interface Dialect {
  /** Document fields a `fields` parameter may name. */
  fields: readonly DocumentField[];
  /** Fields of a single-document response (create, read, update, delete). */
  fullDocument: ReadonlySet<DocumentField>;
  id(id: string): WireId;
  tag(tag: TagRecord): Record<string, unknown>;
  /** Whether this version can show a document of that id (v2 shows integer ids only). */
  visible(id: string): boolean;
  /** Whether `visible` is true for every id: searches then need no per-row check (which would rule out the approximate index). */
  showsEveryDocument: boolean;
}

export function documentView(dialect: Dialect, doc: DocumentRecord, fields: ReadonlySet<DocumentField>, tags?: string[]) {
  const view: Record<string, unknown> = { id: dialect.id(doc.id) };
  if (fields.has('text')) view.text = doc.text;
  if (fields.has('meta')) view.meta = doc.meta;
  view.created_at = doc.created_at;
  view.updated_at = doc.updated_at;
  if (fields.has('published_at')) view.published_at = doc.published_at;
  if (fields.has('tags')) view.tags = tags ?? [];
  return view;
}

export const userView = (dialect: Dialect, user: UserRecord) =>
  ({ id: dialect.id(user.id), created_at: user.created_at, updated_at: user.updated_at });

export const preferenceView = (dialect: Dialect, p: PreferenceRecord) => ({
  user_id: dialect.id(p.user_id), document_id: dialect.id(p.document_id), created_at: p.created_at, updated_at: p.updated_at,
});

export const V6: Dialect = {
  fields: ['meta', 'text', 'published_at', 'tags'],
  fullDocument: new Set(['text', 'meta', 'published_at']),
  id: (id) => id,
  tag: (tag) => ({ id: tag.id, type: tag.type, meta: tag.meta, created_at: tag.created_at }),
  visible: () => true,
  showsEveryDocument: true,
};

/** v5 and v3: no published_at, no tags field, tags without type or meta. */
export const V5: Dialect = {
  fields: ['text', 'meta'],
  fullDocument: new Set(['text', 'meta']),
  id: (id) => id,
  tag: (tag) => ({ id: tag.id, created_at: tag.created_at }),
  visible: () => true,
  showsEveryDocument: true,
};

export const V2: Dialect = { ...V5, id: (id) => Number(id), visible: isNumberedId, showsEveryDocument: false };
