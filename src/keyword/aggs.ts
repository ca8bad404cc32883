import { addUnit, formatDate, resolveDateMath, roundDown, Unit } from './datemath';
import { DateField, isDateField } from './document';
import { QueryError } from './errors';
import { KeywordField } from './fields';
import { IndexStore } from './store';
import { checkKeys, describe, intParam, stringParam } from './values';
import { isRecord } from '../domain';

/**
 * Aggregations in Elasticsearch's request and response shapes: terms, date_histogram, range,
 * min, max, avg, sum, value_count, cardinality; bucket aggregations take sub-aggregations.
 */

type Source =
  | { kind: 'keyword'; field: KeywordField; boolean: boolean }
  | { kind: 'number'; values: (doc: number, fn: (v: number) => void) => void }
  | { kind: 'date'; field: DateField }
  | { kind: 'unmapped' };

interface AggContext {
  store: IndexStore;
  now: number;
}

function resolveSource(store: IndexStore, raw: unknown, where: string): Source {
  const name = stringParam(raw, `${where}.field`);
  const field = name === '_id' ? 'id' : name;
  if (isDateField(field)) return { kind: 'date', field };
  const num = store.numeric.get(field);
  if (num) return { kind: 'number', values: (d, fn) => num.docValues.forEach(d, fn) };
  const kw = store.keyword.get(field) ?? store.keyword.get(`${field}.keyword`);
  if (kw) {
    const boolean = field.startsWith('meta.') && !kw.name.endsWith('.keyword');
    return { kind: 'keyword', field: kw, boolean };
  }
  return { kind: 'unmapped' };
}

function forEachNumber(store: IndexStore, src: Source, doc: number, fn: (v: number) => void): void {
  if (src.kind === 'number') src.values(doc, fn);
  else if (src.kind === 'date') {
    const v = store.dates.get(src.field)?.get(doc) ?? NaN;
    if (!Number.isNaN(v)) fn(v);
  } else if (src.kind === 'keyword' && src.boolean) {
    src.field.docOrds.forEach(doc, (ord) => fn(src.field.values[ord] === 'true' ? 1 : 0));
  }
}

/** Java's Double.toString for the common cases, as ES prints range keys ("10.0", "*-100.0"). */
function javaDouble(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e7) return `${n}.0`;
  return String(n);
}

type Agg = Record<string, unknown>;

export function runAggregations(spec: unknown, docs: Uint32Array, ctx: AggContext, where = 'aggs'): Record<string, Agg> {
  if (!isRecord(spec)) throw new QueryError(`[${where}] must be an object, got ${describe(spec)}`);
  const out: Record<string, Agg> = {};
  for (const [name, def] of Object.entries(spec)) {
    if (!isRecord(def)) throw new QueryError(`[${where}.${name}] must be an object, got ${describe(def)}`);
    const sub = def.aggs ?? def.aggregations;
    const types = Object.keys(def).filter((k) => k !== 'aggs' && k !== 'aggregations' && k !== 'meta');
    if (types.length !== 1) throw new QueryError(`[${where}.${name}] expects exactly one aggregation type, found [${types.join(', ')}]`);
    const type = types[0];
    const body = def[type];
    if (!isRecord(body)) throw new QueryError(`[${where}.${name}.${type}] must be an object`);
    const path = `${where}.${name}`;
    if (sub !== undefined && !['terms', 'date_histogram', 'range'].includes(type)) {
      throw new QueryError(`[${path}] aggregation [${type}] cannot have sub-aggregations`);
    }
    switch (type) {
      case 'terms': out[name] = terms(body, docs, ctx, path, sub); break;
      case 'date_histogram': out[name] = dateHistogram(body, docs, ctx, path, sub); break;
      case 'range': out[name] = range(body, docs, ctx, path, sub); break;
      case 'min': case 'max': case 'avg': case 'sum': case 'value_count': case 'cardinality':
        out[name] = metric(type, body, docs, ctx, path); break;
      default:
        throw new QueryError(`[${path}] unknown aggregation type [${type}]`);
    }
  }
  return out;
}

