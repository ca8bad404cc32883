import { heldParagraphsOf } from './text';

/** Where a line of the page stands in it, read before clean-up and Readability move the nodes. */
export interface LineOrigin {
  /** The innermost block (or table cell) holding the line. */
  holder: Element;
  /** The holder and its ancestors below the root, outermost first. */
  ancestors: readonly Element[];
  /** Characters of the line inside links. */
  linkLength: number;
}

/** Every paragraph of the page by its text (the first one when a text repeats), with where it stands. */
export function lineOrigins(root: Element): Map<string, LineOrigin> {
  const chains = new Map<Element, Element[]>();
  const origins = new Map<string, LineOrigin>();
  for (const paragraph of heldParagraphsOf(root)) {
    if (origins.has(paragraph.text)) continue;
    let ancestors = chains.get(paragraph.holder);
    if (!ancestors) {
      ancestors = [];
      for (let node: Element | null = paragraph.holder; node && node !== root; node = node.parentElement) ancestors.push(node);
      ancestors.reverse();
      chains.set(paragraph.holder, ancestors);
    }
    origins.set(paragraph.text, { holder: paragraph.holder, ancestors, linkLength: paragraph.linkLength });
  }
  return origins;
}
