import { analyze, POSITION_INCREMENT_GAP } from './analyzer';
import { DocValueLists, GrowableU32, type DocValueListsState } from './growable';

export const ABSENT = 0xffffffff;

/** One term's postings: records `[doc, freq, position × freq]`, docs increasing (deleted docs stay until compaction). */
export interface TermPostings {
  /** Live documents containing the term (Lucene's docFreq, without deleted documents). */
  readonly df: number;
  /** The records, a view valid until the field's next write. */
  readonly data: Uint32Array;
}

export interface TextFieldState {
  /** Terms by id (the order they were first seen). */
  terms: string[];
  starts: Uint32Array;
  lengths: Uint32Array;
  df: Uint32Array;
  pool: Uint32Array;
  docLengths: Uint32Array;
  docTerms: DocValueListsState;
  docCount: number;
  sumTotalTermFreq: number;
}

/** A term that outgrows its room moves to the end of the pool with this many times the room. */
const ROOM_GROWTH = 2;
/** The pool is compacted once room left behind by moved terms passes this share of it. */
const MAX_MOVED_SHARE = 0.25;

/** An analyzed (full-text) field: `text` or a string path of meta such as `meta.title`. */
export class TextField {
  /**
   * Every term's postings in one pool, each term's records contiguous in its own room: arrays of numbers per
   * field instead of three objects per term (bench:scale, 82k documents, 245k terms: the keyword worker's heap
   * 2,267 → 1,329 bytes per document, its copies of the documents included).
   */
  private readonly termIds = new Map<string, number>();
  private readonly termStart: GrowableU32;
  private readonly termLength: GrowableU32;
  private readonly termRoom: GrowableU32;
  private readonly termDf: GrowableU32;
  /** While indexing: the doc of each term's last record and where its freq sits (relative to the term's start). */
  private readonly lastDoc: GrowableU32;
  private readonly freqAt: GrowableU32;
  private pool: Uint32Array;
  private poolEnd: number;
  private moved = 0;
  /** Token count per doc; ABSENT when the doc has no token in this field. */
  readonly lengths: GrowableU32;
  /** Each doc's distinct term ids: what a delete takes out of the document frequencies (no copy of the text kept). */
  private docTerms: DocValueLists;
  docCount: number;
  sumTotalTermFreq: number;

  constructor(readonly name: string, state?: TextFieldState) {
    state?.terms.forEach((term, id) => this.termIds.set(term, id));
    const terms = state?.terms.length ?? 0;
    this.termStart = state ? new GrowableU32(0).adopt(state.starts) : new GrowableU32(16);
    this.termLength = state ? new GrowableU32(0).adopt(state.lengths) : new GrowableU32(16);
    this.termRoom = state ? new GrowableU32(0).adopt(state.lengths.slice()) : new GrowableU32(16);
    this.termDf = state ? new GrowableU32(0).adopt(state.df) : new GrowableU32(16);
    this.lastDoc = state ? new GrowableU32(0).adopt(new Uint32Array(terms).fill(ABSENT)) : new GrowableU32(16);
    this.freqAt = state ? new GrowableU32(0).adopt(new Uint32Array(terms)) : new GrowableU32(16);
    this.pool = state?.pool ?? new Uint32Array(1024);
    this.poolEnd = state?.pool.length ?? 0;
    this.lengths = state ? new GrowableU32(0).adopt(state.docLengths) : new GrowableU32(16);
    this.docTerms = new DocValueLists('u32', state?.docTerms);
    this.docCount = state?.docCount ?? 0;
    this.sumTotalTermFreq = state?.sumTotalTermFreq ?? 0;
  }

  /** The field as plain data (a snapshot's); trims first, so each term's records start where the previous end. */
  toState(): TextFieldState {
    this.trim();
    return {
      terms: [...this.termIds.keys()], starts: this.termStart.values(), lengths: this.termLength.values(), df: this.termDf.values(),
      pool: this.pool.slice(0, this.poolEnd), docLengths: this.lengths.values(), docTerms: this.docTerms.toState(), docCount: this.docCount, sumTotalTermFreq: this.sumTotalTermFreq,
    };
  }

  /** The postings of `term`, or undefined when no document ever had it. */
  postings(term: string): TermPostings | undefined {
    const id = this.termIds.get(term);
    if (id === undefined) return undefined;
    const start = this.termStart.data[id];
    return { df: this.termDf.data[id], data: this.pool.subarray(start, start + this.termLength.data[id]) };
  }

  /** Every term ever indexed in this field. */
  terms(): IterableIterator<string> {
    return this.termIds.keys();
  }