function subAggs(sub: unknown, docs: number[], ctx: AggContext, path: string): Record<string, Agg> {
  return sub === undefined ? {} : runAggregations(sub, Uint32Array.from(docs), ctx, path);
}

// ---------------------------------------------------------------- metrics

function metric(type: string, body: Record<string, unknown>, docs: Uint32Array, ctx: AggContext, path: string): Agg {
  checkKeys(body, ['field', 'missing', 'format', 'precision_threshold'], path);
  const src = resolveSource(ctx.store, body.field, path);
  const isDate = src.kind === 'date';
  if (type === 'value_count' || type === 'cardinality') {
    let count = 0;
    const distinct = new Set<number | string>();
    for (const d of docs) {
      if (src.kind === 'keyword') {
        src.field.docOrds.forEach(d, (ord) => { count++; distinct.add(ord); });
      } else {
        forEachNumber(ctx.store, src, d, (v) => { count++; distinct.add(v); });
      }
    }
    return { value: type === 'value_count' ? count : distinct.size };
  }
  if (src.kind === 'keyword' && !src.boolean) throw new QueryError(`[${path}] field [${String(body.field)}] is not numeric: ${type} needs a number or date field`);
  let min = Infinity, max = -Infinity, sum = 0, count = 0;
  for (const d of docs) {
    forEachNumber(ctx.store, src, d, (v) => {
      if (v < min) min = v;
      if (v > max) max = v;
      sum += v;
      count++;
    });
  }
  let value: number | null;
  switch (type) {
    case 'min': value = count ? min : null; break;
    case 'max': value = count ? max : null; break;
    case 'avg': value = count ? sum / count : null; break;
    default: value = sum;
  }
  const out: Agg = { value };
  if (isDate && value !== null && type !== 'sum') out.value_as_string = formatDate(value);
  return out;
}

function metricValue(agg: Agg | undefined): number {
  const v = agg?.value;
  return typeof v === 'number' ? v : NaN;
}

// ---------------------------------------------------------------- terms

interface Bucket { key: string | number; keyAsString?: string; docs: number[] }

type OrderSpec = { by: string; dir: 'asc' | 'desc' };

function parseOrder(raw: unknown, path: string): OrderSpec[] {
  if (raw === undefined) return [{ by: '_count', dir: 'desc' }, { by: '_key', dir: 'asc' }];
  const list = Array.isArray(raw) ? raw : [raw];
  const out: OrderSpec[] = list.map((o) => {
    if (!isRecord(o) || Object.keys(o).length !== 1) throw new QueryError(`[${path}.order] entries look like {"_count": "desc"}`);
    const [by, dir] = Object.entries(o)[0];
    if (dir !== 'asc' && dir !== 'desc') throw new QueryError(`[${path}.order] direction must be asc or desc, got ${describe(dir)}`);
    return { by: by === '_term' ? '_key' : by, dir };
  });
  if (!out.some((o) => o.by === '_key')) out.push({ by: '_key', dir: 'asc' });
  return out;
}

