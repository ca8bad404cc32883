/** Records as stored. Timestamps are ISO 8601 UTC strings with milliseconds. */
export type Meta = Record<string, unknown>;

export interface DocumentRecord {
  id: string;
  text: string;
  meta: Meta;
  published_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface TagRecord {
  id: string;
  type: string | null;
  meta: Meta;
  created_at: string;
}

export interface UserRecord {
  id: string;
  created_at: string;
  updated_at: string;
}

export interface PreferenceRecord {
  user_id: string;
  document_id: string;
  created_at: string;
  updated_at: string;
}

export interface TaggingRecord {
  document_id: string;
  tag_id: string;
  created_at: string;
}

export interface ApiKeyRecord {
  /** sha-256 of the key, hex; the key itself is never stored. */
  hash: string;
  tenant: string;
  name: string;
  created_at: string;
  revoked_at: string | null;
}

export const now = (): string => new Date().toISOString();

/** A JSON object (not an array, not null). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
