/** A parsed filter. */
export type Filter =
  | { op: 'tagged'; tag: string }
  | { op: 'published'; when: 'after' | 'before'; at: number; source: string }
  | { op: 'and'; items: Filter[] }
  | { op: 'or'; items: Filter[] }
  | { op: 'not'; item: Filter };

/** What a filter looks at in a document. */
export interface FilterableDocument {
  tags?: readonly string[] | null;
  published_at?: string | null;
}