function terms(body: Record<string, unknown>, docs: Uint32Array, ctx: AggContext, path: string, sub: unknown): Agg {
  checkKeys(body, ['field', 'size', 'order', 'min_doc_count', 'shard_size', 'show_term_doc_count_error', 'missing'], path);
  const size = intParam(body.size, `${path}.size`, 10);
  if (size < 1) throw new QueryError(`[${path}] [size] must be greater than 0, got ${size}`);
  const minDocCount = intParam(body.min_doc_count, `${path}.min_doc_count`, 1);
  const order = parseOrder(body.order, path);
  const src = resolveSource(ctx.store, body.field, path);
  const metricOrder = order.some((o) => o.by !== '_count' && o.by !== '_key');
  if (src.kind === 'keyword' && !src.boolean && !metricOrder) return keywordTerms(src.field, docs, size, minDocCount, order, ctx, path, sub);
  const buckets = new Map<string | number, Bucket>();
  const add = (key: string | number, keyAsString: string | undefined, doc: number): void => {
    let b = buckets.get(key);
    if (!b) { b = { key, keyAsString, docs: [] }; buckets.set(key, b); }
    if (b.docs[b.docs.length - 1] !== doc) b.docs.push(doc);
  };
  for (const d of docs) {
    if (src.kind === 'keyword') {
      src.field.docOrds.forEach(d, (ord) => {
        const v = src.field.values[ord];
        if (src.boolean) add(v === 'true' ? 1 : 0, v, d);
        else add(v, undefined, d);
      });
    } else if (src.kind === 'date') {
      forEachNumber(ctx.store, src, d, (v) => add(v, formatDate(v), d));
    } else {
      forEachNumber(ctx.store, src, d, (v) => add(v, undefined, d));
    }
  }
  const candidates = [...buckets.values()].filter((b) => b.docs.length >= minDocCount);
  const withSubs = candidates.map((b) => ({ b, subs: metricOrder ? subAggs(sub, b.docs, ctx, path) : undefined }));
  withSubs.sort((x, y) => {
    for (const o of order) {
      let c: number;
      if (o.by === '_count') c = x.b.docs.length - y.b.docs.length;
      else if (o.by === '_key') c = x.b.key < y.b.key ? -1 : x.b.key > y.b.key ? 1 : 0;
      else {
        const [aggName, prop] = o.by.split('.');
        const vx = metricValue(x.subs?.[aggName]), vy = metricValue(y.subs?.[aggName]);
        if (!x.subs || !(aggName in x.subs)) throw new QueryError(`[${path}.order] refers to unknown sub-aggregation [${aggName}]`);
        void prop;
        c = (Number.isNaN(vx) ? -Infinity : vx) - (Number.isNaN(vy) ? -Infinity : vy);
      }
      if (c !== 0) return o.dir === 'asc' ? c : -c;
    }
    return 0;
  });
  const top = withSubs.slice(0, size);
  let other = 0;
  for (let i = size; i < withSubs.length; i++) other += withSubs[i].b.docs.length;
  return {
    doc_count_error_upper_bound: 0,
    sum_other_doc_count: other,
    buckets: top.map(({ b, subs }) => ({
      key: b.key,
      ...(b.keyAsString !== undefined ? { key_as_string: b.keyAsString } : {}),
      doc_count: b.docs.length,
      ...(subs ?? subAggs(sub, b.docs, ctx, path)),
    })),
  };
}

/** Terms over a keyword field ordered by count/key: counts per ordinal, doc lists only for the buckets kept. */
function keywordTerms(
  field: KeywordField, docs: Uint32Array, size: number, minDocCount: number, order: OrderSpec[], ctx: AggContext, path: string, sub: unknown,
): Agg {
  const counts = new Uint32Array(field.values.length);
  const dv = field.docOrds;
  const vals = dv.values.data;
  for (let i = 0; i < docs.length; i++) {
    for (let j = dv.startOf(docs[i]), e = dv.endOf(docs[i]); j < e; j++) counts[vals[j]]++;
  }
  const ords: number[] = [];
  for (let o = 0; o < counts.length; o++) if (counts[o] >= Math.max(1, minDocCount)) ords.push(o);
  const values = field.values;
  ords.sort((a, b) => {
    for (const o of order) {
      const c = o.by === '_count' ? counts[a] - counts[b] : values[a] < values[b] ? -1 : values[a] > values[b] ? 1 : 0;
      if (c !== 0) return o.dir === 'asc' ? c : -c;
    }
    return 0;
  });
  const top = ords.slice(0, size);
  let other = 0;
  for (let i = size; i < ords.length; i++) other += counts[ords[i]];
  let lists: Map<number, number[]> | undefined;
  if (sub !== undefined) {
    lists = new Map(top.map((o) => [o, [] as number[]]));
    for (let i = 0; i < docs.length; i++) {
      for (let j = dv.startOf(docs[i]), e = dv.endOf(docs[i]); j < e; j++) lists.get(vals[j])?.push(docs[i]);
    }
  }
  return {
    doc_count_error_upper_bound: 0,
    sum_other_doc_count: other,
    buckets: top.map((o) => ({ key: values[o], doc_count: counts[o], ...(lists ? subAggs(sub, lists.get(o) ?? [], ctx, path) : {}) })),
  };
}

