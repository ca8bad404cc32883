import type { PreferenceRecord, TagRecord, UserRecord } from '../../domain';
import { Type, type TSchema } from 'typebox';
import type { IdScope } from '../../services/ids';
import type { DocumentField, ShownDocument } from '../../services/shown';

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
  /** Which ids the version addresses and shows (services apply it). */
  scope: IdScope;
  id(id: string): WireId;
  /** The schema of an id as the version shows it. */
  idSchema: TSchema;
  tag(tag: TagRecord): Record<string, unknown>;
}

/** A document in the version's shape: id, the fields asked for, timestamps, then published_at and tags. */
export function documentView(dialect: Dialect, doc: ShownDocument) {
  const view: Record<string, unknown> = { id: dialect.id(doc.id) };
  if (doc.text !== undefined) view.text = doc.text;
  if (doc.meta !== undefined) view.meta = doc.meta;
  view.created_at = doc.created_at;
  view.updated_at = doc.updated_at;
  if (doc.published_at !== undefined) view.published_at = doc.published_at;
  if (doc.tags !== undefined) view.tags = doc.tags;
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
  scope: 'spec',
  id: (id) => id,
  idSchema: Type.String(),
  tag: (tag) => ({ id: tag.id, type: tag.type, meta: tag.meta, created_at: tag.created_at }),
};

/** v5 and v3: no published_at, no tags field, tags without type or meta. */
export const V5: Dialect = {
  fields: ['text', 'meta'],
  fullDocument: new Set(['text', 'meta']),
  scope: 'spec',
  id: (id) => id,
  idSchema: Type.String(),
  tag: (tag) => ({ id: tag.id, created_at: tag.created_at }),
};

export const V2: Dialect = { ...V5, scope: 'numbered', id: (id) => Number(id), idSchema: Type.Integer() };
