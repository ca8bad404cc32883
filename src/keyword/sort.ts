import { parseDate } from './datemath';
import { DateField, isDateField } from './document';
import { QueryError } from './errors';
import { IndexStore } from './store';
import { describe } from './values';
import { isRecord } from '../domain';

/** Elasticsearch's sort value of a missing long/date: Long.MAX_VALUE (asc) or Long.MIN_VALUE (desc). */
export const MISSING_HIGH = 9223372036854775807;
export const MISSING_LOW = -9223372036854775808;

export type SortValue = number | string | null;

export interface SortKey {
  kind: 'score' | 'date' | 'id' | 'doc';
  field: string;
  order: 'asc' | 'desc';
  missingFirst: boolean;
}

/** Parses `sort`: a field name, `{field: order}`, `{field: {order, missing}}`, or an array of these. */
export function parseSort(raw: unknown): SortKey[] {
  const entries = Array.isArray(raw) ? raw : [raw];
  return entries.map((e) => {
    if (typeof e === 'string') return key(e, undefined, undefined);
    if (isRecord(e)) {
      const names = Object.keys(e);
      if (names.length !== 1) throw new QueryError(`[sort] each entry names one field, got [${names.join(', ')}]`);
      const spec = e[names[0]];
      if (typeof spec === 'string') return key(names[0], spec, undefined);
      if (isRecord(spec)) {
        for (const k of Object.keys(spec)) {
          if (!['order', 'missing', 'unmapped_type', 'format', 'mode', 'numeric_type'].includes(k)) throw new QueryError(`[sort] [${names[0]}] does not support [${k}]`);
        }
        return key(names[0], spec.order, spec.missing);
      }
      throw new QueryError(`[sort] [${names[0]}] expects an order or an object, got ${describe(spec)}`);
    }
    throw new QueryError(`[sort] entries must be strings or objects, got ${describe(e)}`);
  });
}

function key(rawField: string, order: unknown, missing: unknown): SortKey {
  const field = rawField === '_id' ? 'id' : rawField;
  let kind: SortKey['kind'];
  if (field === '_score') kind = 'score';
  else if (field === 'id') kind = 'id';
  else if (field === '_doc') kind = 'doc';
  else if (isDateField(field)) kind = 'date';
  else throw new QueryError(`[sort] cannot sort on [${rawField}]: sortable fields are _score, id, published_at, created_at, updated_at`);
  if (order !== undefined && order !== 'asc' && order !== 'desc') throw new QueryError(`[sort] [${rawField}] order must be asc or desc, got ${describe(order)}`);
  if (missing !== undefined && missing !== '_first' && missing !== '_last') throw new QueryError(`[sort] [${rawField}] missing must be _first or _last`);
  return { kind, field, order: (order as 'asc' | 'desc' | undefined) ?? (kind === 'score' ? 'desc' : 'asc'), missingFirst: missing === '_first' };
}

/** Sort values of one hit, as Elasticsearch prints them (dates as epoch millis). */
export function sortValues(keys: SortKey[], store: IndexStore, doc: number, score: number): SortValue[] {
  return keys.map((k) => {
    switch (k.kind) {
      case 'score': return score;
      case 'id': return store.ids[doc] ?? null;
      case 'doc': return doc;
      case 'date': {
        const v = store.dates.get(k.field as DateField)?.get(doc) ?? NaN;
        if (!Number.isNaN(v)) return v;
        const high = k.order === 'asc' ? !k.missingFirst : k.missingFirst;
        return high ? MISSING_HIGH : MISSING_LOW;
      }
    }
  });
}

function compareValue(a: SortValue, b: SortValue): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  const sa = String(a), sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** Compares two sort tuples under the keys' orders; the tuples may be shorter than keys. */
export function compareTuples(keys: SortKey[], a: SortValue[], b: SortValue[]): number {
  const n = Math.min(keys.length, a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareValue(a[i], b[i]);
    if (c !== 0) return keys[i].order === 'desc' ? -c : c;
  }
  return 0;
}

/** Turns the client's search_after values into comparable sort values. */
export function parseSearchAfter(raw: unknown, keys: SortKey[]): SortValue[] {
  if (!Array.isArray(raw)) throw new QueryError(`[search_after] must be an array, got ${describe(raw)}`);
  if (raw.length === 0 || raw.length > keys.length) {
    throw new QueryError(`[search_after] has ${raw.length} value(s) but the sort has ${keys.length - 1} field(s) plus the id tiebreaker`);
  }
  return raw.map((v, i) => {
    const k = keys[i];
    if (k.kind === 'id') {
      if (typeof v !== 'string') throw new QueryError(`[search_after] value ${i} (id) must be a string`);
      return v;
    }
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (k.kind === 'date' && typeof v === 'string') {
      const t = parseDate(v);
      if (t !== undefined) return t;
    }
    if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
    throw new QueryError(`[search_after] value ${i} for [${k.field}] must be a number, got ${describe(v)}`);
  });
}