// ---------------------------------------------------------------- date_histogram

const CALENDAR: Record<string, Unit | 'q'> = {
  minute: 'm', '1m': 'm', hour: 'h', '1h': 'h', day: 'd', '1d': 'd', week: 'w', '1w': 'w',
  month: 'M', '1M': 'M', quarter: 'q', '1q': 'q', year: 'y', '1y': 'y',
};

const FIXED_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function parseFixed(raw: string, path: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(raw.trim());
  if (!m || Number(m[1]) <= 0) throw new QueryError(`[${path}] bad fixed_interval [${raw}] (e.g. 30d, 12h, 90m, 10s, 500ms)`);
  return Number(m[1]) * FIXED_UNITS[m[2]];
}

function dateHistogram(body: Record<string, unknown>, docs: Uint32Array, ctx: AggContext, path: string, sub: unknown): Agg {
  checkKeys(body, ['field', 'calendar_interval', 'fixed_interval', 'interval', 'format', 'min_doc_count', 'time_zone', 'extended_bounds', 'order', 'keyed', 'offset'], path);
  if (body.time_zone !== undefined && body.time_zone !== 'UTC' && body.time_zone !== 'Z' && body.time_zone !== '+00:00') throw new QueryError(`[${path}] only time_zone UTC is supported`);
  if (body.offset !== undefined) throw new QueryError(`[${path}] [offset] is not supported`);
  const src = resolveSource(ctx.store, body.field, path);
  if (src.kind !== 'date' && src.kind !== 'number' && src.kind !== 'unmapped') throw new QueryError(`[${path}] field [${String(body.field)}] is not a date field`);
  const calRaw = body.calendar_interval ?? (body.interval !== undefined && String(body.interval) in CALENDAR ? body.interval : undefined);
  const fixedRaw = body.fixed_interval ?? (calRaw === undefined ? body.interval : undefined);
  if ((calRaw === undefined) === (fixedRaw === undefined)) throw new QueryError(`[${path}] requires exactly one of [calendar_interval] or [fixed_interval]`);
  let floor: (t: number) => number;
  let next: (t: number) => number;
  if (calRaw !== undefined) {
    const unit = CALENDAR[String(calRaw)];
    if (!unit) throw new QueryError(`[${path}] unknown calendar_interval [${String(calRaw)}]`);
    if (unit === 'q') {
      floor = (t) => { const d = new Date(roundDown(t, 'M')); return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - (d.getUTCMonth() % 3), 1); };
      next = (t) => addUnit(t, 3, 'M');
    } else {
      floor = (t) => roundDown(t, unit);
      next = (t) => addUnit(t, 1, unit);
    }
  } else {
    const ms = parseFixed(stringParam(fixedRaw, `${path}.fixed_interval`), path);
    floor = (t) => Math.floor(t / ms) * ms;
    next = (t) => t + ms;
  }
  const minDocCount = intParam(body.min_doc_count, `${path}.min_doc_count`, 0);
  const byKey = new Map<number, number[]>();
  for (const d of docs) {
    forEachNumber(ctx.store, src, d, (v) => {
      const k = floor(v);
      const list = byKey.get(k);
      if (!list) byKey.set(k, [d]);
      else if (list[list.length - 1] !== d) list.push(d);
    });
  }
  let keys = [...byKey.keys()].sort((a, b) => a - b);
  if (isRecord(body.extended_bounds)) {
    const eb = body.extended_bounds;
    if (eb.min !== undefined) keys.unshift(floor(resolveDateMath(eb.min, ctx.now, false, `${path}.extended_bounds.min`)));
    if (eb.max !== undefined) keys.push(floor(resolveDateMath(eb.max, ctx.now, false, `${path}.extended_bounds.max`)));
    keys = [...new Set(keys)].sort((a, b) => a - b);
  }
  const buckets: Agg[] = [];
  if (keys.length > 0) {
    const last = keys[keys.length - 1];
    const MAX_BUCKETS = 65_536;
    for (let k = keys[0]; k <= last; k = next(k)) {
      const list = byKey.get(k) ?? [];
      if (buckets.length >= MAX_BUCKETS) throw new QueryError(`[${path}] would create more than ${MAX_BUCKETS} buckets`);
      if (list.length < minDocCount) continue;
      buckets.push({ key_as_string: formatDate(k), key: k, doc_count: list.length, ...subAggs(sub, list, ctx, path) });
    }
  }
  if (isRecord(body.order) && (body.order._key === 'desc' || body.order._count !== undefined)) {
    const desc = body.order._key === 'desc' || body.order._count === 'desc';
    const byCount = body.order._count !== undefined;
    buckets.sort((a, b) => {
      const c = byCount ? Number(a.doc_count) - Number(b.doc_count) : Number(a.key) - Number(b.key);
      return desc ? -c : c;
    });
  }
  return { buckets };
}

