import { CREDIT_LABEL, READ_ALSO } from './boilerplate-phrases';
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

/** A picture's caption or credit by its form: "… © AFP", "(Credit: …)", "Photograph by …" (labels such as "Foto: …" are `CREDIT_LABEL`). */
const CREDIT_FORM =
  /(?:©|\(c\)|copyright\s*(?:©|\d{4}))\s*[\p{L}\d ./&-]{0,60}\)?$|\((?:foto|photo|bild|credit|quelle|source|image|picture)s?\s*:[^)]{0,80}\)$|^photograph(?:y)? by\b/iu;

const SHORT = 300;

export function isFurnitureLine(line: string): boolean {
  return isDateLine(line) || (line.length < SHORT && (CREDIT_LABEL.test(line) || CREDIT_FORM.test(line) || READ_ALSO.test(line)));
}

export function dropFurnitureLines(paragraphs: string[]): string[] {
  return paragraphs.filter((line) => !isFurnitureLine(line));
}
