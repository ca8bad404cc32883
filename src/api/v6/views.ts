import type { DocumentRecord, PreferenceRecord, TagRecord, UserRecord } from '../../domain';
import type { DocumentField } from '../common/fields';

export interface DocumentView {
  id: string;
  text?: string;
  meta?: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  published_at?: string | null;
  tags?: string[];
}

/** A document with the optional fields a request asked for (id and timestamps always). */
export function documentView(doc: DocumentRecord, fields: ReadonlySet<DocumentField>, tags?: string[]): DocumentView {
  const view: DocumentView = {
    id: doc.id,
    ...(fields.has('text') ? { text: doc.text } : {}),
    ...(fields.has('meta') ? { meta: doc.meta } : {}),
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  };
  if (fields.has('published_at')) view.published_at = doc.published_at;
  if (fields.has('tags')) view.tags = tags ?? [];
  return view;
}

export const FULL_DOCUMENT: ReadonlySet<DocumentField> = new Set(['text', 'meta', 'published_at']);

export const tagView = (tag: TagRecord) => ({ id: tag.id, type: tag.type, meta: tag.meta, created_at: tag.created_at });
export const userView = (user: UserRecord) => ({ id: user.id, created_at: user.created_at, updated_at: user.updated_at });
export const preferenceView = (p: PreferenceRecord) => ({
  user_id: p.user_id, document_id: p.document_id, created_at: p.created_at, updated_at: p.updated_at,
});
