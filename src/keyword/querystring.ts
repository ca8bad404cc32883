import { analyze } from './analyzer';
import { MinMatch, Query } from './ast';
import type { ClauseParser, ParseContext } from './parse-context';
import { QueryError } from './errors';
import { expandTextFields } from './fieldres';
import { asArray, checkKeys, describe, msmParam, numberParam, stringParam } from './values';
import { isRecord } from '../domain';

/*
 * query_string follows Lucene's classic query parser: clauses with modifiers (+, -, !, NOT),
 * conjunctions (AND, &&, OR, ||) that turn neighbouring clauses MUST/SHOULD exactly as Lucene's
 * addClause does, `field:term`, `field:"a phrase"~slop`, `field:(group)`, `field:[a TO b]` ranges,
 * `term*` prefixes, `term^2` boosts, `*` / `*:*` for everything. simple_query_string follows Lucene's
 * SimpleQueryParser: `+` AND, `|` OR, `-` NOT, quotes, `*` prefix, parentheses; never a syntax error.
 */

type Occur = 'must' | 'should' | 'must_not';
interface Clause { occur: Occur; query: Query }

interface Settings {
  ctx: ParseContext;
  parseClause: ClauseParser;
  fields: [string, number][];
  defaultOperator: 'or' | 'and';
  phraseSlop: number;
  tieBreaker: number;
  where: string;
}

/** Builds the query for one bare word over the default (or given) fields. */
function wordQuery(s: Settings, word: string, fields: [string, number][]): Query | undefined {
  if (word === '*') return { kind: 'all', boost: 1 };
  if (word.endsWith('*') && !word.slice(0, -1).includes('*')) {
    const prefix = word.slice(0, -1).toLowerCase();
    const per = fields.map(([f, b]): Query => ({ kind: 'prefix', field: f, prefix, boost: b }));
    return per.length === 1 ? per[0] : { kind: 'dismax', queries: per, tieBreaker: s.tieBreaker, boost: 1 };
  }
  const terms = analyze(word);
  if (terms.length === 0) return undefined;
  const minMatch: MinMatch = { operator: s.defaultOperator };
  const per: Query[] = [];
  for (const [f, b] of fields) {
    if (s.ctx.store.text.has(f)) per.push({ kind: 'text', field: f, terms, minMatch, boost: b });
    else {
      // keyword, number and date fields: the exact value, as `match` treats them
      const q = s.parseClause({ match: { [f]: { query: word, boost: b } } }, s.ctx);
      if (q.kind !== 'none') per.push(q);
    }
  }
  if (per.length === 0) return { kind: 'none' };
  return per.length === 1 ? per[0] : { kind: 'dismax', queries: per, tieBreaker: s.tieBreaker, boost: 1 };
}

function phraseOver(s: Settings, text: string, slop: number, fields: [string, number][]): Query | undefined {
  const terms = analyze(text);
  if (terms.length === 0) return undefined;
  const per: Query[] = fields
    .filter(([f]) => s.ctx.store.text.has(f))
    .map(([f, b]): Query => (terms.length === 1
      ? { kind: 'text', field: f, terms, minMatch: { operator: 'or' }, boost: b }
      : { kind: 'phrase', field: f, terms, slop, boost: b }));
  if (per.length === 0) return { kind: 'none' };
  return per.length === 1 ? per[0] : { kind: 'dismax', queries: per, tieBreaker: s.tieBreaker, boost: 1 };
}

function withBoost(q: Query, boost: number): Query {
  if (boost === 1 || q.kind === 'none') return q;
  if (q.kind === 'bool' || q.kind === 'dismax' || q.kind === 'constant' || q.kind === 'all') return { ...q, boost: q.boost * boost };
  return { kind: 'bool', must: [q], should: [], filter: [], mustNot: [], minShouldMatch: undefined, boost };
}