// ---------------------------------------------------------------- range

function range(body: Record<string, unknown>, docs: Uint32Array, ctx: AggContext, path: string, sub: unknown): Agg {
  checkKeys(body, ['field', 'ranges', 'keyed', 'format'], path);
  const src = resolveSource(ctx.store, body.field, path);
  const isDate = src.kind === 'date';
  if (!Array.isArray(body.ranges) || body.ranges.length === 0) throw new QueryError(`[${path}] requires [ranges] as a non-empty array`);
  const bound = (v: unknown, what: string): number | undefined => {
    if (v === undefined || v === null) return undefined;
    if (isDate) return resolveDateMath(v, ctx.now, false, `${path}.${what}`);
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
    if (!Number.isFinite(n)) throw new QueryError(`[${path}] [${what}] must be a number, got ${describe(v)}`);
    return n;
  };
  const ranges = body.ranges.map((r, i) => {
    if (!isRecord(r)) throw new QueryError(`[${path}.ranges] entry ${i} must be an object`);
    checkKeys(r, ['from', 'to', 'key'], `${path}.ranges`);
    return { from: bound(r.from, 'from'), to: bound(r.to, 'to'), key: r.key === undefined ? undefined : String(r.key) };
  });
  const lists = ranges.map(() => [] as number[]);
  for (const d of docs) {
    const hit = new Array<boolean>(ranges.length).fill(false);
    forEachNumber(ctx.store, src, d, (v) => {
      ranges.forEach((r, i) => {
        if ((r.from === undefined || v >= r.from) && (r.to === undefined || v < r.to)) hit[i] = true;
      });
    });
    hit.forEach((h, i) => { if (h) lists[i].push(d); });
  }
  const fmt = (v: number | undefined): string => (v === undefined ? '*' : isDate ? formatDate(v) : javaDouble(v));
  const buckets = ranges.map((r, i) => {
    const b: Agg = { key: r.key ?? `${fmt(r.from)}-${fmt(r.to)}` };
    if (r.from !== undefined) { b.from = r.from; if (isDate) b.from_as_string = formatDate(r.from); }
    if (r.to !== undefined) { b.to = r.to; if (isDate) b.to_as_string = formatDate(r.to); }
    b.doc_count = lists[i].length;
    return { ...b, ...subAggs(sub, lists[i], ctx, path) };
  });
  if (body.keyed === true) {
    const keyed: Record<string, Agg> = {};
    for (const b of buckets) { const { key, ...rest } = b; keyed[String(key)] = rest; }
    return { buckets: keyed };
  }
  return { buckets };
}

export type { AggContext };
