/** What a search answers: the engine's public result types (re-exported by index.ts). */
import type { HighlightSpec, HighlightTerms } from './highlight';
import type { SortValue } from './sort';

/** Document fields a hit may carry besides `id`. */
export type HitField = 'text' | 'meta' | 'tags' | 'published_at' | 'created_at' | 'updated_at';

export interface SearchOptions {
  /** Document fields to copy into each hit (from storage: see `decorateHits`). Default: none (only id). */
  fields?: readonly HitField[] | readonly string[];
  /** Instant `now` resolves to in date math (epoch millis); default Date.now(). */
  now?: number;
}

export interface SearchHit {
  id: string;
  _score: number;
  /** Present when the request sorts or pages with search_after: the sort values, then the id tiebreaker. */
  sort?: SortValue[];
  highlight?: Record<string, string[]>;
  text?: string;
  meta?: Record<string, unknown> | null;
  tags?: string[] | null;
  published_at?: string | null;
  created_at?: string;
  updated_at?: string;
}

export interface SearchResponse {
  hits: {
    total: { value: number; relation: 'eq' | 'gte' };
    max_score: number | null;
    hits: SearchHit[];
  };
  aggregations?: Record<string, unknown>;
}

/** A search's result before its hits get their documents' fields (`decorateHits`). */
export interface KeywordSearch {
  response: SearchResponse;
  /** When the request asks for highlights: how, and the query's terms by field. */
  highlight?: { spec: HighlightSpec; terms: HighlightTerms };
}

export interface KeywordHit {
  id: string;
  score: number;
}
