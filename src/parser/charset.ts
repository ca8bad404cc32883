/**
 * Charset detection for fetched HTML, in the order browsers use: byte-order mark, the
 * Content-Type header's charset, then a <meta charset> / http-equiv declaration in the first
 * bytes, then UTF-8. Node's TextDecoder (full ICU) decodes every WHATWG encoding label
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

export function detectCharset(bytes: Uint8Array, contentType: string | null): string {
  return charsetFromBom(bytes) ?? charsetFromContentType(contentType) ?? charsetFromMeta(bytes) ?? 'utf-8';
}

export function decodeHtml(bytes: Uint8Array, contentType: string | null): { text: string; charset: string } {
  const charset = detectCharset(bytes, contentType);
  return { text: new TextDecoder(charset).decode(bytes), charset };
}
