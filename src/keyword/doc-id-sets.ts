import { GrowableU32, GrowableU8 } from './growable';
import { putVarint, VarintReader } from './postings';

export interface DocIdSetsState {
  starts: Uint32Array;
  ends: Uint32Array;
  bytes: Uint8Array;
}

/**
 * A set of numbers per document (a text field's distinct term ids per doc), kept sorted as variable-length gaps:
 * about a byte or two per number instead of four. Documents are appended in increasing order; never appended
 * ones read as empty.
 */
export class DocIdSets {
  private readonly starts: GrowableU32;
  private readonly ends: GrowableU32;
  private readonly bytes: GrowableU8;

  constructor(state?: DocIdSetsState) {
    this.starts = state ? new GrowableU32(0).adopt(state.starts) : new GrowableU32(8);
    this.ends = state ? new GrowableU32(0).adopt(state.ends) : new GrowableU32(8);
    this.bytes = state ? new GrowableU8(0).adopt(state.bytes) : new GrowableU8(64);
  }

  toState(): DocIdSetsState {
    return { starts: this.starts.values(), ends: this.ends.values(), bytes: this.bytes.values() };
  }

  trim(): void {
    this.starts.trim();
    this.ends.trim();
    this.bytes.trim();
  }

  append(doc: number, ids: readonly number[]): void {
    const sorted = Uint32Array.from(ids).sort();
    const start = this.bytes.length;
    // at most 5 bytes per number
    if (start + sorted.length * 5 > this.bytes.data.length) this.bytes.grow(start + sorted.length * 5);
    let at = start;
    let last = 0;
    for (let i = 0; i < sorted.length; i++) {
      at = putVarint(this.bytes.data, at, sorted[i]! - last);
      last = sorted[i]!;
    }
    this.bytes.length = at;
    this.starts.set(doc, start);
    this.ends.set(doc, at);
  }

  /** Calls fn for each number of doc, increasing. */
  forEach(doc: number, fn: (id: number) => void): void {
    if (doc >= this.starts.length) return;
    const end = this.ends.data[doc]!;
    const varints = new VarintReader(this.bytes.data, this.starts.data[doc]!);
    let last = 0;
    while (varints.at < end) {
      last += varints.next();
      fn(last);
    }
  }

  /** The same sets under new doc numbers: `map[doc]` is the doc's new number, or -1 to leave it out. */
  remapped(map: Int32Array): DocIdSets {
    const out = new DocIdSets();
    const b = this.bytes.data;
    for (let doc = 0; doc < this.starts.length && doc < map.length; doc++) {
      const s = this.starts.data[doc]!;
      const e = this.ends.data[doc]!;
      if (map[doc]! < 0 || s === e) continue;
      const at = out.bytes.length;
      if (at + (e - s) > out.bytes.data.length) out.bytes.grow(at + (e - s));
      out.bytes.data.set(b.subarray(s, e), at);
      out.bytes.length = at + (e - s);
      out.starts.set(map[doc]!, at);
      out.ends.set(map[doc]!, at + (e - s));
    }
    out.trim();
    return out;
  }
}
