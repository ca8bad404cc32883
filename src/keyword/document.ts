/** What the keyword index needs of a document. */
export interface KeywordDocument {
  id: string;
  text: string;
  meta?: Record<string, unknown> | null;
  tags?: string[] | null;
  published_at?: string | null;
  created_at?: string;
  updated_at?: string;
}

/** The date fields (sortable, range-able, histogram-able). */
export const DATE_FIELDS = ['published_at', 'created_at', 'updated_at'] as const;
export type DateField = (typeof DATE_FIELDS)[number];

export function isDateField(f: string): f is DateField {
  return (DATE_FIELDS as readonly string[]).includes(f);
}

/** Strings longer than this get no `.keyword` value, as Elasticsearch's dynamic mapping (ignore_above 256). */
export const KEYWORD_IGNORE_ABOVE = 256;

export interface FlatMeta {
  /** path (`meta.a.b`) -> string values in source order. */
  strings: Map<string, string[]>;
  numbers: Map<string, number[]>;
  booleans: Map<string, boolean[]>;
}

/**
 * Flattens meta as Elasticsearch's dynamic mapping sees it: nested objects become dotted paths,
 * array elements are values of the same path, nulls are absent.
 */
export function flattenMeta(meta: unknown): FlatMeta {
  const flat: FlatMeta = { strings: new Map(), numbers: new Map(), booleans: new Map() };
  const push = <T>(m: Map<string, T[]>, k: string, v: T): void => {
    const list = m.get(k);
    if (list) list.push(v);
    else m.set(k, [v]);
  };
  const walk = (v: unknown, path: string): void => {
    if (v === null || v === undefined) return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x, path);
    } else if (typeof v === 'string') {
      push(flat.strings, path, v);
    } else if (typeof v === 'number') {
      if (Number.isFinite(v)) push(flat.numbers, path, v);
    } else if (typeof v === 'boolean') {
      push(flat.booleans, path, v);
    } else if (typeof v === 'object') {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) walk(x, `${path}.${k}`);
    }
  };
  if (meta && typeof meta === 'object' && !Array.isArray(meta)) walk(meta, 'meta');
  return flat;
}
