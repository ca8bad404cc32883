import { analyzeWithOffsets, Token } from './analyzer';
import { Query } from './ast';
import { flattenMeta, KeywordDocument } from './document';
import { QueryError } from './errors';
import { wildcardToRegExp } from './fieldres';
import { asArray, checkKeys, describe, intParam } from './values';
import { isRecord } from '../domain';

/**
 * Highlighting in the way of Elasticsearch's plain highlighter: a field's text is cut into
 * consecutive fragments of about `fragment_size` characters at token boundaries, fragments are
 * scored by their matching tokens, the best `number_of_fragments` are kept (in text order unless
 * `order: "score"`), and matching tokens are wrapped in pre/post tags (default `<em>`, `</em>`).
 * `number_of_fragments: 0` returns each whole value highlighted. Fields without a match are left out.
 * Query terms highlight in the fields their clauses target (require_field_match); phrase terms
 * highlight wherever they occur in the field, not only inside the phrase.
 */

export interface HighlightFieldSpec {
  pattern: RegExp;
  preTags: string[];
  postTags: string[];
  fragmentSize: number;
  fragments: number;
  byScore: boolean;
}

export interface HighlightSpec {
  fields: HighlightFieldSpec[];
}

function tagsParam(v: unknown, where: string, fallback: string[]): string[] {
  if (v === undefined) return fallback;
  const list = asArray(v);
  if (list.length === 0 || !list.every((x): x is string => typeof x === 'string')) throw new QueryError(`[${where}] must be an array of strings`);
  return list;
}

export function parseHighlight(raw: unknown): HighlightSpec {
  if (!isRecord(raw)) throw new QueryError(`[highlight] must be an object, got ${describe(raw)}`);
  const allowed = ['fields', 'pre_tags', 'post_tags', 'fragment_size', 'number_of_fragments', 'order', 'type', 'require_field_match', 'encoder', 'no_match_size', 'boundary_scanner', 'tags_schema'];
  checkKeys(raw, allowed, 'highlight');
  const base = {
    preTags: tagsParam(raw.pre_tags, 'highlight.pre_tags', ['<em>']),
    postTags: tagsParam(raw.post_tags, 'highlight.post_tags', ['</em>']),
    fragmentSize: intParam(raw.fragment_size, 'highlight.fragment_size', 100),
    fragments: intParam(raw.number_of_fragments, 'highlight.number_of_fragments', 5),
    byScore: raw.order === 'score',
  };
  if (raw.fields === undefined) throw new QueryError('[highlight] requires [fields]');
  const entries: [string, unknown][] = [];
  if (Array.isArray(raw.fields)) {
    for (const f of raw.fields) {
      if (typeof f === 'string') entries.push([f, {}]);
      else if (isRecord(f)) entries.push(...Object.entries(f));
      else throw new QueryError('[highlight.fields] entries must be objects');
    }
  } else if (isRecord(raw.fields)) entries.push(...Object.entries(raw.fields));
  else throw new QueryError(`[highlight.fields] must be an object or array, got ${describe(raw.fields)}`);
  const fields = entries.map(([name, spec]): HighlightFieldSpec => {
    const s = spec ?? {};
    if (!isRecord(s)) throw new QueryError(`[highlight.fields.${name}] must be an object`);
    checkKeys(s, allowed.filter((k) => k !== 'fields').concat(['matched_fields', 'highlight_query']), `highlight.fields.${name}`);
    const fragments = intParam(s.number_of_fragments, `highlight.fields.${name}.number_of_fragments`, base.fragments);
    const fragmentSize = intParam(s.fragment_size, `highlight.fields.${name}.fragment_size`, base.fragmentSize);
    if (fragments < 0 || fragmentSize < 1) throw new QueryError(`[highlight.fields.${name}] fragment_size must be >= 1 and number_of_fragments >= 0`);
    return {
      pattern: wildcardToRegExp(name === '_id' ? 'id' : name),
      preTags: tagsParam(s.pre_tags, `highlight.fields.${name}.pre_tags`, base.preTags),
      postTags: tagsParam(s.post_tags, `highlight.fields.${name}.post_tags`, base.postTags),
      fragmentSize, fragments,
      byScore: s.order === undefined ? base.byScore : s.order === 'score',
    };
  });
  return { fields };
}

/** What to highlight per field: exact terms and prefixes, from the query's positive clauses. */
export interface HighlightTerms {
  terms: Map<string, Set<string>>;
  prefixes: Map<string, string[]>;
}

