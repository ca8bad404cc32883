import type { BatchOperation } from './http-client';
import { seg } from './http-client';

export const RECORD_TYPES = ['documents', 'tags', 'taggings', 'users', 'preferences'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export const isRecordType = (value: string): value is RecordType => (RECORD_TYPES as readonly string[]).includes(value);

/** The fields each type takes, for --help; `export` writes exactly these. */
export const RECORD_FIELDS: Record<RecordType, string> = {
  documents: 'id, text (required), meta (JSON object; in CSV a JSON-encoded cell), published_at (RFC 3339)',
  tags: 'id (required), type, meta (JSON object)',
  taggings: 'document_id, tag_id (both required; a missing tag is created)',
  users: 'id (required)',
  preferences: 'user_id, document_id (both required; a missing user is created, the document must exist)',
};

/**
 * The type of a file from the fields of its first record: `text` means documents, `user_id` + `document_id`
 * preferences, `document_id` + `tag_id` taggings, `id` with `type` or `meta` tags, a bare `id` users (or tags
 * when the file name says so). Undefined when nothing fits.
 */
export function detectType(fields: Record<string, unknown>, fileName: string): RecordType | undefined {
  const has = (name: string) => fields[name] !== undefined;
  if (has('text')) return 'documents';
  if (has('user_id') && has('document_id')) return 'preferences';
  if (has('document_id') && has('tag_id')) return 'taggings';
  if (has('id') && (has('type') || has('meta'))) return 'tags';
  if (has('id')) return /tag/i.test(fileName.replace(/.*[\\/]/, '')) ? 'tags' : 'users';
  return undefined;
}

/** A record turned into its API call, or the reason it cannot be one. */
export type RecordOp = { op: BatchOperation } | { error: string };

function stringField(fields: Record<string, unknown>, name: string, required: boolean): string | undefined | { error: string } {
  const value = fields[name];
  if (value === undefined || value === null || value === '') return required ? { error: `${name} is missing` } : undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return { error: `${name} must be a string` };
  return value;
}

/** meta is an object; a JSON-encoded object (CSV cells, older clients) is accepted too. */
function metaField(fields: Record<string, unknown>): { meta: Record<string, unknown> } | undefined | { error: string } {
  let value = fields.meta;
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return { error: 'meta is not valid JSON' };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'meta must be a JSON object' };
  return { meta: value as Record<string, unknown> };
}

const isError = (value: unknown): value is { error: string } =>
  typeof value === 'object' && value !== null && typeof (value as { error?: unknown }).error === 'string';

/** The one API call that stores a record of the given type. */
export function recordOp(type: RecordType, fields: Record<string, unknown>): RecordOp {
  switch (type) {
    case 'documents': {
      const id = stringField(fields, 'id', false);
      const text = stringField(fields, 'text', true);
      const published = stringField(fields, 'published_at', false);
      const meta = metaField(fields);
      for (const v of [id, text, published, meta]) if (isError(v)) return v;
      const params: Record<string, unknown> = { text };
      if (meta && !isError(meta)) params.meta = meta.meta;
      if (published) params.published_at = published;
      return { op: { method: 'POST', url: id ? `/documents/${seg(id as string)}` : '/documents', params } };
    }
    case 'tags': {
      const id = stringField(fields, 'id', true);
      const tagType = stringField(fields, 'type', false);
      const meta = metaField(fields);
      for (const v of [id, tagType, meta]) if (isError(v)) return v;
      const params: Record<string, unknown> = {};
      if (tagType) params.type = tagType;
      if (meta && !isError(meta)) params.meta = meta.meta;
      return { op: { method: 'POST', url: `/tags/${seg(id as string)}`, params } };
    }
    case 'users': {
      const id = stringField(fields, 'id', true);
      if (isError(id)) return id;
      return { op: { method: 'POST', url: `/users/${seg(id as string)}` } };
    }
    case 'taggings': {
      const doc = stringField(fields, 'document_id', true);
      const tag = stringField(fields, 'tag_id', true);
      for (const v of [doc, tag]) if (isError(v)) return v;
      return { op: { method: 'POST', url: `/documents/${seg(doc as string)}/tags/${seg(tag as string)}` } };
    }
    case 'preferences': {
      const user = stringField(fields, 'user_id', true);
      const doc = stringField(fields, 'document_id', true);
      for (const v of [user, doc]) if (isError(v)) return v;
      return { op: { method: 'POST', url: `/users/${seg(user as string)}/preferences/${seg(doc as string)}` } };
    }
  }
}

/** For a preference whose user is missing: the call that creates that user. */
export function userCreationFor(op: BatchOperation): BatchOperation | undefined {
  const match = /^\/users\/([^/]+)\/preferences\//.exec(op.url);
  return match ? { method: 'POST', url: `/users/${match[1]}` } : undefined;
}