function clausesToQuery(clauses: Clause[]): Query {
  if (clauses.length === 1 && clauses[0].occur !== 'must_not') return clauses[0].query;
  const must = clauses.filter((c) => c.occur === 'must').map((c) => c.query);
  const should = clauses.filter((c) => c.occur === 'should').map((c) => c.query);
  const mustNot = clauses.filter((c) => c.occur === 'must_not').map((c) => c.query);
  // A purely negative group matches everything else, as Elasticsearch rewrites it.
  const filter: Query[] = must.length === 0 && should.length === 0 && mustNot.length > 0 ? [{ kind: 'all', boost: 1 }] : [];
  return { kind: 'bool', must, should, filter, mustNot, minShouldMatch: undefined, boost: 1 };
}

// ---------------------------------------------------------------- query_string

const SPECIAL = new Set(['+', '-', '!', '(', ')', '{', '}', '[', ']', '^', '"', '~', ':', '\\', '/', '&', '|']);

class ClassicParser {
  private i = 0;
  constructor(private readonly src: string, private readonly s: Settings) {}

  parse(): Query {
    const q = this.query(this.s.fields, false);
    this.skipWs();
    if (this.i < this.src.length) this.fail(`unexpected [${this.src[this.i]}]`);
    return q;
  }

  private fail(msg: string): never {
    throw new QueryError(`[${this.s.where}] failed to parse query [${this.src}]: ${msg} at position ${this.i}`);
  }

  private skipWs(): void {
    while (this.i < this.src.length && /\s/.test(this.src[this.i])) this.i++;
  }

  private peekWord(): string {
    let j = this.i;
    while (j < this.src.length && !/\s/.test(this.src[j]) && this.src[j] !== ')' && this.src[j] !== '(') j++;
    return this.src.slice(this.i, j);
  }

  private query(fields: [string, number][], inGroup: boolean): Query {
    const clauses: Clause[] = [];
    let first = true;
    for (;;) {
      this.skipWs();
      if (this.i >= this.src.length) break;
      if (this.src[this.i] === ')') {
        if (!inGroup) this.fail('unbalanced [)]');
        break;
      }
      let conj: 'none' | 'and' | 'or' = 'none';
      const w = this.peekWord();
      if (!first && (w === 'AND' || w === '&&')) { conj = 'and'; this.i += w.length; this.skipWs(); }
      else if (!first && (w === 'OR' || w === '||')) { conj = 'or'; this.i += w.length; this.skipWs(); }
      let mods: 'none' | 'req' | 'not' = 'none';
      const w2 = this.peekWord();
      if (w2 === 'NOT') { mods = 'not'; this.i += 3; this.skipWs(); }
      else if (this.src[this.i] === '+') { mods = 'req'; this.i++; }
      else if (this.src[this.i] === '-' || this.src[this.i] === '!') { mods = 'not'; this.i++; }
      if (this.i >= this.src.length || this.src[this.i] === ')') this.fail('missing clause after operator');
      const q = this.clause(fields);
      this.addClause(clauses, conj, mods, q);
      first = false;
    }
    const kept = clauses.filter((c) => c.query.kind !== 'none' || c.occur === 'must');
    if (kept.length === 0) return { kind: 'none' };
    return clausesToQuery(kept);
  }

  /** Lucene QueryParserBase.addClause. */
  private addClause(clauses: Clause[], conj: 'none' | 'and' | 'or', mods: 'none' | 'req' | 'not', q: Query | undefined): void {
    const last = clauses[clauses.length - 1];
    if (last && conj === 'and' && last.occur !== 'must_not') last.occur = 'must';
    if (last && this.s.defaultOperator === 'and' && conj === 'or' && last.occur !== 'must_not') last.occur = 'should';
    if (!q) return;
    let required: boolean;
    const prohibited = mods === 'not';
    if (this.s.defaultOperator === 'or') {
      required = mods === 'req' || (conj === 'and' && !prohibited);
    } else {
      required = !prohibited && conj !== 'or';
    }
    if (required && !prohibited) clauses.push({ occur: 'must', query: q });
    else if (!prohibited) clauses.push({ occur: 'should', query: q });
    else clauses.push({ occur: 'must_not', query: q });
  }

