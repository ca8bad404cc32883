import { analyze } from './analyzer';
import { MinMatch, Query } from './ast';
import { parseDate, resolveDateMath } from './datemath';
import { QueryError } from './errors';
import { expandTextFields, resolveField, ResolvedField } from './fieldres';
import type { ParseContext } from './parse-context';
import { parseQueryString, parseSimpleQueryString } from './querystring';
import { asArray, checkKeys, describe, msmParam, numberParam, intParam, queryText, singleEntry, stringParam } from './values';
import { isRecord } from '../domain';

const MAX_BOOL_CLAUSES = 4096;
/** Text fields searched when a full-text query names none (ES: index.query.default_field = `*`). */
export const DEFAULT_FIELDS = ['*'];

export function parseQuery(q: unknown, ctx: ParseContext): Query {
  const [name, body] = singleEntry(q, 'query');
  switch (name) {
    case 'match_all': return matchAll(body);
    case 'match_none': return { kind: 'none' };
    case 'match': return match(body, ctx);
    case 'match_phrase': return matchPhrase(body, ctx);
    case 'multi_match': return multiMatch(body, ctx);
    case 'bool': return bool(body, ctx);
    case 'term': return term(body, ctx);
    case 'terms': return terms(body, ctx);
    case 'range': return range(body, ctx);
    case 'exists': return exists(body, ctx);
    case 'ids': return ids(body);
    case 'prefix': return prefix(body, ctx);
    case 'dis_max': return disMax(body, ctx);
    case 'constant_score': return constantScore(body, ctx);
    case 'query_string': return parseQueryString(body, ctx, parseQuery);
    case 'simple_query_string': return parseSimpleQueryString(body, ctx, parseQuery);
    default:
      throw new QueryError(`unknown query [${name}]`);
  }
}

function objectBody(body: unknown, where: string): Record<string, unknown> {
  if (!isRecord(body)) throw new QueryError(`[${where}] expects an object, got ${describe(body)}`);
  return body;
}

function matchAll(body: unknown): Query {
  const b = objectBody(body ?? {}, 'match_all');
  checkKeys(b, ['boost', '_name'], 'match_all');
  return { kind: 'all', boost: numberParam(b.boost, 'match_all.boost', 1) };
}

/** `{field: value}` or `{field: {query|value: ..., params}}`: the field and its parameter object. */
function fieldBody(body: unknown, where: string, valueKey: string): [string, Record<string, unknown>] {
  const [field, spec] = singleEntry(body, where);
  if (isRecord(spec)) {
    if (!(valueKey in spec)) throw new QueryError(`[${where}] requires [${valueKey}] for field [${field}]`);
    return [field, spec];
  }
  return [field, { [valueKey]: spec }];
}

/** One field's full-text query: analyzed terms on text fields, exact values elsewhere. */
export function fullTextQuery(
  ctx: ParseContext, fieldName: string, text: string, minMatch: MinMatch, boost: number, where: string,
): Query {
  const f = resolveField(ctx.store, fieldName);
  const parts: Query[] = [];
  if (f.text) {
    const terms = analyze(text);
    if (terms.length > 0) parts.push({ kind: 'text', field: f.name, terms, minMatch, boost });
  }
  parts.push(...exactValueQueries(ctx, f, text, boost, where, true));
  return combineAlternatives(parts);
}

