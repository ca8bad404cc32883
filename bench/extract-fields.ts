/**
 * How bench:extract and its development loop (bench/extract-dev.ts) compare extracted metadata with the
 * extraction-eval set's fields: the scorer's whitespace rule, authors without "By" and with one separator (", ", ";", "&" and
 * "and" in English, German, French and Spanish are the same), dates by day. The set's score.mjs does not score metadata.
 */

/** Whitespace as Python's str.split() sees it (the eval scorer's definition). */
const PY_SPACE = /[\s\u001c-\u001f\u0085]+/g;

export const squashSpace = (s: string | null | undefined): string => (s ?? '').replace(PY_SPACE, ' ').trim();

export const authorKey = (s: string | null | undefined): string =>
  squashSpace(s)
    .toLowerCase()
    .replace(/^(?:by|von|par|por|door|di|av)\s+/, '')
    .replace(/[\s.,;:|]+$/, '')
    .replace(/\s*(?:;|&|\band\b|\bund\b|\bet\b|\by\b)\s*/g, ', ');

export const sameDay = (published: string | null | undefined, date: string): boolean => (published ?? '').slice(0, 10) === date.slice(0, 10);

/** Command-line option `name`'s value, or `fallback`. */
export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}