  private readTerm(): string {
    let out = '';
    while (this.i < this.src.length) {
      const c = this.src[this.i];
      if (c === '\\') {
        if (this.i + 1 >= this.src.length) this.fail('dangling escape');
        out += this.src[this.i + 1];
        this.i += 2;
        continue;
      }
      if (/\s/.test(c) || (SPECIAL.has(c) && !(c === '-' && out.length > 0) && !(c === '/' && out.length > 0))) break;
      out += c;
      this.i++;
    }
    return out;
  }

  private boostSuffix(): number {
    if (this.src[this.i] !== '^') return 1;
    this.i++;
    const m = /^\d+(\.\d+)?/.exec(this.src.slice(this.i));
    if (!m) this.fail('expected a number after [^]');
    this.i += m[0].length;
    return Number(m[0]);
  }

  /** A parenthesised query over `fields` (the cursor on its '('), with its boost. */
  private group(fields: [string, number][]): Query {
    this.i++;
    const q = this.query(fields, true);
    if (this.src[this.i] !== ')') this.fail('missing [)]');
    this.i++;
    return withBoost(q, this.boostSuffix());
  }

  private clause(fields: [string, number][]): Query | undefined {
    const c = this.src[this.i];
    if (c === '(') return this.group(fields);
    if (c === '"') return this.phrase(fields);
    if (c === '[' || c === '{') this.fail('a range needs a field, as in field:[a TO b]');
    const word = this.readTerm();
    if (word === '') this.fail(`unexpected [${c}]`);
    if (this.src[this.i] === ':') {
      this.i++;
      const field: [string, number][] = word === '*' ? this.s.fields : expandTextOrKeep(this.s, word);
      const n = this.src[this.i];
      if (n === '(') return this.group(field);
      if (n === '"') return this.phrase(field);
      if (n === '[' || n === '{') return this.range(word);
      const value = this.readTerm();
      if (value === '') this.fail(`missing value after [${word}:]`);
      if (word === '*' && value === '*') return { kind: 'all', boost: this.boostSuffix() };
      if (this.src[this.i] === '~') this.fuzzySuffix();
      const q = wordQuery(this.s, value, field);
      return q && withBoost(q, this.boostSuffix());
    }
    if (this.src[this.i] === '~') this.fuzzySuffix();
    const q = wordQuery(this.s, word, fields);
    return q && withBoost(q, this.boostSuffix());
  }

  private fuzzySuffix(): never {
    this.fail('fuzzy queries (term~) are not supported');
  }

  private phrase(fields: [string, number][]): Query | undefined {
    this.i++;
    let text = '';
    while (this.i < this.src.length && this.src[this.i] !== '"') {
      if (this.src[this.i] === '\\' && this.i + 1 < this.src.length) this.i++;
      text += this.src[this.i++];
    }
    if (this.src[this.i] !== '"') this.fail('unterminated ["]');
    this.i++;
    let slop = this.s.phraseSlop;
    if (this.src[this.i] === '~') {
      this.i++;
      const m = /^\d+/.exec(this.src.slice(this.i));
      if (!m) this.fail('expected a number after [~]');
      slop = Number(m[0]);
      this.i += m[0].length;
    }
    const q = phraseOver(this.s, text, slop, fields);
    return q && withBoost(q, this.boostSuffix());
  }