/** Exact-value clauses on the non-text sides of a field (keyword, number, date, keyword sub-field). */
function exactValueQueries(ctx: ParseContext, f: ResolvedField, raw: string, boost: number, where: string, lenient: boolean): Query[] {
  const parts: Query[] = [];
  if (f.keyword) parts.push({ kind: 'keyword', field: f.name, value: raw, boost });
  if (f.numeric) {
    const n = Number(raw);
    if (raw.trim() !== '' && Number.isFinite(n)) {
      parts.push({ kind: 'numeric', field: f.name, source: 'meta_number', min: n, max: n, minInclusive: true, maxInclusive: true, boost });
    } else if (!lenient || (!f.text && !f.keyword)) {
      throw new QueryError(`[${where}] failed to create query: [${raw}] is not a number for field [${f.name}]`);
    }
  }
  if (f.date) {
    const t = parseDate(raw);
    if (t === undefined) throw new QueryError(`[${where}] failed to parse date field [${raw}] of [${f.name}]`);
    const end = resolveDateMath(raw, ctx.now, true, where);
    parts.push({ kind: 'numeric', field: f.name, source: 'date', min: t, max: end, minInclusive: true, maxInclusive: true, boost });
  }
  return parts;
}

function combineAlternatives(parts: Query[]): Query {
  if (parts.length === 0) return { kind: 'none' };
  if (parts.length === 1) return parts[0];
  return { kind: 'dismax', queries: parts, tieBreaker: 0, boost: 1 };
}

function match(body: unknown, ctx: ParseContext): Query {
  const [field, p] = fieldBody(body, 'match', 'query');
  checkKeys(p, ['query', 'operator', 'minimum_should_match', 'boost', 'analyzer', 'zero_terms_query', 'lenient', 'fuzziness', 'auto_generate_synonyms_phrase_query', '_name'], 'match');
  if (p.fuzziness !== undefined) throw new QueryError('[match] fuzziness is not supported');
  const text = queryText(p.query, 'match');
  const minMatch: MinMatch = { operator: operatorParam(p.operator, 'match'), minimumShouldMatch: msmParam(p.minimum_should_match, 'match') };
  const boost = numberParam(p.boost, 'match.boost', 1);
  const q = fullTextQuery(ctx, field, text, minMatch, boost, 'match');
  if (q.kind === 'none' && p.zero_terms_query === 'all' && analyze(text).length === 0) return { kind: 'all', boost };
  return q;
}

function operatorParam(v: unknown, where: string): 'or' | 'and' {
  if (v === undefined) return 'or';
  if (typeof v === 'string' && (v.toLowerCase() === 'or' || v.toLowerCase() === 'and')) return v.toLowerCase() as 'or' | 'and';
  throw new QueryError(`[${where}] [operator] must be "and" or "or", got ${describe(v)}`);
}

export function phraseQuery(ctx: ParseContext, fieldName: string, text: string, slop: number, boost: number, where: string): Query {
  const f = resolveField(ctx.store, fieldName);
  const parts: Query[] = [];
  if (f.text) {
    const terms = analyze(text);
    if (terms.length === 1) parts.push({ kind: 'text', field: f.name, terms, minMatch: { operator: 'or' }, boost });
    else if (terms.length > 1) parts.push({ kind: 'phrase', field: f.name, terms, slop, boost });
  }
  parts.push(...exactValueQueries(ctx, f, text, boost, where, true));
  return combineAlternatives(parts);
}

function matchPhrase(body: unknown, ctx: ParseContext): Query {
  const [field, p] = fieldBody(body, 'match_phrase', 'query');
  checkKeys(p, ['query', 'slop', 'boost', 'analyzer', 'zero_terms_query', '_name'], 'match_phrase');
  const slop = intParam(p.slop, 'match_phrase.slop', 0);
  if (slop < 0) throw new QueryError('[match_phrase] [slop] must be >= 0');
  return phraseQuery(ctx, field, queryText(p.query, 'match_phrase'), slop, numberParam(p.boost, 'match_phrase.boost', 1), 'match_phrase');
}

/** `title^2` -> [`title`, 2]. */
export function fieldWithBoost(spec: string, where: string): [string, number] {
  const i = spec.lastIndexOf('^');
  if (i < 0) return [spec, 1];
  const boost = Number(spec.slice(i + 1));
  if (!Number.isFinite(boost) || spec.slice(i + 1).trim() === '') throw new QueryError(`[${where}] bad field boost in [${spec}]`);
  return [spec.slice(0, i), boost];
}

