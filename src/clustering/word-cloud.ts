import type { WeightedWord } from './words';

export interface PlacedWord {
  word: string;
  importance: number;
  fontSize: number;
  /** Box of the word: left, top, width, height (px). */
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WordCloudOptions {
  width?: number;
  height?: number;
  minFontSize?: number;
  maxFontSize?: number;
}

/** Average advance of a sans-serif glyph as a share of the font size; the SVG pins each word to its box with textLength. */
const CHAR_WIDTH = 0.6;
/** Approximate advances (share of the font size) of narrow and wide lower-case glyphs, so short words are not stretched. */
const NARROW = new Set('ijlft'.split(''));
const WIDE = new Set('mw'.split(''));
function textWidth(word: string, fontSize: number): number {
  let units = 0;
  for (const ch of word) units += NARROW.has(ch) ? 0.32 : WIDE.has(ch) ? 0.9 : ch === 'r' ? 0.42 : 0.6;
  return Math.ceil(units * fontSize);
}
const PADDING = 4;
const COLOURS = ['#1b4f72', '#b03a2e', '#1e8449', '#7d3c98', '#b9770e', '#2e4053', '#117a65', '#a04000'];

function overlaps(a: PlacedWord, b: PlacedWord): boolean {
  return a.x < b.x + b.width + PADDING && b.x < a.x + a.width + PADDING && a.y < b.y + b.height + PADDING && b.y < a.y + a.height + PADDING;
}

/**
 * Places words on an Archimedean spiral from the centre, biggest first; a word that meets a placed one moves
 * on along the spiral. Words that fit nowhere inside the canvas (even at the smallest size) are left out.
 */
export function layoutWordCloud(words: readonly WeightedWord[], options: WordCloudOptions = {}): PlacedWord[] {
  const width = options.width ?? 640;
  const height = options.height ?? 400;
  const minSize = options.minFontSize ?? 13;
  const maxSize = options.maxFontSize ?? 60;
  const placed: PlacedWord[] = [];
  const sorted = [...words].sort((a, b) => b.importance - a.importance || (a.word < b.word ? -1 : 1));
  const sizeOf = (importance: number, scale: number) =>
    Math.max(minSize, Math.round((minSize + (maxSize - minSize) * Math.max(0, Math.min(1, importance))) * scale));
  // Scale the sizes down so the words' boxes cover at most ~35 % of the canvas: room for the spiral to pack them all.
  const area = sorted.reduce((sum, w) => sum + w.word.length * CHAR_WIDTH * 1.15 * sizeOf(w.importance, 1) ** 2, 0);
  const scale = Math.min(1, Math.sqrt((0.35 * width * height) / Math.max(1, area)));
  for (const { word, importance } of sorted) {
    let fontSize = sizeOf(importance, scale);
    let box: PlacedWord | undefined;
    while (!box && fontSize >= minSize) {
      const w = textWidth(word, fontSize);
      const h = Math.ceil(fontSize * 1.15);
      if (w <= width - 2 * PADDING) {
        // Archimedean spiral r = a·θ, walked in steps of ~4 px of arc (fine enough far from the centre too).
        const a = 1.5;
        const maxRadius = Math.hypot(width, height) / 2;
        for (let angle = 0; a * angle <= maxRadius * 1.2; angle += Math.min(0.5, 4 / Math.max(1, a * angle))) {
          const radius = a * angle;
          const candidate: PlacedWord = {
            word, importance, fontSize, width: w, height: h,
            x: Math.round(width / 2 + radius * Math.cos(angle) * (width / height) - w / 2),
            y: Math.round(height / 2 + radius * Math.sin(angle) - h / 2),
          };
          const inside = candidate.x >= PADDING && candidate.y >= PADDING && candidate.x + w <= width - PADDING && candidate.y + h <= height - PADDING;
          if (inside && !placed.some((p) => overlaps(p, candidate))) {
            box = candidate;
            break;
          }
        }
      }
      if (!box) fontSize -= 4;
    }
    if (box) placed.push(box);
  }
  return placed;
}

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** An SVG image of the words, sized by importance, none overlapping. */
export function renderWordCloud(words: readonly WeightedWord[], title: string, options: WordCloudOptions = {}): string {
  const width = options.width ?? 640;
  const height = options.height ?? 400;
  const placed = layoutWordCloud(words, { ...options, width, height });
  const texts = placed.map((p, i) => {
    const baseline = p.y + Math.round(p.fontSize * 0.92);
    return `<text x="${p.x}" y="${baseline}" font-size="${p.fontSize}" textLength="${p.width}" lengthAdjust="spacingAndGlyphs" fill="${COLOURS[i % COLOURS.length]}">${escapeXml(p.word)}</text>`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<g font-family="DejaVu Sans, Helvetica, Arial, sans-serif">`,
    ...texts,
    '</g>',
    '</svg>',
  ].join('\n');
}
