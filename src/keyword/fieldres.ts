import { isDateField } from './document';
import { IndexStore } from './store';

/** How a field name in a query maps onto the index. */
export interface ResolvedField {
  name: string;
  text: boolean;
  keyword: boolean;
  numeric: boolean;
  date: boolean;
}

/** `_id` is an alias of `id`. Unknown fields resolve to nothing (they match nothing, as unmapped fields in ES). */
export function resolveField(store: IndexStore, raw: string): ResolvedField {
  const name = raw === '_id' ? 'id' : raw;
  return {
    name,
    text: store.text.has(name),
    keyword: store.keyword.has(name),
    numeric: store.numeric.has(name),
    date: isDateField(name),
  };
}

function wildcardToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`);
}

/** Full-text fields named by a pattern list (`*`, `meta.*`, `text`); `*` is every text field. */
export function expandTextFields(store: IndexStore, patterns: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of patterns) {
    if (!p.includes('*')) {
      if (!out.includes(p)) out.push(p);
      continue;
    }
    const re = wildcardToRegExp(p);
    for (const name of store.text.keys()) if (re.test(name) && !out.includes(name)) out.push(name);
  }
  return out;
}

export { wildcardToRegExp };
