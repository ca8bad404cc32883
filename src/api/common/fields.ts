import { invalidParameter } from '../../errors';
import type { DocumentField } from '../../services/shown';

export type { DocumentField };

/**
 * Parses a comma-separated `fields` value against what a version allows. Absent means the
 * endpoint's default; an empty string means no optional fields.
 */
export function parseFields(raw: string | undefined, allowed: readonly DocumentField[], defaults: readonly DocumentField[]): Set<DocumentField> {
  if (raw === undefined) return new Set(defaults);
  const fields = new Set<DocumentField>();
  for (const name of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const field = allowed.find((f) => f === name);
    if (field === undefined) throw invalidParameter('fields', `'${name}' is not one of ${allowed.join(', ')}`);
    fields.add(field);
  }
  return fields;
}
