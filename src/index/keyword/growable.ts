/** Append-only typed arrays that double as they grow: postings without one object per entry. */
export class GrowableU32 {
  data: Uint32Array;
  length = 0;
  constructor(capacity = 4) {
    this.data = new Uint32Array(capacity);
  }
  push(v: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = v;
  }
  grow(min: number): void {
    let cap = Math.max(4, this.data.length * 2);
    while (cap < min) cap *= 2;
    const next = new Uint32Array(cap);
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
  /** Drops unused capacity (after a bulk build). */
  trim(): void {
    if (this.data.length > this.length + 4) this.data = this.data.slice(0, this.length);
  }
  /** Sets index i, filling any gap with `fill`. */
  set(i: number, v: number, fill = 0): void {
    if (i >= this.data.length) this.grow(i + 1);
    if (i >= this.length) {
      if (fill !== 0) this.data.fill(fill, this.length, i);
      this.length = i + 1;
    }
    this.data[i] = v;
  }
  get(i: number, missing: number): number {
    return i < this.length ? this.data[i] : missing;
  }
}

export class GrowableF64 {
  data: Float64Array;
  length = 0;
  constructor(capacity = 4) {
    this.data = new Float64Array(capacity);
  }
  push(v: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = v;
  }
  grow(min: number): void {
    let cap = Math.max(4, this.data.length * 2);
    while (cap < min) cap *= 2;
    const next = new Float64Array(cap);
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
  trim(): void {
    if (this.data.length > this.length + 4) this.data = this.data.slice(0, this.length);
  }
  set(i: number, v: number, fill = NaN): void {
    if (i >= this.data.length) this.grow(i + 1);
    if (i >= this.length) {
      this.data.fill(fill, this.length, i);
      this.length = i + 1;
    }
    this.data[i] = v;
  }
  get(i: number): number {
    return i < this.length ? this.data[i] : NaN;
  }
}

/**
 * Per-document lists of values, documents appended in increasing order (compressed sparse rows).
 * Documents never appended read as empty.
 */
export class DocValueLists {
  private readonly starts = new GrowableU32(8);
  private readonly ends = new GrowableU32(8);
  readonly values: GrowableF64 | GrowableU32;
  constructor(kind: 'f64' | 'u32') {
    this.values = kind === 'f64' ? new GrowableF64(8) : new GrowableU32(8);
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
  /** Values of doc as a view (valid until the next append). */
  view(doc: number): Float64Array | Uint32Array | undefined {
    if (doc >= this.starts.length) return undefined;
    const s = this.starts.data[doc];
    const e = this.ends.data[doc];
    if (s === e) return undefined;
    return this.values.data.subarray(s, e);
  }
}
