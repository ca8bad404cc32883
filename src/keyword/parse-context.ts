import type { Query } from './ast';
import type { IndexStore } from './store';

/** Context of one parse: the index (to learn field types) and the instant `now` resolves to. */
export interface ParseContext {
  store: IndexStore;
  now: number;
}

/**
 * Parses one DSL clause (dsl.ts's parseQuery). The query-string parsers are handed it for the clauses they
 * build as DSL (exact values, ranges), so they need not import the DSL parser that imports them.
 */
export type ClauseParser = (q: unknown, ctx: ParseContext) => Query;
