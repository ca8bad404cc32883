/** UTF-16 code units in flat arrays (vocabularies, the stem memo, term tables): their hash (FNV-1a), comparison and decoding. */

/** FNV-1a over a string's UTF-16 code units. */
export function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** `hashOf` of the string whose code units are `units[from, to)`. */
export function hashOfUnits(units: Uint16Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ units[i]!, 0x01000193);
  return h >>> 0;
}

/** The string whose code units are `units` (any length: spread arguments are bounded). */
export function stringOfUnits(units: Uint16Array): string {
  if (units.length <= 4096) return String.fromCharCode(...units);
  let text = '';
  for (let at = 0; at < units.length; at += 4096) text += String.fromCharCode(...units.subarray(at, at + 4096));
  return text;
}

/** Whether `units[from, to)` are the code units of `text`. */
export function unitsEqual(units: Uint16Array, from: number, to: number, text: string): boolean {
  if (to - from !== text.length) return false;
  for (let c = 0; c < text.length; c++) if (units[from + c] !== text.charCodeAt(c)) return false;
  return true;
}
