import { QueryError } from './errors';
import { isRecord } from '../domain';


/** The single `{name: body}` entry of a clause object. */
export function singleEntry(v: unknown, where: string): [string, unknown] {
  if (!isRecord(v)) throw new QueryError(`[${where}] expects an object, got ${describe(v)}`);
  const keys = Object.keys(v);
  if (keys.length !== 1) {
    throw new QueryError(
      keys.length === 0 ? `[${where}] is empty: expected one clause` : `[${where}] malformed: expected one key, found [${keys.join(', ')}]`,
    );
  }
  return [keys[0], v[keys[0]]];
}

export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'string' ? `"${v.length > 40 ? v.slice(0, 40) + '…' : v}"` : typeof v;
}

export function checkKeys(obj: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) throw new QueryError(`[${where}] query does not support [${k}]`);
  }
}

export function numberParam(v: unknown, where: string, fallback: number): number {
  if (v === undefined) return fallback;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new QueryError(`[${where}] must be a number, got ${describe(v)}`);
  return n;
}

export function intParam(v: unknown, where: string, fallback: number): number {
  const n = numberParam(v, where, fallback);
  if (!Number.isInteger(n)) throw new QueryError(`[${where}] must be an integer, got ${describe(v)}`);
  return n;
}

export function stringParam(v: unknown, where: string): string {
  if (typeof v !== 'string') throw new QueryError(`[${where}] must be a string, got ${describe(v)}`);
  return v;
}

/** A query text: strings, numbers and booleans are accepted as Elasticsearch does. */
export function queryText(v: unknown, where: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new QueryError(`[${where}] query must be a string, number or boolean, got ${describe(v)}`);
}

export function msmParam(v: unknown, where: string): number | string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' || typeof v === 'string') return v;
  throw new QueryError(`[${where}] [minimum_should_match] must be a number or string, got ${describe(v)}`);
}

export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [v];
}
