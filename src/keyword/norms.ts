/**
 * Lucene stores a field's length in one byte (SmallFloat.intToByte4): lengths below 24 are exact,
 * larger ones keep 4 significant bits. BM25 then scores with the decoded length. We reproduce this
 * so that scores match Elasticsearch's for long fields too (avgdl itself is exact in Lucene).
 */
function longToInt4(i: number): number {
  const numBits = i === 0 ? 0 : 32 - Math.clz32(i);
  if (numBits < 4) return i;
  const shift = numBits - 4;
  let encoded = (i >>> shift) & 0x07;
  encoded |= (shift + 1) << 3;
  return encoded;
}

function int4ToLong(i: number): number {
  const bits = i & 0x07;
  const shift = (i >>> 3) - 1;
  return shift === -1 ? bits : (bits | 0x08) * 2 ** shift;
}

const MAX_INT4 = longToInt4(0x7fffffff);
const NUM_FREE_VALUES = 255 - MAX_INT4;

export function encodeLength(length: number): number {
  if (length < NUM_FREE_VALUES) return length;
  return NUM_FREE_VALUES + longToInt4(Math.min(length, 0x7fffffff) - NUM_FREE_VALUES);
}

export function decodeLength(byte: number): number {
  if (byte < NUM_FREE_VALUES) return byte;
  return NUM_FREE_VALUES + int4ToLong(byte - NUM_FREE_VALUES);
}

/** The length BM25 sees for a field of `length` tokens. */
export function luceneLength(length: number): number {
  return decodeLength(encodeLength(length));
}

export const LENGTH_TABLE: Float64Array = (() => {
  const t = new Float64Array(256);
  for (let i = 0; i < 256; i++) t[i] = decodeLength(i);
  return t;
})();
