import { QueryError } from './errors';

/**
 * Elasticsearch's minimum_should_match: `3`, `-2`, `75%`, `-25%`, combinations `3<90%` and
 * `2<-25% 9<-3`; percentages round down; the result is clamped to [0, optional clauses].
 */
export function resolveMinimumShouldMatch(spec: number | string, optional: number): number {
  if (typeof spec === 'number') {
    if (!Number.isInteger(spec)) throw new QueryError(`[minimum_should_match] must be an integer or a string, got ${spec}`);
    return clamp(spec < 0 ? optional + spec : spec, optional);
  }
  const s = spec.trim();
  if (s.includes('<')) {
    let result = optional;
    for (const part of s.split(/\s+/)) {
      const i = part.indexOf('<');
      if (i < 0) throw new QueryError(`[minimum_should_match] cannot parse [${spec}]`);
      const upTo = Number(part.slice(0, i));
      if (!Number.isInteger(upTo)) throw new QueryError(`[minimum_should_match] cannot parse [${spec}]`);
      if (optional > upTo) result = resolveMinimumShouldMatch(part.slice(i + 1), optional);
    }
    return clamp(result, optional);
  }
  if (s.endsWith('%')) {
    const pct = Number(s.slice(0, -1));
    if (!Number.isFinite(pct)) throw new QueryError(`[minimum_should_match] cannot parse [${spec}]`);
    const calc = Math.trunc((optional * pct) / 100);
    return clamp(pct < 0 ? optional + calc : calc, optional);
  }
  const n = Number(s);
  if (!Number.isInteger(n) || s === '') throw new QueryError(`[minimum_should_match] cannot parse [${spec}]`);
  return clamp(n < 0 ? optional + n : n, optional);
}

function clamp(n: number, optional: number): number {
  return n < 0 ? 0 : n > optional ? optional : n;
}
