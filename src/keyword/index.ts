import v8 from 'node:v8';
import { analyze } from './analyzer';
import { Query } from './ast';
import { runAggregations } from './aggs';
import { DateField, KeywordDocument } from './document';
import { parseQuery } from './dsl';
import { QueryError } from './errors';
import { Executor } from './exec';
import { highlightTerms, parseHighlight } from './highlight';
import { decorateHits } from './hits';
import { MatchSet } from './matchset';
import { compareTuples, MISSING_HIGH, MISSING_LOW, parseSearchAfter, parseSort, SortKey, sortValues } from './sort';
import type { StoredVersions } from './protocol';
import type { KeywordHit, KeywordSearch, SearchHit, SearchOptions, SearchResponse } from './types';
import { IndexStore, type IndexStoreState } from './store';
import { topK } from './topk';
import { describe, intParam, numberParam } from './values';
import { isRecord } from '../domain';

/** Elasticsearch's index.max_result_window. */
export const MAX_RESULT_WINDOW = 10_000;
/** Elasticsearch's default track_total_hits: totals are exact up to this, then `gte`. */
export const TOTAL_HITS_THRESHOLD = 10_000;

/** The top-level request keys honoured; any other key is ignored, as the spec says. */
export const HONOURED_KEYS = ['query', 'from', 'size', 'sort', 'highlight', 'min_score', 'search_after', 'aggs'] as const;

/** Bump when IndexStoreState changes shape: older snapshots are then rebuilt from storage instead. */
const SNAPSHOT_FORMAT = 3;
/** What the analyzer makes of a few scripts: a snapshot analysed otherwise is not restored. */
const analysisFingerprint = (): string => analyze('Quick brown Foxes, 2026-11-25 — Быстрые лисы; 東京の天気; القطط السريعة').join('|');

const ID_TIEBREAK: SortKey = { kind: 'id', field: 'id', order: 'asc', missingFirst: false };

/**
 * One key's keyword index: BM25 (Lucene/Elasticsearch exact) over `text` and `meta.*`, and an
 * Elasticsearch query DSL subset over it. Writes are visible to the next search.
 */
export class KeywordIndex {
  private readonly store = new IndexStore();
  private readonly executor = new Executor(this.store);

  /** Replaces the whole content. */
  build(docs: Iterable<KeywordDocument>): void {
    this.store.reset();
    for (const d of docs) this.store.upsert(d);
    this.store.trim();
  }

  /** The whole index as bytes (v8.serialize), for `restore` after a restart. */
  snapshot(): Uint8Array {
    return v8.serialize({ format: SNAPSHOT_FORMAT, analysis: analysisFingerprint(), store: this.store.toState() });
  }

  /** Replaces the content with a `snapshot`'s; false (content unchanged) when it was made by another format or analysis. */
  restore(bytes: Uint8Array): boolean {
    const value: unknown = v8.deserialize(bytes);
    if (!isRecord(value) || value.format !== SNAPSHOT_FORMAT || value.analysis !== analysisFingerprint()) return false;
    this.store.load(value.store as IndexStoreState);
    return true;
  }

  /**
   * Compares the index with what storage holds (after a `restore`): removes the documents storage no longer has
   * and returns the ids whose stored version is not the indexed one (changed, retagged or missing here).
   */
  reconcile(current: StoredVersions): string[] {
    const stale: string[] = [];
    const stored = new Set<string>(current.ids);
    current.ids.forEach((id, i) => {
      const n = this.store.docOf.get(id);
      if (n === undefined || !this.store.isVersion(n, current.updatedAt[i], current.tags[i])) stale.push(id);
    });
    for (const id of [...this.store.docOf.keys()]) if (!stored.has(id)) this.remove(id);
    return stale;
  }

  /** Releases the room left for growth (after a bulk load, or once writes pause). */
  trim(): void {
    this.store.trim();
  }

  upsert(doc: KeywordDocument): void {
    this.store.upsert(doc);
    if (this.store.needsCompaction()) this.store.compact();
  }

  remove(id: string): boolean {
    const removed = this.store.removeId(id);
    if (removed && this.store.needsCompaction()) this.store.compact();
    return removed;
  }

  get size(): number {
    return this.store.liveCount;
  }

  has(id: string): boolean {
    return this.store.docOf.has(id);
  }

  /** Internal access for the filter helpers and tests. */
  get internals(): IndexStore {
    return this.store;
  }

  /**
   * Runs an Elasticsearch request body, then copies the requested fields and highlights into the hits from
   * `sourceOf` (the index keeps no copy of the documents). Throws QueryError (only) on bad input.
   */
  search(esQuery: unknown, opts: SearchOptions = {}, sourceOf: (id: string) => KeywordDocument | undefined = () => undefined): SearchResponse {
    const result = this.run(esQuery, opts);
    return decorateHits(result, result.response.hits.hits.map((h) => sourceOf(h.id)), opts.fields);
  }

