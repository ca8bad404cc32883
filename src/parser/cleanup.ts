import { LIST_HEADING, readerPromptTest } from './boilerplate-phrases';
import { nameTokens, namesArticle, namesFurnitureFor, tokenParts } from './furniture-names';
import { ANY_CASE, attributeHasWord, closestWhere, containsBranch, elementsOf, matchingInBranchOrder, tagIn, type Branch } from './select';
import { normaliseSpace } from './text';

/**
 * Pre- and post-processing around Readability (the library itself is untouched).
 * Pre: drop page furniture Readability tends to keep when it sits inside the article container
 * (cookie/consent banners, newsletter and share boxes, comment threads, ad slots), and unwrap
 * lazy-loaded images so the lead image can be found. Post: drop short boilerplate blocks
 * ("Advertisement", "Share this article", "Read more: …") from the extracted content.
 */

const NOISE_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search', 'dialog', 'alertdialog', 'menu', 'menubar']);

function textLength(element: Element): number {
  return normaliseSpace(element.textContent ?? '').length;
}

function linkTextLength(element: Element): number {
  let total = 0;
  for (const link of Array.from(element.querySelectorAll('a'))) total += normaliseSpace(link.textContent ?? '').length;
  return total;
}

function longestParagraph(element: Element): number {
  let longest = 0;
  for (const p of Array.from(element.querySelectorAll('p'))) longest = Math.max(longest, textLength(p));
  return longest;
}

function isNoiseContainer(element: Element): boolean {
  const tag = element.tagName.toLowerCase();
  if (tag === 'body' || tag === 'html' || tag === 'main' || tag === 'article') return false;
  const role = (element.getAttribute('role') ?? '').toLowerCase();
  const parts = nameTokens(element).map(tokenParts);
  const byRole = NOISE_ROLES.has(role);
  const byName = parts.some(namesFurnitureFor.cleanup) && !parts.some(namesArticle);
  const byTag = tag === 'nav' || (tag === 'footer' && !closestWhere(element, (a) => a.localName === 'article')) || tag === 'dialog';
  if (!byRole && !byName && !byTag) return false;
  // never remove something that holds article prose or the byline
  if (longestParagraph(element) > 280) return false;
  const length = textLength(element);
  if (length < 1500) return true;
  return linkTextLength(element) / length > 0.5;
}

const FURNITURE_TAGS = new Set(['nav', 'footer', 'dialog', 'aside']);

/** `nav, footer, dialog, aside, [role], [class], [id]`: what may be furniture by its tag, role or name. */
const mayBeFurniture = (element: Element): boolean =>
  tagIn(element, FURNITURE_TAGS) || element.hasAttribute('role') || element.hasAttribute('class') || element.hasAttribute('id');

/** `[hidden], [aria-hidden="true"], [style*="display:none"], [style*="display: none"]` (the engine's matcher: any case, in this order) */
const HIDDEN: Branch[] = [(read) => read('hidden') !== null, (read) => read('aria-hidden') === 'true', containsBranch('style', 'display:none'), containsBranch('style', 'display: none')];

export function removePageFurniture(doc: Document): number {
  let removed = 0;
  const root = doc.body;
  if (!root) return 0;
  for (const element of elementsOf(root).filter(mayBeFurniture)) {
    if (!element.isConnected) continue;
    if (isNoiseContainer(element)) {
      element.remove();
      removed++;
    }
  }
  for (const hidden of matchingInBranchOrder(elementsOf(root), HIDDEN)) {
    if (hidden.isConnected && !hidden.querySelector('img, picture, video') && longestParagraph(hidden) < 280) {
      hidden.remove();
      removed++;
    }
  }
  return removed;
}

/** Lazy-loading pages keep the real image URL in data-* attributes; surface it as src. */
export function unwrapLazyImages(doc: Document): void {
  for (const img of Array.from(doc.querySelectorAll('img'))) {
    const src = img.getAttribute('src') ?? '';
    if (src && !src.startsWith('data:')) continue;
    const lazy = img.getAttribute('data-src') ?? img.getAttribute('data-lazy-src') ?? img.getAttribute('data-original') ?? img.getAttribute('data-url');
    if (lazy) img.setAttribute('src', lazy);
  }
}

/** English prompts only here: the article's language is not known yet, and the body's lines get the language's own later. */
const isEnglishPrompt = readerPromptTest('eng');

const HEADING_LIKE_TAGS = new Set(['h2', 'h3', 'h4', 'h5', 'h6', 'div', 'span', 'p', 'strong']);
const TEASER_TAGS = new Set(['p', 'div']);
const PROMPT_TAGS = new Set(['p', 'div', 'span', 'li', 'h2', 'h3', 'h4', 'h5', 'h6', 'aside', 'figcaption', 'a', 'strong', 'em']);
/** `figcaption, .caption, [class~="caption"]` (class selectors ignore case in quirks mode: the engine confirms the few candidates). */
const isCaption = (element: Element): boolean =>
  element.localName === 'figcaption' || (attributeHasWord(element, 'class', 'caption', ANY_CASE) && element.matches('.caption, [class~="caption"]'));

export function dropBoilerplateBlocks(content: Element): number {
  let removed = 0;
  // One listing for the four passes: they only remove, and each skips what an earlier one removed.
  const elements = elementsOf(content);
  for (const heading of elements.filter((element) => tagIn(element, HEADING_LIKE_TAGS))) {
    if (!content.contains(heading) || textLength(heading) > 60 || !LIST_HEADING.test(normaliseSpace(heading.textContent ?? ''))) continue;
    // the heading and what follows it in its container: a list of other articles
    let next = heading.nextElementSibling;
    heading.remove();
    removed++;
    while (next) {
      const after: Element | null = next.nextElementSibling;
      if (/^H[1-3]$/.test(next.tagName)) break;
      next.remove();
      next = after;
    }
  }
  // teasers of other articles: an excerpt cut off with "[…]"
  for (const teaser of elements.filter((element) => tagIn(element, TEASER_TAGS))) {
    if (content.contains(teaser) && textLength(teaser) < 700 && /\[(?:…|\.\.\.)\]\s*$/.test(normaliseSpace(teaser.textContent ?? ''))) {
      teaser.remove();
      removed++;
    }
  }
  // captions and picture credits are not the article's text
  for (const caption of elements.filter(isCaption)) {
    if (content.contains(caption) && textLength(caption) < 400) {
      caption.remove();
      removed++;
    }
  }
  for (const element of elements.filter((candidate) => tagIn(candidate, PROMPT_TAGS))) {
    if (!content.contains(element)) continue; // the article is detached: isConnected is false for all of it
    if (isEnglishPrompt(normaliseSpace(element.textContent ?? ''))) {
      element.remove();
      removed++;
    }
  }
  return removed;
}
