/**
 * One term's postings as bytes, Lucene-style delta and variable-length coded: per document a record
 * `varint(doc − previous doc) varint(freq) varint(bytes of positions)` then its `freq` positions, the first
 * as is and each next as the gap from the one before. Docs increase; the first record's previous doc is −1.
 * The positions' byte count lets a scorer that needs only doc and freq step over them.
 */

/** The weight of each 7-bit group of a varint, by its place (multiplication: the last group passes 31 bits). */
const SCALE = [1, 2 ** 7, 2 ** 14, 2 ** 21, 2 ** 28];

export function varintSize(value: number): number {
  let n = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 0x80);
    n++;
  }
  return n;
}

/** Writes `value` (a non-negative integer below 2^35) at `at`; returns the offset after it. */
export function putVarint(out: Uint8Array, at: number, value: number): number {
  while (value >= 0x80) {
    out[at++] = (value & 0x7f) | 0x80;
    value = Math.floor(value / 0x80);
  }
  out[at++] = value;
  return at;
}

/** Bytes a record of `doc` after `previousDoc` (−1 for the first) with these positions takes. */
export function recordSize(doc: number, previousDoc: number, positions: ArrayLike<number>, from: number, to: number): number {
  const posBytes = positionBytes(positions, from, to);
  return varintSize(doc - previousDoc) + varintSize(to - from) + varintSize(posBytes) + posBytes;
}

function positionBytes(positions: ArrayLike<number>, from: number, to: number): number {
  let bytes = 0;
  let last = 0;
  for (let i = from; i < to; i++) {
    bytes += varintSize(positions[i]! - last);
    last = positions[i]!;
  }
  return bytes;
}

/** Writes the head of a record (doc gap, freq, bytes of positions) at `at`; returns the offset after it. */
export function putRecordHead(out: Uint8Array, at: number, docGap: number, freq: number, positionBytes: number): number {
  return putVarint(out, putVarint(out, putVarint(out, at, docGap), freq), positionBytes);
}

/** Writes a record (see the module comment) at `at`; returns the offset after it. */
export function putRecord(out: Uint8Array, at: number, doc: number, previousDoc: number, positions: ArrayLike<number>, from: number, to: number): number {
  at = putRecordHead(out, at, doc - previousDoc, to - from, positionBytes(positions, from, to));
  let last = 0;
  for (let i = from; i < to; i++) {
    at = putVarint(out, at, positions[i]! - last);
    last = positions[i]!;
  }
  return at;
}

/** Variable-length integers read one after another from `bytes`, starting at `at`. */
export class VarintReader {
  constructor(readonly bytes: Uint8Array, public at = 0) {}

  next(): number {
    const b = this.bytes;
    let byte = b[this.at++]!;
    let value = byte & 0x7f;
    for (let shift = 1; byte & 0x80; shift++) {
      byte = b[this.at++]!;
      value += (byte & 0x7f) * SCALE[shift]!;
    }
    return value;
  }
}

/** Reads a term's records in order: `next()` moves to the next, then `doc`, `freq` and `positions()` describe it. */
export class PostingsReader {
  doc = -1;
  freq = 0;
  private readonly varints: VarintReader;
  private positionsAt = 0;
  private end = 0;

  constructor(bytes: Uint8Array) {
    this.varints = new VarintReader(bytes);
  }

  /** Moves to the next record; false past the last. */
  next(): boolean {
    const v = this.varints;
    v.at = this.end;
    if (v.at >= v.bytes.length) return false;
    this.doc += v.next();
    this.freq = v.next();
    const positionBytes = v.next();
    this.positionsAt = v.at;
    this.end = v.at + positionBytes;
    return true;
  }

  /** Where the current record's position bytes start and end in the term's bytes (to copy them unchanged). */
  get positionsStart(): number {
    return this.positionsAt;
  }

  get positionsEnd(): number {
    return this.end;
  }

  /** Moves to the first record of a doc ≥ `target` (staying put when already there); false when there is none. */
  advance(target: number): boolean {
    while (this.doc < target) if (!this.next()) return false;
    return true;
  }

  /** The current record's positions, written into `out` (which needs room for `freq`); returns them as a view. */
  positions(out: Uint32Array): Uint32Array {
    const v = this.varints;
    v.at = this.positionsAt;
    let last = 0;
    for (let i = 0; i < this.freq; i++) {
      last += v.next();
      out[i] = last;
    }
    return out.subarray(0, this.freq);
  }
}
