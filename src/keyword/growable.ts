type Numbers = Uint8Array | Uint32Array | Float64Array;

/** Append-only typed arrays that double as they grow: postings without one object per entry. */
class Growable<A extends Numbers> {
  length = 0;
  data: A;
  constructor(private readonly allocate: (capacity: number) => A, capacity: number) {
    this.data = allocate(capacity);
  }
  /** Takes `values` as its content (a snapshot's). */
  adopt(values: A): this {
    this.data = values;
    this.length = values.length;
    return this;
  }
  /** The content, as a copy. */
  values(): A {
    return this.data.slice(0, this.length) as A;
  }
  push(v: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = v;
  }
  grow(min: number): void {
    let cap = Math.max(4, this.data.length * 2);
    while (cap < min) cap *= 2;
    const next = this.allocate(cap);
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
  /** Drops unused capacity (after a bulk build). */
  trim(): void {
    if (this.data.length > this.length + 4) this.data = this.data.slice(0, this.length) as A;
  }
  /** Sets index i, filling any gap with `fill`. */
  set(i: number, v: number, fill: number): void {
    if (i >= this.data.length) this.grow(i + 1);
    if (i >= this.length) {
      this.data.fill(fill, this.length, i);
      this.length = i + 1;
    }
    this.data[i] = v;
  }
}

export class GrowableU32 extends Growable<Uint32Array> {
  constructor(capacity = 4) {
    super((n) => new Uint32Array(n), capacity);
  }
  override set(i: number, v: number, fill = 0): void {
    super.set(i, v, fill);
  }
  get(i: number, missing: number): number {
    return i < this.length ? this.data[i] : missing;
  }
}

export class GrowableU8 extends Growable<Uint8Array> {
  constructor(capacity = 4) {
    super((n) => new Uint8Array(n), capacity);
  }
}

export class GrowableF64 extends Growable<Float64Array> {
  constructor(capacity = 4) {
    super((n) => new Float64Array(n), capacity);
  }
  override set(i: number, v: number, fill = NaN): void {
    super.set(i, v, fill);
  }
  get(i: number): number {
    return i < this.length ? this.data[i] : NaN;
  }
}

/**
 * Per-document lists of values, documents appended in increasing order (compressed sparse rows).
 * Documents never appended read as empty.
 */
export interface DocValueListsState {
  starts: Uint32Array;
  ends: Uint32Array;
  values: Float64Array | Uint32Array;
}

export class DocValueLists {
  private readonly starts: GrowableU32;
  private readonly ends: GrowableU32;
  readonly values: GrowableF64 | GrowableU32;
  constructor(kind: 'f64' | 'u32', state?: DocValueListsState) {
    this.starts = state ? new GrowableU32(0).adopt(state.starts) : new GrowableU32(8);
    this.ends = state ? new GrowableU32(0).adopt(state.ends) : new GrowableU32(8);
    if (state) this.values = state.values instanceof Float64Array ? new GrowableF64(0).adopt(state.values) : new GrowableU32(0).adopt(state.values);
    else this.values = kind === 'f64' ? new GrowableF64(8) : new GrowableU32(8);
  }
  toState(): DocValueListsState {
    return { starts: this.starts.values(), ends: this.ends.values(), values: this.values.values() };
  }
  trim(): void {
    this.starts.trim();
    this.ends.trim();
    this.values.trim();
  }
  append(doc: number, vals: ArrayLike<number>): void {
    const start = this.values.length;
    for (let i = 0; i < vals.length; i++) this.values.push(vals[i]);
    this.starts.set(doc, start);
    this.ends.set(doc, this.values.length);
  }
  /** Calls fn for each value of doc. */
  forEach(doc: number, fn: (v: number) => void): void {
    if (doc >= this.starts.length) return;
    const s = this.starts.data[doc];
    const e = this.ends.data[doc];
    const d = this.values.data;
    for (let i = s; i < e; i++) fn(d[i]);
  }
  /** Index range of doc's values in `values.data` (empty when start === end); no allocation. */
  startOf(doc: number): number {
    return doc < this.starts.length ? this.starts.data[doc] : 0;
  }
  endOf(doc: number): number {
    return doc < this.ends.length ? this.ends.data[doc] : 0;
  }
  count(doc: number): number {
    if (doc >= this.starts.length) return 0;
    return this.ends.data[doc] - this.starts.data[doc];
  }
  first(doc: number): number | undefined {
    if (doc >= this.starts.length) return undefined;
    const s = this.starts.data[doc];
    return s < this.ends.data[doc] ? this.values.data[s] : undefined;
  }
  /**
   * The same lists under new doc numbers: `map[doc]` is the doc's new number, or -1 to leave it out; `valueMap`,
   * when given, renumbers the values too (ordinals).
   */
  remapped(map: Int32Array, valueMap?: Int32Array): DocValueLists {
    const out = new DocValueLists(this.values instanceof GrowableF64 ? 'f64' : 'u32');
    const d = this.values.data;
    for (let doc = 0; doc < this.starts.length && doc < map.length; doc++) {
      if (map[doc] < 0) continue;
      const s = this.starts.data[doc];
      const e = this.ends.data[doc];
      if (s === e) continue;
      const values = d.subarray(s, e);
      out.append(map[doc], valueMap ? Array.from(values, (v) => valueMap[v]) : values);
    }
    out.trim();
    return out;
  }
  /** Values of doc as a view (valid until the next append). */
  view(doc: number): Float64Array | Uint32Array | undefined {
    if (doc >= this.starts.length) return undefined;
    const s = this.starts.data[doc];
    const e = this.ends.data[doc];
    if (s === e) return undefined;
    return this.values.data.subarray(s, e);
  }
}
