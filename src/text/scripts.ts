/** The writing system of a character, as far as text analysis needs to tell them apart. */
export type Script = 'latin' | 'cyrillic' | 'greek' | 'arabic' | 'hebrew' | 'devanagari' | 'han' | 'kana' | 'hangul' | 'southeast-asian' | 'other';

/** Script of the code point `cp` (ranges of the Unicode blocks; `other` for the rest). */
export function scriptOf(cp: number): Script {
  if (cp < 0x250) return 'latin';
  if (cp < 0x370) return 'other';
  if (cp < 0x400) return 'greek';
  if (cp < 0x530) return 'cyrillic';
  if (cp >= 0x590 && cp < 0x600) return 'hebrew';
  if ((cp >= 0x600 && cp < 0x700) || (cp >= 0x750 && cp < 0x780) || (cp >= 0x8a0 && cp < 0x900)) return 'arabic';
  if (cp >= 0x900 && cp < 0x980) return 'devanagari';
  // Thai, Lao, Myanmar, Khmer: written without spaces between words.
  if ((cp >= 0xe00 && cp < 0xf00) || (cp >= 0x1000 && cp < 0x10a0) || (cp >= 0x1780 && cp < 0x1800)) return 'southeast-asian';
  if ((cp >= 0x1100 && cp < 0x1200) || (cp >= 0x3130 && cp < 0x3190) || (cp >= 0xac00 && cp < 0xd7b0)) return 'hangul';
  if (cp >= 0x1e00 && cp < 0x1f00) return 'latin';
  if (cp >= 0x1f00 && cp < 0x2000) return 'greek';
  if ((cp >= 0x3040 && cp < 0x3100) || (cp >= 0x31f0 && cp < 0x3200) || (cp >= 0xff66 && cp < 0xffa0)) return 'kana';
  if ((cp >= 0x3400 && cp < 0x4dc0) || (cp >= 0x4e00 && cp < 0xa000) || (cp >= 0xf900 && cp < 0xfb00) || (cp >= 0x20000 && cp < 0x32000)) return 'han';
  if ((cp >= 0xfb50 && cp < 0xfe00) || (cp >= 0xfe70 && cp < 0xff00)) return 'arabic';
  return 'other';
}
