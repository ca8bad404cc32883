import { Filter, FilterableDocument } from './ast';

const parsedDates = new Map<string, number>();

function publishedMillis(v: string | null | undefined): number | undefined {
  if (typeof v !== 'string') return undefined;
  let t = parsedDates.get(v);
  if (t === undefined) {
    t = Date.parse(v);
    if (parsedDates.size > 100_000) parsedDates.clear();
    parsedDates.set(v, t);
  }
  return Number.isNaN(t) ? undefined : t;
}

/** Whether a document satisfies the filter. */
export function matches(filter: Filter, doc: FilterableDocument): boolean {
  switch (filter.op) {
    case 'tagged': return doc.tags?.includes(filter.tag) ?? false;
    case 'published': {
      const t = publishedMillis(doc.published_at);
      if (t === undefined) return false;
      return filter.when === 'after' ? t > filter.at : t < filter.at;
    }
    case 'and': return filter.items.every((f) => matches(f, doc));
    case 'or': return filter.items.some((f) => matches(f, doc));
    case 'not': return !matches(filter.item, doc);
  }
}

/** Looks up the ids tagged with a tag (a tag → ids posting list). */
export type TagPostings = (tag: string) => Iterable<string> | undefined;

/**
 * A superset of the ids the filter can match, from tag postings alone, or undefined when the filter
 * cannot narrow the search (a top-level `not`, a date condition alone, an `or` with such a branch):
 * then scan everything. Callers still check each candidate with `matches` (dates and negations
 * inside an `and` are not applied here).
 */
export function candidateIds(filter: Filter, postings: TagPostings): Set<string> | undefined {
  switch (filter.op) {
    case 'tagged': return new Set(postings(filter.tag) ?? []);
    case 'published': return undefined;
    case 'not': return undefined;
    case 'or': {
      const out = new Set<string>();
      for (const f of filter.items) {
        const c = candidateIds(f, postings);
        if (!c) return undefined;
        for (const id of c) out.add(id);
      }
      return out;
    }
    case 'and': {
      let acc: Set<string> | undefined;
      const sets = filter.items.map((f) => candidateIds(f, postings)).filter((s): s is Set<string> => s !== undefined);
      sets.sort((a, b) => a.size - b.size);
      for (const s of sets) {
        if (!acc) acc = new Set(s);
        else for (const id of acc) if (!s.has(id)) acc.delete(id);
      }
      return acc;
    }
  }
}

/**
 * The filter as an Elasticsearch query (bool over `tags` and `published_at`), for running it on the
 * keyword index (e.g. `POST /documents/filtered` with sort and paging).
 */
export function filterToEsQuery(filter: Filter): Record<string, unknown> {
  switch (filter.op) {
    case 'tagged': return { term: { tags: filter.tag } };
    case 'published': return { range: { published_at: filter.when === 'after' ? { gt: filter.at } : { lt: filter.at } } };
    case 'and': return { bool: { filter: filter.items.map(filterToEsQuery) } };
    case 'or': return { bool: { should: filter.items.map(filterToEsQuery), minimum_should_match: 1 } };
    case 'not': return { bool: { must_not: [filterToEsQuery(filter.item)] } };
  }
}
