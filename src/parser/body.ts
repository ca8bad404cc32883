import { furnitureContainers } from './containers';
import { attributeIs, closestWhere, elementsOf, EXACT, tagIn } from './select';
import { endsLikeSentence, normaliseSpace, paragraphsOf } from './text';

/**
 * The body's fallback chain (issue 30). Candidates: Readability's article (Kindred's clean-up around it),
 * the page's JSON-LD articleBody, and a recall-oriented baseline (paragraph, list, quote, code, table and
 * heading text of the page, without link-dense blocks). One is chosen by measured signals: its length
 * against the page's prose, and its link density. Readability's article is then completed with the page's
 * prose blocks it left out: the ones just before it (a lead paragraph outside its container) and the ones
 * between its first and last block (a paragraph in a sibling container). Nothing here knows a site.
 */

export interface BodyCandidate {
  kind: 'readability' | 'jsonld' | 'baseline';
  paragraphs: string[];
}

/** A paragraph-like block of the page, read before clean-up; `removed` is set by `noteRemoved` after it. */
export interface PageBlock {
  element: Element;
  tag: string;
  paragraphs: string[];
  length: number;
  linkLength: number;
  /** Inside nav/footer/header/aside/form or an ARIA landmark that is not the article. */
  furniture: boolean;
  /** Removed by clean-up (Readability later moves the article's nodes too, so this is recorded first). */
  removed: boolean;
  /** Containers around it named as furniture (author box, related list, …), innermost first (`containers.ts`). */
  furnitureContainers: Element[];
}

const BASELINE_BLOCKS = new Set(['p', 'li', 'blockquote', 'pre', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'dd', 'dt', 'td', 'th', 'figcaption']);
const BOILERPLATE_TAGS = new Set(['nav', 'footer', 'header', 'aside', 'form']);
const BOILERPLATE_ROLES = ['navigation', 'banner', 'contentinfo', 'complementary', 'search'];
/** `nav, footer, header, aside, form, [role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"], [role="search"]` */
const isBoilerplateContainer = (element: Element): boolean => tagIn(element, BOILERPLATE_TAGS) || BOILERPLATE_ROLES.some((role) => attributeIs(element, 'role', role, EXACT));

function linkText(element: Element): number {
  let total = 0;
  for (const link of Array.from(element.querySelectorAll('a'))) total += normaliseSpace(link.textContent ?? '').length;
  return total;
}

/** Every paragraph-like block of the page in document order, outermost only (a block inside a taken block is part of it). */
export function pageBlocks(doc: Document): PageBlock[] {
  const root = doc.body;
  if (!root) return [];
  const taken = new Set<Element>();
  const named = new Map<Element, boolean>();
  const blocks: PageBlock[] = [];
  for (const element of elementsOf(root).filter((candidate) => tagIn(candidate, BASELINE_BLOCKS))) {
    let parent = element.parentElement;
    let nested = false;
    while (parent) {
      if (taken.has(parent)) {
        nested = true;
        break;
      }
      parent = parent.parentElement;
    }
    if (nested) continue;
    const tag = element.tagName;
    if ((tag === 'TD' || tag === 'TH') && element.querySelector('p, li, blockquote, pre')) continue;
    const length = normaliseSpace(element.textContent ?? '').length;
    if (length === 0) continue;
    taken.add(element);
    blocks.push({
      element,
      tag,
      paragraphs: paragraphsOf(element),
      length,
      linkLength: linkText(element),
      furniture: !!closestWhere(element, isBoilerplateContainer),
      removed: false,
      furnitureContainers: furnitureContainers(element, named),
    });
  }
  return blocks;
}

/** Records which blocks clean-up removed; call between clean-up and Readability. */
export function noteRemoved(blocks: PageBlock[]): void {
  for (const block of blocks) block.removed = !block.element.isConnected;
}

/** Still in the page after clean-up, outside page furniture, not mostly link text, not a short linked list item. */
function isProseBlock(block: PageBlock): boolean {
  // a caption describes a picture; it is not the article's text
  if (block.furniture || block.removed || block.tag === 'FIGCAPTION') return false;
  if (block.linkLength / block.length > 0.5) return false;
  return !(block.tag === 'LI' && block.length < 25 && block.linkLength > 0);
}

/** Recall-oriented baseline: each prose block of the page, in document order (call after clean-up). */
export function baselineParagraphs(blocks: readonly PageBlock[]): string[] {
  return blocks.filter(isProseBlock).flatMap((block) => block.paragraphs);
}

/** A block Readability should not have left out: long prose with almost no links. */
const isLongProse = (block: PageBlock): boolean => isProseBlock(block) && block.length >= 120 && block.linkLength / block.length < 0.1;

