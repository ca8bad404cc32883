/**
 * Charset detection for fetched HTML, in the order browsers use: byte-order mark, the
 * Content-Type header's charset, then a <meta charset> / http-equiv declaration in the first
 * bytes, then UTF-8; the bytes themselves overrule a declaration they contradict (see `detectCharset`). Node's TextDecoder (full ICU) decodes every WHATWG encoding label
 * (windows-125x, iso-8859-x, koi8, shift_jis, euc-jp, euc-kr, gbk, gb18030, big5, utf-16…).
 */

const SNIFF_BYTES = 4096;

/** Returns a label TextDecoder accepts, or null when the label is unknown. */
export function normaliseCharset(label: string | null | undefined): string | null {
  if (!label) return null;
  const cleaned = label.trim().replace(/^["']|["']$/g, '').toLowerCase();
  if (!cleaned) return null;
  try {
    return new TextDecoder(cleaned).encoding;
  } catch {
    return null;
  }
}

export function charsetFromContentType(contentType: string | null): string | null {
  if (!contentType) return null;
  const match = contentType.match(/charset\s*=\s*("?)([^";,\s]+)\1/i);
  return match ? normaliseCharset(match[2]) : null;
}

function charsetFromBom(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  return null;
}

export function charsetFromMeta(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, SNIFF_BYTES)).toString('latin1');
  for (const tag of head.match(/<meta\b[^>]*>/gi) ?? []) {
    const direct = tag.match(/\bcharset\s*=\s*["']?\s*([^"'\s/>;]+)/i);
    if (direct) {
      const found = normaliseCharset(direct[1]);
      if (found) return found.startsWith('utf-16') ? 'utf-8' : found; // a UTF-16 page cannot declare itself in ASCII
    }
  }
  return null;
}

/** Well-formed UTF-8 multi-byte sequences in `bytes`, and bytes above 0x7F that cannot start or continue one. */
function utf8Evidence(bytes: Uint8Array): { sequences: number; stray: number } {
  let sequences = 0;
  let stray = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b < 0x80) continue;
    const need = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    let ok = need > 0 && i + need < bytes.length;
    for (let k = 1; ok && k <= need; k++) ok = (bytes[i + k] & 0xc0) === 0x80;
    if (ok) {
      sequences++;
      i += need;
    } else stray++;
  }
  return { sequences, stray };
}

/**
 * Byte-level check of text said (or assumed) to be UTF-8: pages saved in windows-1252 / ISO-8859-1 while declaring
 * UTF-8 (or declaring nothing) have many stray high bytes and few sequences; a UTF-8 page with a few broken bytes
 * keeps most of its sequences and stays UTF-8.
 */
export function looksLikeLegacy8Bit(bytes: Uint8Array): boolean {
  const { sequences, stray } = utf8Evidence(bytes);
  return stray > 0 && stray >= sequences;
}

/**
 * The reverse check, for a page whose <meta> names a legacy charset: every high byte is part of a well-formed UTF-8
 * sequence (pages re-saved as UTF-8 keep their old declaration). Text really written in GBK, Shift_JIS, windows-125x
 * or ISO-8859-x has bytes UTF-8 cannot read within its first few non-ASCII characters.
 */
function looksLikeUtf8(bytes: Uint8Array): boolean {
  const { sequences, stray } = utf8Evidence(bytes);
  return stray === 0 && sequences >= 2;
}

export function detectCharset(bytes: Uint8Array, contentType: string | null): string {
  if (charsetFromBom(bytes)) return charsetFromBom(bytes)!;
  const fromHeader = charsetFromContentType(contentType);
  const declared = fromHeader ?? charsetFromMeta(bytes);
  if ((declared === null || declared === 'utf-8') && looksLikeLegacy8Bit(bytes)) return 'windows-1252';
  if (fromHeader === null && declared !== null && declared !== 'utf-8' && looksLikeUtf8(bytes)) return 'utf-8';
  return declared ?? 'utf-8';
}

/** windows-1252 code points for bytes 0x80-0x9f (0 = undefined, kept as the C1 control like the WHATWG decoder). */
const CP1252_HIGH = [
  0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017d, 0,
  0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0, 0x017e, 0x0178,
];

/**
 * Node 20's TextDecoder('windows-1252') (also used for the iso-8859-1 / us-ascii labels) decodes
 * as plain Latin-1, leaving bytes 0x80-0x9f as C1 controls instead of € ‘ ’ “ ” – — …; decode it here.
 */
function decodeWindows1252(bytes: Uint8Array): string {
  let out = '';
  const CHUNK = 8192;
  for (let start = 0; start < bytes.length; start += CHUNK) {
    const codes: number[] = [];
    const end = Math.min(bytes.length, start + CHUNK);
    for (let i = start; i < end; i++) {
      const b = bytes[i];
      codes.push(b >= 0x80 && b <= 0x9f ? CP1252_HIGH[b - 0x80] || b : b);
    }
    out += String.fromCharCode(...codes);
  }
  return out;
}

export function decodeHtml(bytes: Uint8Array, contentType: string | null): { text: string; charset: string } {
  const charset = detectCharset(bytes, contentType);
  const text = charset === 'windows-1252' ? decodeWindows1252(bytes) : new TextDecoder(charset).decode(bytes);
  return { text, charset };
}
