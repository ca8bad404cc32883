import { invalidParameter } from '../errors';
import type { Meta } from '../domain';

/** `meta` arrives as a JSON object or as a JSON-encoded object string; anything else is refused. */
export function parseMeta(value: Meta | string): Meta {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw invalidParameter('meta');
    }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalidParameter('meta');
  return parsed as Meta;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Strict RFC 3339 date-time (section 5.6): full date, full time, mandatory offset; leap second allowed. */
export function isRfc3339(value: string): boolean {
  const m = RFC3339.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  if (hour > 23 || minute > 59 || second > 60) return false;
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return false;
  return true;
}

export function parsePublishedAt(value: string | null): string | null {
  if (value === null) return null;
  if (typeof value !== 'string' || !isRfc3339(value)) throw invalidParameter('published_at');
  return value;
}
