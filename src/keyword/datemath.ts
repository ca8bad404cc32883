import { QueryError } from './errors';

/**
 * Elasticsearch date values and date math, in UTC: `now`, `now-7d`, `now/d`, `2024-01-01||+1M/d`,
 * ISO 8601 / RFC 3339 date-times (`strict_date_optional_time`) and epoch milliseconds.
 */

const ISO = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?)?)?$/i;

/** Parses a date string (no math) to epoch millis, or undefined if it is not one. */
const FULL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?(?:Z|[+-]\d{2}:\d{2})$/;

export function parseDate(value: string): number | undefined {
  // Fast path for complete RFC 3339 timestamps (what the service stores).
  if (FULL_ISO.test(value)) {
    const t = Date.parse(value);
    if (!Number.isNaN(t) && Number(value.slice(8, 10)) === new Date(t + offsetMillis(value)).getUTCDate()) return t;
  }
  const s = value.trim();
  if (/^-?\d+$/.test(s) && s.length !== 4) return Number(s); // epoch_millis; a bare 4-digit year is a year
  const m = ISO.exec(s);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, se, frac, zone] = m;
  const month = mo ? Number(mo) : 1;
  const day = d ? Number(d) : 1;
  const hour = h ? Number(h) : 0;
  const minute = mi ? Number(mi) : 0;
  const second = se ? Number(se) : 0;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  const ms = frac ? Number((frac + '00').slice(0, 3)) : 0;
  let t = Date.UTC(Number(y), month - 1, day, hour, minute, second, ms);
  if (new Date(t).getUTCDate() !== day) return undefined; // e.g. 2024-02-31
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const offset = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
    t -= sign * offset * 60_000;
  }
  return t;
}

/**
 * As an upper bound (`lte`, `gt`), a date without all its parts means the last millisecond it
 * covers: Elasticsearch's round-up parser fills missing fields with their maximum.
 */
export function roundUpPartialDate(raw: string, t: number): number {
  const s = raw.trim();
  if (/^\d{4}$/.test(s)) return Date.UTC(Number(s) + 1, 0, 1) - 1;
  if (/^\d{4}-\d{2}$/.test(s)) { const d = new Date(t); return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - 1; }
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return t + 86_400_000 - 1;
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}$/.test(s)) return t + 3_600_000 - 1;
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}$/.test(s)) return t + 60_000 - 1;
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:?\d{2})?$/i.test(s)) return t + 999;
  return t;
}

/** The offset written in a full timestamp, so the day can be checked in its own zone. */
function offsetMillis(value: string): number {
  if (value.endsWith('Z')) return 0;
  const z = value.slice(-6);
  const sign = z[0] === '-' ? -1 : 1;
  return sign * (Number(z.slice(1, 3)) * 60 + Number(z.slice(4, 6))) * 60_000;
}

type Unit = 'y' | 'M' | 'w' | 'd' | 'h' | 'm' | 's';

function normalizeUnit(u: string): Unit | undefined {
  if (u === 'H') return 'h';
  return (['y', 'M', 'w', 'd', 'h', 'm', 's'] as const).find((x) => x === u);
}

function addMonths(d: Date, n: number): number {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + n;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const day = Math.min(d.getUTCDate(), lastDay);
  return Date.UTC(y, m, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
}

function add(t: number, n: number, unit: Unit): number {
  const d = new Date(t);
  switch (unit) {
    // months and years clamp the day to the target month's length, as java.time does (Jan 31 + 1M = Feb 29)
    case 'y': return addMonths(d, 12 * n);
    case 'M': return addMonths(d, n);
    case 'w': return t + n * 7 * 86_400_000;
    case 'd': return t + n * 86_400_000;
    case 'h': return t + n * 3_600_000;
    case 'm': return t + n * 60_000;
    case 's': return t + n * 1000;
  }
}

/** Start of the `unit` containing t (weeks start on Monday, as in Elasticsearch). */
export function roundDown(t: number, unit: Unit): number {
  const d = new Date(t);
  switch (unit) {
    case 'y': return Date.UTC(d.getUTCFullYear(), 0, 1);
    case 'M': return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    case 'w': {
      const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
      const dow = (d.getUTCDay() + 6) % 7;
      return day - dow * 86_400_000;
    }
    case 'd': return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    case 'h': return t - (((t % 3_600_000) + 3_600_000) % 3_600_000);
    case 'm': return t - (((t % 60_000) + 60_000) % 60_000);
    case 's': return t - (((t % 1000) + 1000) % 1000);
  }
}

/**
 * Resolves a date-math expression to epoch millis. `roundUp` selects the last millisecond of a
 * rounded unit (ES uses it for `gt` and `lte`), otherwise its first.
 */
export function resolveDateMath(expr: unknown, now: number, roundUp: boolean, where: string): number {
  if (typeof expr === 'number' && Number.isFinite(expr)) return expr;
  if (typeof expr !== 'string') throw new QueryError(`[${where}] expects a date, got ${JSON.stringify(expr)}`);
  let anchor: number;
  let math: string;
  if (expr.startsWith('now')) {
    anchor = now;
    math = expr.slice(3);
  } else {
    const sep = expr.indexOf('||');
    const base = sep >= 0 ? expr.slice(0, sep) : expr;
    const parsed = parseDate(base);
    if (parsed === undefined) throw new QueryError(`[${where}] failed to parse date field [${expr}]`);
    anchor = roundUp ? roundUpPartialDate(base, parsed) : parsed;
    math = sep >= 0 ? expr.slice(sep + 2) : '';
  }
  let t = anchor;
  let i = 0;
  while (i < math.length) {
    const op = math[i++];
    if (op === '/') {
      const unit = normalizeUnit(math[i++] ?? '');
      if (!unit) throw new QueryError(`[${where}] bad date math rounding unit in [${expr}]`);
      t = roundDown(t, unit);
      if (roundUp) t = add(t, 1, unit) - 1;
    } else if (op === '+' || op === '-') {
      let j = i;
      while (j < math.length && math[j] >= '0' && math[j] <= '9') j++;
      const n = j > i ? Number(math.slice(i, j)) : 1;
      const unit = normalizeUnit(math[j] ?? '');
      if (!unit) throw new QueryError(`[${where}] bad date math unit in [${expr}]`);
      t = add(t, op === '-' ? -n : n, unit);
      i = j + 1;
    } else {
      throw new QueryError(`[${where}] bad date math operator [${op}] in [${expr}]`);
    }
  }
  return t;
}

/** `strict_date_optional_time` output as Elasticsearch prints it: 2024-01-02T00:00:00.000Z. */
export function formatDate(t: number): string {
  return new Date(t).toISOString();
}

export { add as addUnit };
export type { Unit };
export { normalizeUnit };