function multiMatch(body: unknown, ctx: ParseContext): Query {
  const b = objectBody(body, 'multi_match');
  checkKeys(b, ['query', 'fields', 'type', 'operator', 'minimum_should_match', 'tie_breaker', 'boost', 'slop', 'analyzer', 'zero_terms_query', 'lenient', '_name'], 'multi_match');
  if (b.query === undefined) throw new QueryError('[multi_match] requires [query]');
  const text = queryText(b.query, 'multi_match');
  const fieldSpecs = b.fields === undefined ? DEFAULT_FIELDS : asArray(b.fields).map((f) => stringParam(f, 'multi_match.fields'));
  const type = b.type === undefined ? 'best_fields' : stringParam(b.type, 'multi_match.type');
  const boost = numberParam(b.boost, 'multi_match.boost', 1);
  const tieBreaker = numberParam(b.tie_breaker, 'multi_match.tie_breaker', type === 'most_fields' ? 1 : 0);
  const minMatch: MinMatch = { operator: operatorParam(b.operator, 'multi_match'), minimumShouldMatch: msmParam(b.minimum_should_match, 'multi_match') };
  const slop = intParam(b.slop, 'multi_match.slop', 0);
  const perField: Query[] = [];
  for (const spec of fieldSpecs) {
    const [pattern, fieldBoost] = fieldWithBoost(spec, 'multi_match');
    for (const field of expandTextFields(ctx.store, [pattern])) {
      let q: Query;
      if (type === 'best_fields' || type === 'most_fields') q = fullTextQuery(ctx, field, text, minMatch, fieldBoost, 'multi_match');
      else if (type === 'phrase') q = phraseQuery(ctx, field, text, slop, fieldBoost, 'multi_match');
      else throw new QueryError(`[multi_match] type [${type}] is not supported (best_fields, most_fields, phrase)`);
      if (q.kind !== 'none') perField.push(q);
    }
  }
  if (perField.length === 0) return { kind: 'none' };
  if (type === 'most_fields') return { kind: 'bool', must: [], should: perField, filter: [], mustNot: [], minShouldMatch: undefined, boost };
  return { kind: 'dismax', queries: perField, tieBreaker, boost };
}

function clauseList(v: unknown, ctx: ParseContext, where: string): Query[] {
  if (v === undefined) return [];
  const list = asArray(v);
  if (list.length > MAX_BOOL_CLAUSES) throw new QueryError(`[${where}] too many clauses (max ${MAX_BOOL_CLAUSES})`);
  return list.map((x) => parseQuery(x, ctx));
}

function bool(body: unknown, ctx: ParseContext): Query {
  const b = objectBody(body, 'bool');
  checkKeys(b, ['must', 'should', 'filter', 'must_not', 'minimum_should_match', 'boost', 'adjust_pure_negative', '_name'], 'bool');
  return {
    kind: 'bool',
    must: clauseList(b.must, ctx, 'bool.must'),
    should: clauseList(b.should, ctx, 'bool.should'),
    filter: clauseList(b.filter, ctx, 'bool.filter'),
    mustNot: clauseList(b.must_not, ctx, 'bool.must_not'),
    minShouldMatch: msmParam(b.minimum_should_match, 'bool'),
    boost: numberParam(b.boost, 'bool.boost', 1),
  };
}

function scalarValue(v: unknown, where: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new QueryError(`[${where}] value must be a string, number or boolean, got ${describe(v)}`);
}

function term(body: unknown, ctx: ParseContext): Query {
  const [field, p] = fieldBody(body, 'term', 'value');
  checkKeys(p, ['value', 'boost', 'case_insensitive', '_name'], 'term');
  const value = scalarValue(p.value, 'term');
  const boost = numberParam(p.boost, 'term.boost', 1);
  const f = resolveField(ctx.store, field);
  const parts: Query[] = [];
  if (f.text) parts.push({ kind: 'text', field: f.name, terms: [value], minMatch: { operator: 'or' }, boost });
  parts.push(...exactValueQueries(ctx, f, value, boost, 'term', false).map((q): Query => (q.kind === 'keyword' && f.name === 'id' ? { kind: 'keywords', field: 'id', values: [value], boost } : q)));
  return combineAlternatives(parts);
}

