/** A parsed query, resolved against the index's fields. Scores follow Lucene/Elasticsearch. */
export type Query =
  | { kind: 'all'; boost: number }
  | { kind: 'none' }
  /** BM25 term clauses on one text field: `match`, one field of `multi_match`, query_string terms. */
  | { kind: 'text'; field: string; terms: string[]; minMatch: MinMatch; boost: number }
  | { kind: 'phrase'; field: string; terms: string[]; slop: number; boost: number }
  /** A scored exact value on a keyword field (`term` on `tags`, `id`, `meta.x.keyword`). */
  | { kind: 'keyword'; field: string; value: string; boost: number }
  /** Constant-score exact values on a keyword field (`terms`, `ids`). */
  | { kind: 'keywords'; field: string; values: string[]; boost: number }
  /** A constant-score interval over numbers: meta numbers, date fields, or date strings of a keyword field. */
  | { kind: 'numeric'; field: string; source: NumericSource; min: number; max: number; minInclusive: boolean; maxInclusive: boolean; boost: number }
  | { kind: 'keyword_range'; field: string; gt?: string; gte?: string; lt?: string; lte?: string; boost: number }
  | { kind: 'prefix'; field: string; prefix: string; boost: number }
  | { kind: 'exists'; field: string; boost: number }
  | { kind: 'bool'; must: Query[]; should: Query[]; filter: Query[]; mustNot: Query[]; minShouldMatch: number | string | undefined; boost: number }
  | { kind: 'constant'; query: Query; boost: number }
  | { kind: 'dismax'; queries: Query[]; tieBreaker: number; boost: number };

/** minimum_should_match of a term-level match: 'all' for operator and. */
export type MinMatch = { operator: 'or' | 'and'; minimumShouldMatch?: number | string };

export type NumericSource = 'meta_number' | 'date' | 'keyword_date';