export function highlightTerms(q: Query): HighlightTerms {
  const out: HighlightTerms = { terms: new Map(), prefixes: new Map() };
  const addTerm = (field: string, t: string): void => {
    const set = out.terms.get(field) ?? new Set<string>();
    set.add(t.toLowerCase());
    out.terms.set(field, set);
  };
  const walk = (x: Query): void => {
    switch (x.kind) {
      case 'text': case 'phrase': for (const t of x.terms) addTerm(x.field, t); break;
      case 'keyword': addTerm(x.field, x.value); break;
      case 'keywords': for (const v of x.values) addTerm(x.field, v); break;
      case 'prefix': out.prefixes.set(x.field, [...(out.prefixes.get(x.field) ?? []), x.prefix.toLowerCase()]); break;
      case 'bool': [...x.must, ...x.should, ...x.filter].forEach(walk); break;
      case 'dismax': x.queries.forEach(walk); break;
      case 'constant': walk(x.query); break;
      default: break;
    }
  };
  walk(q);
  return out;
}

function fieldValues(doc: KeywordDocument, field: string): string[] {
  if (field === 'text') return typeof doc.text === 'string' ? [doc.text] : [];
  if (field === 'id') return [doc.id];
  if (field === 'tags') return doc.tags ?? [];
  const path = field.endsWith('.keyword') ? field.slice(0, -'.keyword'.length) : field;
  return flattenMeta(doc.meta).strings.get(path) ?? [];
}

function candidateFields(doc: KeywordDocument): string[] {
  const names = ['text', 'id', 'tags'];
  for (const path of flattenMeta(doc.meta).strings.keys()) names.push(path, `${path}.keyword`);
  return names;
}

interface Fragment { start: number; end: number; matches: Token[]; score: number; order: number; value: number }

function fragmentsOf(text: string, tokens: Token[], isMatch: (t: Token) => boolean, size: number): Fragment[] {
  const frags: Fragment[] = [];
  let cur: Fragment | undefined;
  for (const tok of tokens) {
    if (!cur || tok.end - cur.start > size) {
      cur = { start: cur ? tok.start : 0, end: tok.end, matches: [], score: 0, order: frags.length, value: 0 };
      if (frags.length > 0) frags[frags.length - 1].end = tok.start;
      frags.push(cur);
    }
    cur.end = tok.end;
    if (isMatch(tok)) cur.matches.push(tok);
  }
  if (frags.length > 0) frags[frags.length - 1].end = text.length;
  for (const f of frags) f.score = new Set(f.matches.map((m) => m.term)).size + f.matches.length / 1000;
  return frags;
}

function render(text: string, start: number, end: number, matches: Token[], pre: string[], post: string[]): string {
  let out = '';
  let at = start;
  for (const m of matches) {
    if (m.start < start || m.end > end) continue;
    out += text.slice(at, m.start) + pre[0] + text.slice(m.start, m.end) + post[0];
    at = m.end;
  }
  return (out + text.slice(at, end)).trim();
}

/** The `highlight` object of one hit, or undefined when no requested field matched. */
export function highlightDoc(doc: KeywordDocument, spec: HighlightSpec, terms: HighlightTerms): Record<string, string[]> | undefined {
  const out: Record<string, string[]> = {};
  const names = candidateFields(doc);
  for (const fs of spec.fields) {
    for (const field of names) {
      if (!fs.pattern.test(field) || field in out) continue;
      const exact = terms.terms.get(field);
      const prefixes = terms.prefixes.get(field) ?? [];
      if (!exact && prefixes.length === 0) continue;
      const isKeyword = field === 'id' || field === 'tags' || field.endsWith('.keyword');
      const isMatch = (t: Token): boolean => (exact?.has(t.term) ?? false) || prefixes.some((p) => t.term.startsWith(p));
      const results: Fragment[] = [];
      const texts: string[] = [];
      for (const value of fieldValues(doc, field)) {
        const tokens: Token[] = isKeyword ? [{ term: value.toLowerCase(), position: 0, start: 0, end: value.length }] : analyzeWithOffsets(value);
        const idx = texts.length;
        texts.push(value);
        if (fs.fragments === 0) {
          const matches = tokens.filter(isMatch);
          if (matches.length > 0) results.push({ start: 0, end: value.length, matches, score: 0, order: idx, value: idx });
          continue;
        }
        for (const f of fragmentsOf(value, tokens, isMatch, fs.fragmentSize)) {
          if (f.matches.length > 0) results.push({ ...f, order: idx * 1e6 + f.order, value: idx });
        }
      }
      if (results.length === 0) continue;
      let chosen = results;
      if (fs.fragments > 0) {
        chosen = [...results].sort((a, b) => b.score - a.score || a.order - b.order).slice(0, fs.fragments);
        if (!fs.byScore) chosen.sort((a, b) => a.order - b.order);
      }
      out[field] = chosen.map((f) => render(texts[f.value], f.start, f.end, f.matches, fs.preTags, fs.postTags));
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