function terms(body: unknown, ctx: ParseContext): Query {
  const b = objectBody(body, 'terms');
  const boost = numberParam(b.boost, 'terms.boost', 1);
  const fields = Object.keys(b).filter((k) => k !== 'boost' && k !== '_name');
  if (fields.length !== 1) throw new QueryError(`[terms] expects exactly one field, found [${fields.join(', ')}]`);
  const field = fields[0];
  const raw = b[field];
  if (!Array.isArray(raw)) throw new QueryError(`[terms] field [${field}] expects an array of values, got ${describe(raw)}`);
  const values = raw.map((v) => scalarValue(v, 'terms'));
  const f = resolveField(ctx.store, field);
  const parts: Query[] = [];
  if (f.text || f.keyword) parts.push({ kind: 'keywords', field: f.name, values, boost });
  if (f.numeric || f.date) {
    for (const v of values) parts.push(...exactValueQueries(ctx, { ...f, text: false, keyword: false }, v, boost, 'terms', false));
  }
  if (parts.length === 0) return { kind: 'none' };
  if (parts.length === 1 && parts[0].kind === 'keywords') return parts[0];
  return { kind: 'constant', query: { kind: 'bool', must: [], should: parts, filter: [], mustNot: [], minShouldMatch: undefined, boost: 1 }, boost };
}

function range(body: unknown, ctx: ParseContext): Query {
  const [field, specRaw] = singleEntry(body, 'range');
  if (!isRecord(specRaw)) throw new QueryError(`[range] field [${field}] expects an object, got ${describe(specRaw)}`);
  const p = specRaw;
  checkKeys(p, ['gt', 'gte', 'lt', 'lte', 'from', 'to', 'include_lower', 'include_upper', 'boost', 'format', 'time_zone', 'relation', '_name'], 'range');
  if (p.time_zone !== undefined && p.time_zone !== 'UTC' && p.time_zone !== 'Z' && p.time_zone !== '+00:00') {
    throw new QueryError('[range] only time_zone UTC is supported');
  }
  const boost = numberParam(p.boost, 'range.boost', 1);
  // from/to with include_lower/include_upper is the legacy spelling of gte/lte.
  let lower = p.gte ?? p.gt;
  let minInclusive = p.gte !== undefined;
  let upper = p.lte ?? p.lt;
  let maxInclusive = p.lte !== undefined;
  if (lower === undefined && p.from !== undefined && p.from !== null) { lower = p.from; minInclusive = p.include_lower !== false; }
  if (upper === undefined && p.to !== undefined && p.to !== null) { upper = p.to; maxInclusive = p.include_upper !== false; }
  const f = resolveField(ctx.store, field);
  if (f.date) {
    // ES rounding: gt and lte round up, gte and lt round down.
    const min = lower === undefined || lower === null ? -Infinity : resolveDateMath(lower, ctx.now, !minInclusive, `range.${field}`);
    const max = upper === undefined || upper === null ? Infinity : resolveDateMath(upper, ctx.now, maxInclusive, `range.${field}`);
    return { kind: 'numeric', field: f.name, source: 'date', min, max, minInclusive, maxInclusive, boost };
  }
  const parts: Query[] = [];
  const num = (v: unknown): number | undefined => {
    if (v === undefined || v === null) return undefined;
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
    return Number.isFinite(n) ? n : NaN;
  };
  const lo = num(lower);
  const hi = num(upper);
  const numericBounds = !Number.isNaN(lo ?? 0) && !Number.isNaN(hi ?? 0);
  if (f.numeric) {
    if (!numericBounds) throw new QueryError(`[range] bounds of numeric field [${field}] must be numbers`);
    parts.push({ kind: 'numeric', field: f.name, source: 'meta_number', min: lo ?? -Infinity, max: hi ?? Infinity, minInclusive, maxInclusive, boost });
  }
  // Strings of meta: date strings compare as dates (ES maps them as dates), other strings lexically.
  const kwName = f.keyword ? f.name : ctx.store.keyword.has(`${f.name}.keyword`) ? `${f.name}.keyword` : undefined;
  if (kwName) {
    const asDate = (v: unknown): boolean => v === undefined || v === null || (typeof v === 'string' && (v.startsWith('now') || parseDate(v.split('||')[0]) !== undefined));
    if (!numericBounds && asDate(lower) && asDate(upper)) {
      const min = lower === undefined || lower === null ? -Infinity : resolveDateMath(lower, ctx.now, !minInclusive, `range.${field}`);
      const max = upper === undefined || upper === null ? Infinity : resolveDateMath(upper, ctx.now, maxInclusive, `range.${field}`);
      parts.push({ kind: 'numeric', field: kwName, source: 'keyword_date', min, max, minInclusive, maxInclusive, boost });
    } else if (!f.numeric || kwName === f.name) {
      const s = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : scalarValue(v, 'range'));
      parts.push({
        kind: 'keyword_range', field: kwName, boost,
        ...(minInclusive ? { gte: s(lower) } : { gt: s(lower) }),
        ...(maxInclusive ? { lte: s(upper) } : { lt: s(upper) }),
      });
    }
  }
  return combineAlternatives(parts);
}

