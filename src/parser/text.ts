import { segmentWords } from '../text';

/** Turns an element tree into paragraphs of plain text, the way a reader would see the blocks. */

const BLOCK_TAGS = new Set([
  'ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BODY', 'CAPTION', 'CENTER', 'DD', 'DETAILS', 'DIALOG', 'DIR', 'DIV', 'DL', 'DT',
  'FIELDSET', 'FIGCAPTION', 'FIGURE', 'FOOTER', 'FORM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HGROUP', 'HR', 'LI',
  'MAIN', 'MENU', 'NAV', 'OL', 'P', 'PRE', 'SECTION', 'SUMMARY', 'TABLE', 'TBODY', 'TFOOT', 'THEAD', 'TR', 'UL',
]);
const SKIP_TAGS = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'MATH', 'IFRAME', 'OBJECT', 'EMBED', 'CANVAS', 'BUTTON', 'SELECT', 'TEXTAREA']);
const ELEMENT_NODE = 1;
const TEXT_NODE = 3;

export function normaliseSpace(text: string): string {
  return text.replace(/[\s\u00a0\u200b\ufeff]+/g, ' ').trim();
}

/** Paragraph texts of an element: block boundaries and <br> end a paragraph; whitespace is collapsed. */
export function paragraphsOf(root: Node): string[] {
  const paragraphs: string[] = [];
  let current = '';
  const flush = (): void => {
    const text = normaliseSpace(current);
    if (text) paragraphs.push(text);
    current = '';
  };
  const walk = (node: Node): void => {
    if (node.nodeType === TEXT_NODE) {
      current += node.nodeValue ?? '';
      return;
    }
    if (node.nodeType !== ELEMENT_NODE) return;
    const tag = (node as Element).tagName.toUpperCase();
    if (SKIP_TAGS.has(tag)) return;
    if (tag === 'BR') {
      flush();
      return;
    }
    const block = BLOCK_TAGS.has(tag);
    if (block) flush();
    else if (tag === 'TD' || tag === 'TH') current += ' ';
    for (let child = node.firstChild; child; child = child.nextSibling) walk(child);
    if (block) flush();
    else if (tag === 'IMG' || tag === 'INPUT') current += ' ';
  };
  walk(root);
  flush();
  return paragraphs;
}

const KANA = /[\p{sc=Hiragana}\p{sc=Katakana}]/u;
const HAN = /\p{sc=Han}/u;
const THAI = /\p{sc=Thai}/u;

/** Lower-case word tokens (letters and digits of any script; Chinese, Japanese and Thai split into words by ICU). */
export function wordTokens(text: string): string[] {
  if (KANA.test(text)) return segmentWords(text, 'jpn');
  if (HAN.test(text)) return segmentWords(text, 'zho');
  if (THAI.test(text)) return segmentWords(text, 'tha');
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu) ?? [];
}

/** Splits a paragraph into sentences at . ! ? (and CJK stops) followed by space and an upper-case/quote/digit start. */
export function sentencesOf(paragraph: string): string[] {
  const parts = paragraph.split(/(?<=[.!?。！？]["'”’)\]]?)\s+(?=["'“‘(\[]?[\p{Lu}\p{N}])|(?<=[。！？])/u);
  return parts.map((part) => part.trim()).filter((part) => part.length > 0);
}
