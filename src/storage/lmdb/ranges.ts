import type { Key } from 'lmdb';

/** Ids are restricted to [A-Za-z0-9_-] and tenants to hex, so '\uffff' sorts after every real key part. */
export const HIGH = '\uffff';
export const MAX_SEQ = Number.MAX_SAFE_INTEGER;

export function prefixRange(prefix: Key[]): { start: Key[]; end: Key[] } {
  return { start: prefix, end: [...prefix, HIGH] };
}