  add(doc: number, values: readonly string[]): void {
    // A term's records are contiguous and the current doc is always its last record, so positions
    // are appended in place and only the freq slot is bumped.
    let pos = 0;
    let length = 0;
    const distinct: number[] = [];
    for (let v = 0; v < values.length; v++) {
      if (v > 0) pos += POSITION_INCREMENT_GAP;
      const terms = analyze(values[v]);
      for (const t of terms) {
        let id = this.termIds.get(t);
        if (id === undefined) id = this.newTerm(t);
        if (this.lastDoc.data[id] !== doc) {
          this.lastDoc.data[id] = doc;
          distinct.push(id);
          this.termDf.data[id]++;
          this.append(id, doc);
          this.freqAt.data[id] = this.termLength.data[id];
          this.append(id, 0);
        }
        this.pool[this.termStart.data[id] + this.freqAt.data[id]]++;
        this.append(id, pos++);
      }
      length += terms.length;
    }
    if (length === 0) return;
    this.docTerms.append(doc, distinct);
    this.lengths.set(doc, length, ABSENT);
    this.docCount++;
    this.sumTotalTermFreq += length;
  }

  private newTerm(term: string): number {
    const id = this.termStart.length;
    this.termIds.set(term, id);
    this.termStart.push(this.reserve(4));
    this.termLength.push(0);
    this.termRoom.push(4);
    this.termDf.push(0);
    this.lastDoc.push(ABSENT);
    this.freqAt.push(0);
    return id;
  }

  /** Room for `words` at the end of the pool: its offset. */
  private reserve(words: number): number {
    if (this.poolEnd + words > this.pool.length) {
      const next = new Uint32Array(Math.max(this.poolEnd + words, Math.ceil(this.pool.length * 1.5)));
      next.set(this.pool.subarray(0, this.poolEnd));
      this.pool = next;
    }
    const at = this.poolEnd;
    this.poolEnd += words;
    return at;
  }

  private append(id: number, value: number): void {
    const length = this.termLength.data[id];
    if (length === this.termRoom.data[id]) this.move(id, Math.max(4, length * ROOM_GROWTH));
    this.pool[this.termStart.data[id] + length] = value;
    this.termLength.data[id] = length + 1;
  }

  private move(id: number, room: number): void {
    const length = this.termLength.data[id];
    const to = this.reserve(room);
    const from = this.termStart.data[id];
    this.pool.copyWithin(to, from, from + length);
    this.moved += this.termRoom.data[id];
    this.termStart.data[id] = to;
    this.termRoom.data[id] = room;
    if (this.moved > MAX_MOVED_SHARE * this.poolEnd) this.compactPool(false);
  }

  /** Rewrites the pool without the room moved terms left behind; `exact` also drops each term's spare room. */
  private compactPool(exact: boolean): void {
    const terms = this.termStart.length;
    let size = 0;
    for (let id = 0; id < terms; id++) size += exact ? this.termLength.data[id] : this.termRoom.data[id];
    const next = new Uint32Array(exact ? size : Math.max(1024, Math.ceil(size * 1.25)));
    let at = 0;
    for (let id = 0; id < terms; id++) {
      const start = this.termStart.data[id];
      const length = this.termLength.data[id];
      next.set(this.pool.subarray(start, start + length), at);
      this.termStart.data[id] = at;
      if (exact) this.termRoom.data[id] = length;
      at += this.termRoom.data[id];
    }
    this.pool = next;
    this.poolEnd = at;
    this.moved = 0;
  }

  /** Takes a deleted doc out of the statistics (its postings stay, skipped as dead, until `compact`). */
  remove(doc: number): void {
    const length = this.lengths.get(doc, ABSENT);
    if (length === ABSENT) return;
    this.docCount--;
    this.sumTotalTermFreq -= length;
    this.lengths.data[doc] = ABSENT;
    this.docTerms.forEach(doc, (id) => {
      this.termDf.data[id]--;
    });
  }

  /** Renumbers the docs (`map[doc]`: new number, -1 for deleted ones), dropping deleted docs' records. */
  compact(map: Int32Array): void {
    const terms = this.termStart.length;
    for (let id = 0; id < terms; id++) {
      const start = this.termStart.data[id];
      const end = start + this.termLength.data[id];
      let out = start;
      // Records are [doc, freq, positions × freq]; kept ones slide down in place.
      for (let at = start; at < end;) {
        const doc = this.pool[at];
        const size = 2 + this.pool[at + 1];
        const to = map[doc];
        if (to >= 0) {
          this.pool.copyWithin(out, at, at + size);
          this.pool[out] = to;
          out += size;
        }
        at += size;
      }
      this.termLength.data[id] = out - start;
      this.lastDoc.data[id] = ABSENT;
    }
    const kept = new GrowableU32(16);
    for (let doc = 0; doc < map.length; doc++) {
      if (map[doc] >= 0) kept.set(map[doc], this.lengths.get(doc, ABSENT), ABSENT);
    }
    this.lengths.adopt(kept.values());
    this.docTerms = this.docTerms.remapped(map);
    this.compactPool(true);
  }

  trim(): void {
    this.compactPool(true);
    for (const a of [this.termStart, this.termLength, this.termRoom, this.termDf, this.lastDoc, this.freqAt, this.lengths]) a.trim();
  }

  avgFieldLength(): number {
    return this.docCount === 0 ? 1 : this.sumTotalTermFreq / this.docCount;
  }
}

/**
 * An exact-value field (`id`, `tags`, `meta.x.keyword`, booleans): ordinals, a doc list per ordinal
 * (for term queries and candidate sets) and per-doc ordinals (for aggregations).
 */