  private range(field: string): Query {
    const open = this.src[this.i++];
    const close = open === '[' ? ']' : '}';
    const end = this.src.indexOf(close === ']' ? ']' : '}', this.i);
    if (end < 0) this.fail(`missing [${close}]`);
    const inner = this.src.slice(this.i, end).trim();
    this.i = end + 1;
    const m = /^(\S+)\s+TO\s+(\S+)$/.exec(inner);
    if (!m) this.fail(`range must be [a TO b], got [${inner}]`);
    const inclusive = open === '[';
    const bound = (v: string): string | undefined => (v === '*' ? undefined : v.replace(/^"|"$/g, ''));
    const spec: Record<string, unknown> = {};
    const lo = bound(m[1]);
    const hi = bound(m[2]);
    if (lo !== undefined) spec[inclusive ? 'gte' : 'gt'] = lo;
    if (hi !== undefined) spec[inclusive ? 'lte' : 'lt'] = hi;
    return withBoost(this.s.parseClause({ range: { [field]: spec } }, this.s.ctx), this.boostSuffix());
  }
}

function expandTextOrKeep(s: Settings, field: string): [string, number][] {
  const name = field === '_id' ? 'id' : field;
  if (name.includes('*')) return expandTextFields(s.ctx.store, [name]).map((f) => [f, 1]);
  return [[name, 1]];
}

function settings(body: Record<string, unknown>, ctx: ParseContext, parseClause: ClauseParser, where: string): Settings {
  const rawFields = body.fields !== undefined
    ? asArray(body.fields).map((f) => stringParam(f, `${where}.fields`))
    : [body.default_field !== undefined ? stringParam(body.default_field, `${where}.default_field`) : '*'];
  const fields: [string, number][] = [];
  for (const spec of rawFields) {
    const i = spec.lastIndexOf('^');
    const name = i >= 0 ? spec.slice(0, i) : spec;
    const boost = i >= 0 ? Number(spec.slice(i + 1)) : 1;
    if (!Number.isFinite(boost)) throw new QueryError(`[${where}] bad field boost in [${spec}]`);
    for (const f of name.includes('*') ? expandTextFields(ctx.store, [name]) : [name === '_id' ? 'id' : name]) fields.push([f, boost]);
  }
  const op = body.default_operator === undefined ? 'or' : String(body.default_operator).toLowerCase();
  if (op !== 'or' && op !== 'and') throw new QueryError(`[${where}] [default_operator] must be AND or OR, got ${describe(body.default_operator)}`);
  return {
    ctx, parseClause, fields, defaultOperator: op, where,
    phraseSlop: numberParam(body.phrase_slop, `${where}.phrase_slop`, 0),
    tieBreaker: numberParam(body.tie_breaker, `${where}.tie_breaker`, 0),
  };
}

function applyTopLevel(q: Query, body: Record<string, unknown>, where: string): Query {
  const boost = numberParam(body.boost, `${where}.boost`, 1);
  const msm = msmParam(body.minimum_should_match, where);
  let out = q;
  if (msm !== undefined && out.kind === 'bool') out = { ...out, minShouldMatch: msm };
  return withBoost(out, boost);
}

export function parseQueryString(body: unknown, ctx: ParseContext, parseClause: ClauseParser): Query {
  if (!isRecord(body)) throw new QueryError(`[query_string] expects an object, got ${describe(body)}`);
  checkKeys(body, ['query', 'default_field', 'fields', 'default_operator', 'phrase_slop', 'tie_breaker', 'boost', 'minimum_should_match', 'analyze_wildcard', 'allow_leading_wildcard', 'lenient', 'type', 'analyzer', '_name'], 'query_string');
  if (typeof body.query !== 'string') throw new QueryError('[query_string] requires [query] as a string');
  const s = settings(body, ctx, parseClause, 'query_string');
  return applyTopLevel(new ClassicParser(body.query, s).parse(), body, 'query_string');
}

// ---------------------------------------------------------------- simple_query_string

