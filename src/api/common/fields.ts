import { badRequest } from '../../errors';

export type DocumentField = 'text' | 'meta' | 'published_at' | 'tags';

/**
 * Parses a comma-separated `fields` value against what a version allows. Absent means the
 * endpoint's default; an empty string means no optional fields.
 */
export function parseFields(raw: unknown, allowed: readonly DocumentField[], defaults: readonly DocumentField[]): Set<DocumentField> {
  if (raw === undefined) return new Set(defaults);
  const names = String(raw).split(',').map((s) => s.trim()).filter(Boolean);
  for (const name of names) {
    if (!(allowed as readonly string[]).includes(name)) {
      throw badRequest(`fields is invalid: '${name}' is not one of ${allowed.join(', ')}`);
    }
  }
  return new Set(names as DocumentField[]);
}