export interface KeywordFieldState {
  values: string[];
  firstDoc: Uint32Array;
  lists: (Uint32Array | null)[];
  df: number[];
  docOrds: DocValueListsState;
  docCount: number;
  sumDocFreq: number;
}

export class KeywordField {
  readonly ordOf = new Map<string, number>();
  values: string[];
  /** First doc of each ordinal; most values of `id` and `meta.x.keyword` have one doc only. */
  private firstDoc: GrowableU32;
  /** Doc list of ordinals seen in more than one doc (first doc included). */
  private lists: (GrowableU32 | undefined)[];
  df: number[];
  docOrds: DocValueLists;
  docCount: number;
  /** Sum over live docs of their number of distinct values (Lucene's sumDocFreq). */
  sumDocFreq: number;

  constructor(readonly name: string, state?: KeywordFieldState) {
    this.values = state?.values ?? [];
    this.values.forEach((v, ord) => this.ordOf.set(v, ord));
    this.firstDoc = state ? new GrowableU32(0).adopt(state.firstDoc) : new GrowableU32(16);
    this.lists = state?.lists.map((l) => (l ? new GrowableU32(0).adopt(l) : undefined)) ?? [];
    this.df = state?.df ?? [];
    this.docOrds = new DocValueLists('u32', state?.docOrds);
    this.docCount = state?.docCount ?? 0;
    this.sumDocFreq = state?.sumDocFreq ?? 0;
  }

  toState(): KeywordFieldState {
    return {
      values: this.values, firstDoc: this.firstDoc.values(), lists: this.lists.map((l) => l?.values() ?? null), df: this.df,
      docOrds: this.docOrds.toState(), docCount: this.docCount, sumDocFreq: this.sumDocFreq,
    };
  }

  add(doc: number, values: readonly string[]): void {
    const ords: number[] = [];
    for (const v of values) {
      let ord = this.ordOf.get(v);
      if (ord === undefined) {
        ord = this.values.length;
        this.ordOf.set(v, ord);
        this.values.push(v);
        this.firstDoc.push(doc);
        this.lists.push(undefined);
        this.df.push(0);
      } else {
        if (ords.includes(ord)) continue;
        let list = this.lists[ord];
        if (!list) {
          list = new GrowableU32(4);
          list.push(this.firstDoc.data[ord]);
          this.lists[ord] = list;
        }
        list.push(doc);
      }
      ords.push(ord);
      this.df[ord]++;
    }
    if (ords.length === 0) return;
    this.docOrds.append(doc, ords);
    this.docCount++;
    this.sumDocFreq += ords.length;
  }

  trim(): void {
    this.firstDoc.trim();
    for (const l of this.lists) l?.trim();
    this.docOrds.trim();
  }

  /** Every doc number given this ordinal since the last compaction, increasing (dead ones included). */
  docsOf(ord: number): Uint32Array {
    const list = this.lists[ord];
    return list ? list.data.subarray(0, list.length) : this.firstDoc.data.subarray(ord, ord + 1);
  }

  /** Renumbers the docs (`map[doc]`: new number, -1 for deleted ones) and drops the values no live doc has. */
  compact(map: Int32Array): void {
    const ordMap = new Int32Array(this.values.length).fill(-1);
    const values: string[] = [];
    const firstDoc = new GrowableU32(16);
    const lists: (GrowableU32 | undefined)[] = [];
    const df: number[] = [];
    for (let ord = 0; ord < this.values.length; ord++) {
      const kept = new GrowableU32(1);
      for (const doc of this.docsOf(ord)) if (map[doc] >= 0) kept.push(map[doc]);
      if (kept.length === 0) continue;
      ordMap[ord] = values.length;
      values.push(this.values[ord]);
      firstDoc.push(kept.data[0]);
      kept.trim();
      lists.push(kept.length > 1 ? kept : undefined);
      df.push(this.df[ord]);
    }
    this.values = values;
    this.ordOf.clear();
    values.forEach((v, ord) => this.ordOf.set(v, ord));
    this.firstDoc = firstDoc;
    this.lists = lists;
    this.df = df;
    this.docOrds = this.docOrds.remapped(map, ordMap);
  }

  remove(doc: number): void {
    const n = this.docOrds.count(doc);
    if (n === 0) return;
    this.docCount--;
    this.sumDocFreq -= n;
    this.docOrds.forEach(doc, (ord) => {
      this.df[ord]--;
    });
  }
}

/** A numeric path of meta (`meta.price`), possibly multi-valued. */
export class NumericField {
  docValues: DocValueLists;
  constructor(readonly name: string, state?: DocValueListsState) {
    this.docValues = new DocValueLists('f64', state);
  }
  toState(): DocValueListsState {
    return this.docValues.toState();
  }
  trim(): void {
    this.docValues.trim();
  }
  /** Renumbers the docs (`map[doc]`: new number, -1 for deleted ones). */
  compact(map: Int32Array): void {
    this.docValues = this.docValues.remapped(map);
  }
}
