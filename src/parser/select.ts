/**
 * Element queries by attribute and tag without jsdom's selector engine (the speed pass, docs/decisions/parser.md).
 * jsdom 27's engine (@asamuzakjp/dom-selector) takes about 15 µs per element for each case-insensitive attribute
 * branch (`[class*="author" i]`) of a query, and `matches()` / `closest()` about 90 µs a call, so a pass that queried
 * the whole page with a list of such branches cost tens of milliseconds per page. These helpers read an attribute once
 * and test it in JavaScript. Each call says how the engine compared the value it replaces, which depends on the
 * selector: one with an `i` flag (or a `/` or a `:` in it) runs in dom-selector's own matcher, which compares every
 * attribute value of the selector in lower case (`ANY_CASE`); the others run in nwsapi, which compares them as written
 * (`EXACT`) but for HTML's case-insensitive attributes such as `rel`. `test/unit/parser/select.test.ts` pins each rule
 * against the engine.
 */

/** How a value is compared: in lower case (`ANY_CASE`; the wanted value is written in lower case) or as written (`EXACT`). */
export type Case = 'any case' | 'exact';
export const ANY_CASE: Case = 'any case';
export const EXACT: Case = 'exact';

/** Every element under `root` in document order: what `root.querySelectorAll('*')` returns (a static list). */
export function elementsOf(root: ParentNode): Element[] {
  return Array.from(root.querySelectorAll('*'));
}

/** The attribute's value (in lower case for `ANY_CASE`), or null when the element has no such attribute. */
function attributeValue(element: Element, name: string, compare: Case): string | null {
  const value = element.getAttribute(name);
  return value === null || compare === EXACT ? value : value.toLowerCase();
}

/** `[name*="part" i]` for any of `parts` (written in lower case). */
export function attributeContains(element: Element, name: string, parts: readonly string[]): boolean {
  const value = attributeValue(element, name, ANY_CASE);
  return value !== null && parts.some((part) => value.includes(part));
}

/** `[name="value"]`. */
export function attributeIs(element: Element, name: string, value: string, compare: Case): boolean {
  return attributeValue(element, name, compare) === value;
}

/** `[name~="word"]`. */
export function attributeHasWord(element: Element, name: string, word: string, compare: Case): boolean {
  const value = attributeValue(element, name, compare);
  return value !== null && value.split(/\s+/).includes(word);
}

/** The element's tag is one of `names` (lower case): a type selector list such as `p, li, td`. */
export const tagIn = (element: Element, names: ReadonlySet<string>): boolean => names.has(element.localName);

/** One simple selector of a list, tested on the element's attribute values in lower case (`read(name)`, null when absent). */
export type Branch = (read: (name: string) => string | null) => boolean;

/** `[name*="part" i]` as a branch of a list. */
export const containsBranch =
  (name: string, part: string): Branch =>
  (read) =>
    read(name)?.includes(part) === true;

/**
 * `root.querySelectorAll(list)` on an element (not the document) for a list of simple selectors that jsdom's engine runs
 * in its own matcher (an `i` flag, a `:`): the engine returns the first branch's matches, then the next branch's new
 * ones, and so on, not in document order. Passes that read such a list in order (the first date, removing nested
 * hidden blocks) keep that order, so their answers stay the same. `elements`: the root's elements in document order.
 */
export function matchingInBranchOrder(elements: readonly Element[], branches: readonly Branch[]): Element[] {
  const found: { element: Element; branch: number }[] = [];
  for (const element of elements) {
    const values = new Map<string, string | null>();
    const read = (name: string): string | null => {
      if (!values.has(name)) values.set(name, element.getAttribute(name)?.toLowerCase() ?? null);
      return values.get(name) ?? null;
    };
    const branch = branches.findIndex((test) => test(read));
    if (branch >= 0) found.push({ element, branch });
  }
  // a stable sort: document order within a branch
  return found.sort((a, b) => a.branch - b.branch).map(({ element }) => element);
}

/** The page's `link[rel~="word" i]` elements, in document order. */
export function linksWithRel(doc: Document, word: string): Element[] {
  return Array.from(doc.querySelectorAll('link')).filter((link) => attributeHasWord(link, 'rel', word, ANY_CASE));
}

/** The page's first `link[rel~="canonical" i][href]`. */
export function canonicalLink(doc: Document): Element | undefined {
  return linksWithRel(doc, 'canonical').find((link) => link.hasAttribute('href'));
}

/** `element.closest(…)` for a test written with these helpers: the element itself or its nearest ancestor that passes. */
export function closestWhere(element: Element, test: (candidate: Element) => boolean): Element | null {
  for (let node: Element | null = element; node; node = node.parentElement) if (test(node)) return node;
  return null;
}

/** `[class*="comment" i], [id*="comment" i]`: a comment thread or one comment, whose author and dates are not the article's. */
export const namesComment = (element: Element): boolean =>
  attributeContains(element, 'class', ['comment']) || attributeContains(element, 'id', ['comment']);
