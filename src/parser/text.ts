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

const SENTENCE_END = /[.!?…"“”»)]$/u;

/** The text ends as a sentence does (. ! ? … a closing quote or parenthesis), in any language written with these marks. */
export const endsLikeSentence = (text: string): boolean => SENTENCE_END.test(text);

/** A paragraph of text and the innermost block (or table cell) that holds its first words. */
export interface HeldParagraph {
  text: string;
  holder: Element;
  /** Characters of the paragraph inside links. */
  linkLength: number;
}

/** Paragraphs of an element with their holders: block boundaries and <br> end a paragraph; whitespace is collapsed. */
export function heldParagraphsOf(root: Element): HeldParagraph[] {
  const paragraphs: HeldParagraph[] = [];
  let current = '';
  let holder: Element | null = null;
  let linkLength = 0;
  const flush = (): void => {
    const text = normaliseSpace(current);
    if (text) paragraphs.push({ text, holder: holder ?? root, linkLength });
    current = '';
    holder = null;
    linkLength = 0;
  };
  const walk = (node: Node, block: Element, inLink: boolean): void => {
    if (node.nodeType === TEXT_NODE) {
      const value = node.nodeValue ?? '';
      if (!holder && value.trim()) holder = block;
      current += value;
      if (inLink) linkLength += normaliseSpace(value).length;
      return;
    }
    if (node.nodeType !== ELEMENT_NODE) return;
    const element = node as Element;
    const tag = element.tagName.toUpperCase();
    if (SKIP_TAGS.has(tag)) return;
    if (tag === 'BR') {
      flush();
      return;
    }
    const isBlock = BLOCK_TAGS.has(tag);
    const cell = tag === 'TD' || tag === 'TH';
    if (isBlock) flush();
    else if (cell) current += ' ';
    const inner = isBlock || cell ? element : block;
    for (let child = node.firstChild; child; child = child.nextSibling) walk(child, inner, inLink || tag === 'A');
    if (isBlock) flush();
    else if (tag === 'IMG' || tag === 'INPUT') current += ' ';
  };
  walk(root, root, false);
  flush();
  return paragraphs;
}

/** Paragraph texts of an element: block boundaries and <br> end a paragraph; whitespace is collapsed. */
export function paragraphsOf(root: Node): string[] {
  if (root.nodeType === ELEMENT_NODE) return heldParagraphsOf(root as Element).map((paragraph) => paragraph.text);
  return normaliseSpace(root.textContent ?? '') ? [normaliseSpace(root.textContent ?? '')] : [];
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
