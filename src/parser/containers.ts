import { ARTICLE_WORDS, nameTokens, namesFurnitureFor, tokenParts } from './furniture-names';
import type { LineOrigin } from './origins';

/**
 * Page furniture named by its container (issue 30): an author box, a related-articles list, a comment
 * thread, a call to action, a newsletter box. Clean-up (`cleanup.ts`) removes such containers
 * only when they hold no long paragraph, so an author's biography or a long related-article summary survives it; here a
 * line of the chosen body is dropped when the innermost such container around its block holds only a
 * small part of the body. The article's own container is never a small part of it, whatever its name.
 */

/** Tokens that name the article itself ("entry-meta" is the entry's; wrappers are the layout around it), or a CMS's taxonomy ("tag-share", "category-menu"). */
const ARTICLE_TOKEN = new RegExp(`${ARTICLE_WORDS.join('|')}|wrap`, 'i');
const TAXONOMY_TOKEN = /^(?:tag|category|type|format|status|has)[-_]/i;

function namesFurniture(element: Element): boolean {
  return nameTokens(element).some((token) => !TAXONOMY_TOKEN.test(token) && !ARTICLE_TOKEN.test(token) && namesFurnitureFor.lines(tokenParts(token)));
}

/** The containers around `element` (itself included) that name furniture, innermost first. */
export function furnitureContainers(element: Element, memo: Map<Element, boolean>): Element[] {
  const found: Element[] = [];
  for (let node: Element | null = element; node && node.tagName !== 'BODY'; node = node.parentElement) {
    let named = memo.get(node);
    // <article> and <main> are the article's, whatever their classes say (clean-up never removes them either)
    if (named === undefined) memo.set(node, (named = node.tagName !== 'ARTICLE' && node.tagName !== 'MAIN' && namesFurniture(node)));
    if (named) found.push(node);
  }
  return found;
}

/** What a body line needs to know of the page block(s) it came from. */
export interface ContainedBlock {
  paragraphs: string[];
  /** From `furnitureContainers`, read before clean-up and Readability move the nodes. */
  furnitureContainers: Element[];
}

/**
 * The page's paragraphs that no page block holds (text straight in <div>s, without <p>), each with the furniture
 * containers around its holder, so the container rule sees them too. Read before clean-up, like the blocks.
 */
export function looseParagraphs(origins: ReadonlyMap<string, LineOrigin>, blocks: readonly ContainedBlock[]): ContainedBlock[] {
  const held = new Set(blocks.flatMap((block) => block.paragraphs));
  const memo = new Map<Element, boolean>();
  const loose: ContainedBlock[] = [];
  for (const [text, origin] of origins) if (!held.has(text)) loose.push({ paragraphs: [text], furnitureContainers: furnitureContainers(origin.holder, memo) });
  return loose;
}

/** A furniture container holding less than this share of the body's (attributed) text is not the article. */
const SMALL_SHARE = 0.2;

/**
 * Drops the lines whose block sits in a furniture container that holds under a fifth of the body's text.
 * Lines that no page block holds (text Readability rewrote) are kept and do not count.
 */
export function dropContainedFurniture(lines: string[], blocks: readonly ContainedBlock[]): string[] {
  const blocksOf = new Map<string, ContainedBlock[]>();
  for (const block of blocks) {
    for (const paragraph of block.paragraphs) {
      const holders = blocksOf.get(paragraph);
      if (holders) holders.push(block);
      else blocksOf.set(paragraph, [block]);
    }
  }
  const textIn = new Map<Element, number>();
  let attributed = 0;
  for (const line of lines) {
    const holder = blocksOf.get(line)?.[0];
    if (!holder) continue;
    attributed += line.length;
    for (const container of holder.furnitureContainers) textIn.set(container, (textIn.get(container) ?? 0) + line.length);
  }
  if (attributed === 0) return lines;
  const isFurniture = (block: ContainedBlock): boolean => {
    const innermost = block.furnitureContainers[0];
    return innermost !== undefined && (textIn.get(innermost) ?? 0) < SMALL_SHARE * attributed;
  };
  return lines.filter((line) => {
    const holders = blocksOf.get(line);
    return !holders || !holders.every(isFurniture);
  });
}