export function parseSimpleQueryString(body: unknown, ctx: ParseContext, parseClause: ClauseParser): Query {
  if (!isRecord(body)) throw new QueryError(`[simple_query_string] expects an object, got ${describe(body)}`);
  checkKeys(body, ['query', 'fields', 'default_operator', 'flags', 'boost', 'minimum_should_match', 'analyze_wildcard', 'lenient', 'analyzer', 'quote_field_suffix', 'auto_generate_synonyms_phrase_query', 'fuzzy_max_expansions', 'fuzzy_prefix_length', 'fuzzy_transpositions', '_name'], 'simple_query_string');
  if (typeof body.query !== 'string') throw new QueryError('[simple_query_string] requires [query] as a string');
  const s = settings(body, ctx, parseClause, 'simple_query_string');
  const p = new SimpleParser(body.query, s);
  return applyTopLevel(p.parse() ?? { kind: 'none' }, body, 'simple_query_string');
}

/** Lucene SimpleQueryParser: operators fold left to right; `-x` is `(*:* -x)`; bad syntax is ignored. */
class SimpleParser {
  private i = 0;
  constructor(private readonly src: string, private readonly s: Settings) {}

  parse(): Query | undefined {
    return this.sequence();
  }

  private sequence(): Query | undefined {
    let top: Query | undefined;
    let topOp: 'and' | 'or' | undefined;
    let op: 'and' | 'or' = this.s.defaultOperator;
    let not = 0;
    while (this.i < this.src.length) {
      const c = this.src[this.i];
      if (/\s/.test(c)) { this.i++; continue; }
      if (c === '|') { op = 'or'; this.i++; continue; }
      if (c === '+') { op = 'and'; this.i++; continue; }
      if (c === '-') { not++; this.i++; continue; }
      if (c === ')') { this.i++; break; }
      let branch: Query | undefined;
      if (c === '(') { this.i++; branch = this.sequence(); }
      else if (c === '"') branch = this.phrase();
      else branch = this.word();
      if (branch === undefined) { not = 0; continue; }
      if (not % 2 === 1) {
        branch = { kind: 'bool', must: [], should: [{ kind: 'all', boost: 1 }], filter: [], mustNot: [branch], minShouldMatch: undefined, boost: 1 };
      }
      not = 0;
      if (!top) { top = branch; topOp = op; }
      else if (topOp === op && top.kind === 'bool' && top.boost === 1 && top.mustNot.length === 0 && top.filter.length === 0 && (op === 'and' ? top.should.length === 0 : top.must.length === 0)) {
        (op === 'and' ? top.must : top.should).push(branch);
      } else {
        top = op === 'and'
          ? { kind: 'bool', must: [top, branch], should: [], filter: [], mustNot: [], minShouldMatch: undefined, boost: 1 }
          : { kind: 'bool', must: [], should: [top, branch], filter: [], mustNot: [], minShouldMatch: undefined, boost: 1 };
        topOp = op;
      }
      op = this.s.defaultOperator;
    }
    return top;
  }

  private phrase(): Query | undefined {
    this.i++;
    let text = '';
    while (this.i < this.src.length && this.src[this.i] !== '"') {
      if (this.src[this.i] === '\\' && this.i + 1 < this.src.length) this.i++;
      text += this.src[this.i++];
    }
    this.i++;
    let slop = 0;
    const m = /^~(\d+)/.exec(this.src.slice(this.i));
    if (m) { slop = Number(m[1]); this.i += m[0].length; }
    return phraseOver(this.s, text, slop, this.s.fields);
  }

  private word(): Query | undefined {
    let out = '';
    while (this.i < this.src.length) {
      const c = this.src[this.i];
      if (c === '\\' && this.i + 1 < this.src.length) { out += this.src[this.i + 1]; this.i += 2; continue; }
      if (/\s/.test(c) || c === '|' || c === '+' || c === '(' || c === ')' || c === '"') break;
      if (c === '-' && out.length === 0) break;
      out += c;
      this.i++;
    }
    const fuzzy = /~\d*$/.exec(out);
    if (fuzzy) out = out.slice(0, fuzzy.index);
    if (out === '') return undefined;
    return wordQuery(this.s, out, this.s.fields);
  }
}
