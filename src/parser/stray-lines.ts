import type { LineOrigin } from './origins';
import { endsLikeSentence } from './text';

/**
 * Lines of the chosen body that stray outside the article (issue 30, fourth pass). The article's container is
 * the deepest element of the page that holds at least half of the body's text (lines located by `lineOrigins`,
 * read before clean-up). Dropped, by structure and the line's own form, in any language:
 * - after the last line inside that container and after the body's last long paragraph, a line outside it that
 *   does not end like a sentence (a related headline, a "Contact:" label, a copyright row, a sign-up prompt);
 *   only in a body that has a long paragraph (a short page's headings are its text);
 * - among the last three lines, a line that is all link text (a teaser linked to another article), when a line
 *   before it is not (a page of links is its text).
 * Lines no page element holds (Readability or JSON-LD text) are kept and do not count.
 */

const MAIN_SHARE = 0.5;
const LONG_PARAGRAPH = 150;
const ALL_LINKS = 0.9;
const LAST_LINES = 3;

/** The deepest element holding at least half of the located lines' text, and its depth in the ancestor chains. */
function articleContainer(lines: readonly string[], origins: readonly (LineOrigin | undefined)[]): { element: Element; depth: number } | null {
  let total = 0;
  lines.forEach((line, i) => {
    if (origins[i]) total += line.length;
  });
  let found: { element: Element; depth: number } | null = null;
  for (let depth = 0; ; depth++) {
    const textIn = new Map<Element, number>();
    lines.forEach((line, i) => {
      const ancestors = origins[i]?.ancestors;
      if (!ancestors || ancestors.length <= depth || (found && ancestors[depth - 1] !== found.element)) return;
      textIn.set(ancestors[depth], (textIn.get(ancestors[depth]) ?? 0) + line.length);
    });
    let best: [Element, number] | null = null;
    for (const entry of textIn) if (entry[1] >= MAIN_SHARE * total && (!best || entry[1] > best[1])) best = entry;
    if (!best) return found;
    found = { element: best[0], depth: depth + 1 };
  }
}

export function dropStrayLines(lines: string[], origins: ReadonlyMap<string, LineOrigin>): string[] {
  const located = lines.map((line) => origins.get(line));
  const container = articleContainer(lines, located);
  // no element holds half of the text: nothing is outside it
  const inside = located.map((origin) => !!origin && (!container || origin.ancestors[container.depth - 1] === container.element));
  const lastInside = inside.lastIndexOf(true);
  let lastLong = -1;
  lines.forEach((line, i) => {
    if (line.length >= LONG_PARAGRAPH) lastLong = i;
  });
  const allLinks = (i: number): boolean => !!located[i] && (located[i]?.linkLength ?? 0) / lines[i].length > ALL_LINKS;
  const firstText = lines.findIndex((_line, i) => !allLinks(i));
  return lines.filter((line, i) => {
    if (!located[i]) return true;
    if (!inside[i] && lastLong >= 0 && i > lastInside && i > lastLong && !endsLikeSentence(line)) return false;
    return !(i >= lines.length - LAST_LINES && allLinks(i) && firstText >= 0 && i > firstText);
  });
}