  /**
   * Runs an Elasticsearch request body: hits carry ids, scores and sort values; the rest of a hit (stored fields,
   * highlights) is `decorateHits`' with the hits' documents. Throws QueryError (only) on bad input.
   */
  run(esQuery: unknown, opts: Pick<SearchOptions, 'now'> = {}): KeywordSearch {
    if (!isRecord(esQuery)) throw new QueryError(`[es_query] must be an object, got ${describe(esQuery)}`);
    const now = opts.now ?? Date.now();
    const from = intParam(esQuery.from, 'from', 0);
    const size = intParam(esQuery.size, 'size', 10);
    if (from < 0) throw new QueryError(`[from] parameter cannot be negative, found [${from}]`);
    if (size < 0) throw new QueryError(`[size] parameter cannot be negative, found [${size}]`);
    if (from + size > MAX_RESULT_WINDOW) {
      throw new QueryError(`Result window is too large, from + size must be less than or equal to: [${MAX_RESULT_WINDOW}] but was [${from + size}]`);
    }
    const query: Query = esQuery.query === undefined ? { kind: 'all', boost: 1 } : parseQuery(esQuery.query, { store: this.store, now });
    const minScore = esQuery.min_score === undefined || esQuery.min_score === null ? undefined : numberParam(esQuery.min_score, 'min_score', 0);
    const explicitSort = esQuery.sort === undefined ? undefined : parseSort(esQuery.sort);
    const highlight = esQuery.highlight === undefined ? undefined : parseHighlight(esQuery.highlight);
    if (esQuery.aggs !== undefined && !isRecord(esQuery.aggs)) throw new QueryError(`[aggs] must be an object, got ${describe(esQuery.aggs)}`);

    let matches = this.executor.run(query);
    if (minScore !== undefined) matches = filterScores(matches, minScore);
    const n = matches.docs.length;
    let maxScore: number | null = null;
    for (let i = 0; i < n; i++) if (maxScore === null || matches.scores[i] > maxScore) maxScore = matches.scores[i];

    const keys: SortKey[] = [...(explicitSort ?? [{ kind: 'score', field: '_score', order: 'desc', missingFirst: false }])];
    if (!keys.some((k) => k.kind === 'id')) keys.push(ID_TIEBREAK);
    const emitSort = explicitSort !== undefined || esQuery.search_after !== undefined;
    const after = esQuery.search_after === undefined ? undefined : parseSearchAfter(esQuery.search_after, keys);

    const cmp = this.comparator(keys, matches);
    let candidates = matches;
    if (after) {
      const keep: number[] = [];
      for (let i = 0; i < n; i++) {
        if (compareTuples(keys, sortValues(keys, this.store, matches.docs[i], matches.scores[i]), after) > 0) keep.push(i);
      }
      candidates = { docs: Uint32Array.from(keep, (i) => matches.docs[i]), scores: Float64Array.from(keep, (i) => matches.scores[i]) };
    }
    const candCmp = candidates === matches ? cmp : this.comparator(keys, candidates);
    const order = topK(candidates.docs.length, from + size, candCmp).slice(from);
    const hits = order.map((i) => {
      const doc = candidates.docs[i];
      const score = candidates.scores[i];
      const hit: SearchHit = { id: this.store.ids[doc]!, _score: score };
      if (emitSort) hit.sort = sortValues(keys, this.store, doc, score);
      return hit;
    });
    const response: SearchResponse = {
      hits: {
        total: n > TOTAL_HITS_THRESHOLD ? { value: TOTAL_HITS_THRESHOLD, relation: 'gte' } : { value: n, relation: 'eq' },
        max_score: size === 0 ? null : maxScore,
        hits,
      },
    };
    if (esQuery.aggs !== undefined) response.aggregations = runAggregations(esQuery.aggs, matches.docs, { store: this.store, now });
    return highlight ? { response, highlight: { spec: highlight, terms: highlightTerms(query) } } : { response };
  }

  /**
   * The legacy `GET /documents?keywords=` search: an OR match of the keywords over `fields`
   * (best field wins, as multi_match best_fields), the n best by score.
   */
  topByKeywords(text: string, fields: readonly string[] = ['text', 'meta.title'], n = 25): KeywordHit[] {
    if (analyze(text).length === 0) return [];
    const { response } = this.run({ query: { multi_match: { query: text, fields: [...fields], type: 'best_fields' } }, size: Math.min(n, MAX_RESULT_WINDOW) });
    return response.hits.hits.map((h) => ({ id: h.id, score: h._score }));
  }

  private comparator(keys: SortKey[], m: MatchSet): (a: number, b: number) => number {
    const store = this.store;
    const cols = keys.map((k) => {
      if (k.kind !== 'date') return undefined;
      const col = store.dates.get(k.field as DateField)!;
      const high = k.order === 'asc' ? !k.missingFirst : k.missingFirst;
      const missing = high ? MISSING_HIGH : MISSING_LOW;
      const v = new Float64Array(m.docs.length);
      for (let i = 0; i < v.length; i++) {
        const x = col.get(m.docs[i]);
        v[i] = Number.isNaN(x) ? missing : x;
      }
      return v;
    });
    return (a, b) => {
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        let c = 0;
        if (k.kind === 'score') c = m.scores[a] - m.scores[b];
        else if (k.kind === 'date') c = cols[i]![a] - cols[i]![b];
        else if (k.kind === 'doc') c = m.docs[a] - m.docs[b];
        else {
          const x = store.ids[m.docs[a]]!, y = store.ids[m.docs[b]]!;
          c = x < y ? -1 : x > y ? 1 : 0;
        }
        if (c !== 0) return k.order === 'desc' ? -c : c;
      }
      return 0;
    };
  }
}

function filterScores(m: MatchSet, min: number): MatchSet {
  const keep: number[] = [];
  for (let i = 0; i < m.docs.length; i++) if (m.scores[i] >= min) keep.push(i);
  if (keep.length === m.docs.length) return m;
  return { docs: Uint32Array.from(keep, (i) => m.docs[i]), scores: Float64Array.from(keep, (i) => m.scores[i]) };
}

export { QueryError };
export type { KeywordDocument };
export type { HitField, KeywordHit, KeywordSearch, SearchHit, SearchOptions, SearchResponse } from './types';
