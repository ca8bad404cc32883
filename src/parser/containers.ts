/**
 * Page furniture named by its container (issue 30): an author box, a related-articles list, a comment
 * thread, a call to action, a newsletter box. Clean-up (`cleanup.ts`) removes such containers
 * only when they hold no long paragraph, so an author's biography or a long related-article summary survives it; here a
 * line of the chosen body is dropped when the innermost such container around its block holds only a
 * small part of the body. The article's own container is never a small part of it, whatever its name.
 */

/** Generic furniture words (English, and German for ads and licences), as whole parts of a class or id token ("author-box", "related_posts", "nextStory"). */
const FURNITURE_WORD =
  /^(?:author|authors|bio|related|nextstory|next|cta|newsletter|subscribe|subscription|comment|comments|commentlist|share|sharing|social|navigation|navframe|navcontent|menu|footer|entryfooter|sidebar|promo|advert|banner|breadcrumb|breadcrumbs|tags|meta|recommended|popular|trending|more|werbung|abowerbung|anzeige|affiliate|disclosure|licence|license|lizenz|postmetadata|factbox|citation|disclaimer|kommentar|kommentare)$/i;
/** Tokens that name the article itself ("entry-meta" is the entry's), or a CMS's taxonomy ("tag-share", "category-menu"). */
const ARTICLE_TOKEN = /article|content|entry|post|story|main|body|text|wrap/i;
const TAXONOMY_TOKEN = /^(?:tag|category|type|format|status|has)[-_]/i;

function namesFurniture(element: Element): boolean {
  const tokens = `${element.getAttribute('class') ?? ''} ${element.getAttribute('id') ?? ''}`.split(/\s+/);
  for (const token of tokens) {
    if (!token || TAXONOMY_TOKEN.test(token) || ARTICLE_TOKEN.test(token)) continue;
    // a BEM modifier ("section--ads") says how the block looks, not what it is
    const parts = token.replace(/--.*$/, '').replace(/([a-z])([A-Z])/g, '$1-$2').split(/[-_]+/);
    if (parts.some((part) => FURNITURE_WORD.test(part))) return true;
  }
  return false;
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
