import { normaliseSpace, paragraphsOf } from './text';

/**
 * The body's fallback chain (issue 30). Candidates: Readability's article (Kindred's clean-up around it),
 * the page's JSON-LD articleBody, and a recall-oriented baseline (paragraph, list, quote, code, table and
 * heading text of the page, without link-dense blocks). One is chosen by measured signals: its length
 * against the page's prose, and its link density. Then short boilerplate lines (bylines, dates, share
 * prompts) at the edges of the chosen text are trimmed. Nothing here knows a site.
 */

export interface BodyCandidate {
  kind: 'readability' | 'jsonld' | 'baseline';
  paragraphs: string[];
}

const BASELINE_BLOCKS = 'p, li, blockquote, pre, h1, h2, h3, h4, h5, h6, dd, dt, td, th, figcaption';
const BOILERPLATE_CONTAINERS = 'nav, footer, header, aside, form, [role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"], [role="search"]';

function linkText(element: Element): number {
  let total = 0;
  for (const link of Array.from(element.getElementsByTagName('a'))) total += normaliseSpace(link.textContent ?? '').length;
  return total;
}

/**
 * Recall-oriented baseline: each paragraph-like block of the page that is not inside page furniture,
 * not nested in another taken block, and not mostly link text, in document order.
 */
export function baselineParagraphs(doc: Document): string[] {
  const root = doc.body;
  if (!root) return [];
  const taken = new Set<Element>();
  const paragraphs: string[] = [];
  for (const element of Array.from(root.querySelectorAll(BASELINE_BLOCKS))) {
    if (element.closest(BOILERPLATE_CONTAINERS)) continue;
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
    const text = normaliseSpace(element.textContent ?? '');
    if (!text) continue;
    const links = linkText(element);
    if (links / text.length > 0.5) continue;
    if (tag === 'LI' && text.length < 25 && links > 0) continue;
    taken.add(element);
    paragraphs.push(...paragraphsOf(element));
  }
  return paragraphs;
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
 * (its own text is the publisher's, without furniture); the baseline when both are short against the
 * page's prose (Readability kept one block of a page whose text is spread over several).
 */
export function chooseBody(readability: string[], jsonLd: string[], baseline: string[]): BodyCandidate {
  const r = length(readability);
  const j = length(jsonLd);
  const b = length(baseline);
  if (j > 500 && j > 1.5 * r) return { kind: 'jsonld', paragraphs: jsonLd };
  if (r < 250 && b > 2 * r + 200) return { kind: 'baseline', paragraphs: baseline };
  return { kind: 'readability', paragraphs: readability };
}