function exists(body: unknown, ctx: ParseContext): Query {
  const b = objectBody(body, 'exists');
  checkKeys(b, ['field', 'boost', '_name'], 'exists');
  const field = stringParam(b.field, 'exists.field');
  const f = resolveField(ctx.store, field);
  return { kind: 'exists', field: f.name, boost: numberParam(b.boost, 'exists.boost', 1) };
}

function ids(body: unknown): Query {
  const b = objectBody(body, 'ids');
  checkKeys(b, ['values', 'boost', 'type', '_name'], 'ids');
  if (!Array.isArray(b.values)) throw new QueryError(`[ids] [values] must be an array, got ${describe(b.values)}`);
  return { kind: 'keywords', field: 'id', values: b.values.map((v) => scalarValue(v, 'ids.values')), boost: numberParam(b.boost, 'ids.boost', 1) };
}

function prefix(body: unknown, ctx: ParseContext): Query {
  const [field, p] = fieldBody(body, 'prefix', 'value');
  checkKeys(p, ['value', 'boost', 'rewrite', 'case_insensitive', '_name'], 'prefix');
  const value = scalarValue(p.value, 'prefix');
  const f = resolveField(ctx.store, field);
  if (!f.text && !f.keyword) return { kind: 'none' };
  return { kind: 'prefix', field: f.name, prefix: value, boost: numberParam(p.boost, 'prefix.boost', 1) };
}

function disMax(body: unknown, ctx: ParseContext): Query {
  const b = objectBody(body, 'dis_max');
  checkKeys(b, ['queries', 'tie_breaker', 'boost', '_name'], 'dis_max');
  if (!Array.isArray(b.queries)) throw new QueryError('[dis_max] requires [queries] as an array');
  return { kind: 'dismax', queries: b.queries.map((x) => parseQuery(x, ctx)), tieBreaker: numberParam(b.tie_breaker, 'dis_max.tie_breaker', 0), boost: numberParam(b.boost, 'dis_max.boost', 1) };
}

function constantScore(body: unknown, ctx: ParseContext): Query {
  const b = objectBody(body, 'constant_score');
  checkKeys(b, ['filter', 'boost', '_name'], 'constant_score');
  if (b.filter === undefined) throw new QueryError('[constant_score] requires [filter]');
  return { kind: 'constant', query: parseQuery(b.filter, ctx), boost: numberParam(b.boost, 'constant_score.boost', 1) };
}