/** The headline's lead: a block at most this many blocks after the page's h1 and before the article. */
const LEAD_WINDOW = 20;
const LEAD_MIN = 80;
/** A lead paragraph this long needs no sentence's end (a standfirst cut off by a "more" link). */
const LEAD_ANY_END = 100;

/**
 * A standfirst between the page's headline and the article: prose (80 characters or more, a sentence's end
 * unless 100 or more, a tenth of it in links at most), not a caption, not in a container named as furniture,
 * not removed by clean-up. A page header is no obstacle: publishers put the lead beside the h1 in it.
 */
function leadParagraphs(block: PageBlock): string[] {
  if (block.removed || block.tag === 'FIGCAPTION' || block.furnitureContainers.length > 0) return [];
  if (block.linkLength / block.length > 0.1) return [];
  return block.paragraphs.filter((p) => p.length >= LEAD_MIN && (p.length >= LEAD_ANY_END || endsLikeSentence(p)));
}

/**
 * Readability's article completed from the page's blocks: long prose blocks just before its first block
 * (one other block may sit between them, a heading or a picture credit), the lead between the page's
 * headline (an h1 shortly before the article) and the article, and those between its first and last block
 * that it dropped, each put back in page order. Removed furniture stops the walk back.
 */
export function completeArticle(readability: string[], blocks: readonly PageBlock[]): string[] {
  const articleText = readability.join('\n');
  const inArticle = blocks.map((block) => block.paragraphs.length > 0 && block.paragraphs.every((p) => articleText.includes(p)));
  const first = inArticle.indexOf(true);
  const last = inArticle.lastIndexOf(true);
  if (first < 0) return readability;
  const before = new Map<number, string[]>();
  let gap = 0;
  for (let i = first - 1; i >= 0; i--) {
    const block = blocks[i];
    if (isLongProse(block)) {
      before.set(i, block.paragraphs);
      gap = 0;
    } else if (block.furniture || block.removed || ++gap > 1) break;
  }
  let headline = -1;
  for (let i = first - 1; i >= Math.max(0, first - LEAD_WINDOW); i--) {
    if (blocks[i].tag === 'H1') {
      headline = i;
      break;
    }
  }
  for (let i = headline + 1; headline >= 0 && i < first; i++) {
    const lead = before.has(i) ? [] : leadParagraphs(blocks[i]).filter((p) => !articleText.includes(p));
    if (lead.length > 0) before.set(i, lead);
  }
  // a dropped block goes back after the article's paragraph that precedes it in the page
  const after = new Map<string, string[]>();
  let anchor = blocks[first].paragraphs[blocks[first].paragraphs.length - 1];
  for (let i = first + 1; i < last; i++) {
    const block = blocks[i];
    if (inArticle[i]) anchor = block.paragraphs[block.paragraphs.length - 1];
    else if (isLongProse(block)) after.set(anchor, [...(after.get(anchor) ?? []), ...block.paragraphs]);
  }
  const completed = [...before.entries()].sort((a, b) => a[0] - b[0]).flatMap(([, paragraphs]) => paragraphs);
  for (const paragraph of readability) {
    completed.push(paragraph);
    const dropped = after.get(paragraph);
    if (dropped) {
      completed.push(...dropped);
      after.delete(paragraph);
    }
  }
  for (const dropped of after.values()) completed.push(...dropped);
  return completed;
}

/** JSON-LD articleBody / text of an article-like node, as paragraphs. */
export function jsonLdBody(nodes: Record<string, unknown>[]): string[] {
  for (const node of nodes) {
    const value = node.articleBody ?? node.text;
    if (typeof value === 'string' && value.trim().length > 0) {
      const decoded = value.includes('<') ? value.replace(/<br\s*\/?>|<\/p>/gi, '\n').replace(/<[^>]+>/g, ' ') : value;
      return decoded
        .split(/\n+/)
        .map((line) => normaliseSpace(line))
        .filter((line) => line.length > 0);
    }
  }
  return [];
}

const length = (paragraphs: string[]): number => paragraphs.reduce((sum, p) => sum + p.length, 0);

/**
 * Chooses among the candidates. Readability first; the JSON-LD body when Readability found clearly less
 * (its own text is the publisher's, without furniture); the baseline when Readability kept a small part of
 * the page's prose (one block of a page whose text is spread over several): under 250 characters against
 * twice as much, or a third of it at most.
 */
export function chooseBody(readability: string[], jsonLd: string[], baseline: string[]): BodyCandidate {
  const r = length(readability);
  const j = length(jsonLd);
  const b = length(baseline);
  if (j > 500 && j > 1.5 * r) return { kind: 'jsonld', paragraphs: jsonLd };
  if ((r < 250 && b > 2 * r + 200) || b > 3 * r + 200) return { kind: 'baseline', paragraphs: baseline };
  return { kind: 'readability', paragraphs: readability };
}
