import { datesInText } from './metadata';

/**
 * Line-level clean-up of the chosen body: paragraphs that are page furniture by their own text, whatever
 * element held them (the "bylines and dates inside the body", captions and credits, "read also"
 * links). Each rule looks at one short line only; long paragraphs are always kept.
 */

/** Digits, times, separators and the little words that glue a date to its label. */
const DATE_GLUE = /\b\d{1,4}(?:[./:-]\d{1,4})*\.?|\b(?:uhr|am|um|on|at|de|del|le|den)\b|[,|·•–—-]/giu;

/** "Aktualisiert: 11.04.2020, 10:27", "Posted on April 29, 2022", "asked Feb 6, 2014 at 20:37": the post's metadata. */
export function isDateLine(line: string): boolean {
  if (line.length >= 50 || datesInText(line).length === 0) return false;
  const rest = line.replace(DATE_GLUE, ' ').trim();
  return rest === '' || rest.split(/\s+/).length <= 2;
}

/** A picture's caption or credit: "Foto: …", "Abbildung 4: …", "… © AFP", "(Credit: …)", "Photograph by …". */
const CAPTION =
  /^(?:foto|fotos|bild|bilder|photo|photos|photograph|image|crédits? photos?|abbildung|abb\.|beitragsbild|titelbild|quelle|źródło|kuva|source|credit|vergrößern)\b(?:\s+\d+)?\s*[:–]\s|(?:©|\(c\)|copyright\s*(?:©|\d{4}))\s*[\p{L}\d ./&-]{0,60}\)?$|\((?:foto|photo|bild|credit|quelle|source|image|picture)s?\s*:[^)]{0,80}\)$|^photograph(?:y)? by\b/iu;

/** A link to another article behind a "read also" label, in the languages of the dev set (no \b: it is ASCII-only). */
const READ_ALSO =
  /^(?:czytaj (?:też|także|również)|zobacz (?:też|także|również)|lea (?:más|también)|lea|lee (?:más|también)|puedes ver|le puede interesar|te puede interesar|veja (?:também|mais)|leia (?:também|mais)|lesen sie (?:auch|hier|mehr)|mehr (?:dazu|zum thema)|auch interessant|lire aussi|à lire aussi|voir aussi|read (?:more|also|next)|see also|related|schon gelesen|leggi anche|dowiedz się więcej)\s*[:?»›→]/iu;

const SHORT = 300;

export function isFurnitureLine(line: string): boolean {
  return isDateLine(line) || (line.length < SHORT && (CAPTION.test(line) || READ_ALSO.test(line)));
}

export function dropFurnitureLines(paragraphs: string[]): string[] {
  return paragraphs.filter((line) => !isFurnitureLine(line));
}
