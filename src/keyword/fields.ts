import { analyze, POSITION_INCREMENT_GAP } from './analyzer';
import { DocValueLists, GrowableU32, type DocValueListsState } from './growable';
import { DocIdSets, type DocIdSetsState } from './doc-id-sets';
import { PostingsReader, putRecord, putRecordHead, recordSize } from './postings';
import { TermTable } from './term-table';

export const ABSENT = 0xffffffff;

/** One term's postings: coded records (postings.ts, read with `PostingsReader`), docs increasing (deleted docs stay until compaction). */
export interface TermPostings {
  /** Live documents containing the term (Lucene's docFreq, without deleted documents). */
  readonly df: number;
  /** The records, a view valid until the field's next write. */
  readonly data: Uint8Array;
}

export interface TextFieldState {
  /** Terms by id (the order they were first seen). */
  terms: string[];
  starts: Uint32Array;
  lengths: Uint32Array;
  df: Uint32Array;
  /** Each term's last doc (its postings' records are gaps from the doc before). */
  lastDocs: Uint32Array;
  pool: Uint8Array;
  docLengths: Uint32Array;
  docTerms: DocIdSetsState;
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
   * Every term's postings in one byte pool, each term's records contiguous in its own room: arrays of numbers
   * per field instead of three objects per term, positions and doc numbers as variable-length gaps (bench:scale,
   * 82k documents: the postings pool 80 → 27 MB).
   */
  private readonly termIds: TermTable;
  private readonly termStart: GrowableU32;
  private readonly termLength: GrowableU32;
  private readonly termRoom: GrowableU32;
  private readonly termDf: GrowableU32;
  private readonly lastDoc: GrowableU32;
  private pool: Uint8Array;
  private poolEnd: number;
  private moved = 0;
  /** While adding a doc: which add last saw each term (`adds`), and how often the doc has it. */
  private readonly seenIn: GrowableU32;
  private readonly counts: GrowableU32;
  private adds = 0;
  /** Token count per doc; ABSENT when the doc has no token in this field. */
  readonly lengths: GrowableU32;
  /** Each doc's distinct term ids: what a delete takes out of the document frequencies (no copy of the text kept). */
  private docTerms: DocIdSets;
  docCount: number;
  sumTotalTermFreq: number;

  constructor(readonly name: string, state?: TextFieldState) {
    this.termIds = TermTable.of(state?.terms ?? []);
    const terms = state?.terms.length ?? 0;
    this.termStart = state ? new GrowableU32(0).adopt(state.starts) : new GrowableU32(16);
    this.termLength = state ? new GrowableU32(0).adopt(state.lengths) : new GrowableU32(16);
    this.termRoom = state ? new GrowableU32(0).adopt(state.lengths.slice()) : new GrowableU32(16);
    this.termDf = state ? new GrowableU32(0).adopt(state.df) : new GrowableU32(16);
    this.lastDoc = state ? new GrowableU32(0).adopt(state.lastDocs) : new GrowableU32(16);
    this.seenIn = state ? new GrowableU32(0).adopt(new Uint32Array(terms)) : new GrowableU32(16);
    this.counts = state ? new GrowableU32(0).adopt(new Uint32Array(terms)) : new GrowableU32(16);
    this.pool = state?.pool ?? new Uint8Array(4096);
    this.poolEnd = state?.pool.length ?? 0;
    this.lengths = state ? new GrowableU32(0).adopt(state.docLengths) : new GrowableU32(16);
    this.docTerms = new DocIdSets(state?.docTerms);
    this.docCount = state?.docCount ?? 0;
    this.sumTotalTermFreq = state?.sumTotalTermFreq ?? 0;
  }

  /** The field as plain data (a snapshot's); trims first, so each term's records start where the previous end. */
  toState(): TextFieldState {
    this.trim();
    return {
      terms: [...this.termIds.terms()], starts: this.termStart.values(), lengths: this.termLength.values(), df: this.termDf.values(),
      lastDocs: this.lastDoc.values(), pool: this.pool.slice(0, this.poolEnd), docLengths: this.lengths.values(),
      docTerms: this.docTerms.toState(), docCount: this.docCount, sumTotalTermFreq: this.sumTotalTermFreq,
    };
  }

  /** The postings of `term`, or undefined when no document ever had it. */
  postings(term: string): TermPostings | undefined {
    const id = this.termIds.get(term);
    if (id === undefined) return undefined;
    const start = this.termStart.data[id];
    return { df: this.termDf.data[id], data: this.pool.subarray(start, start + this.termLength.data[id]) };
  }

  /** The terms ever indexed in this field that begin with `prefix`. */
  termsWithPrefix(prefix: string): string[] {
    return this.termIds.withPrefix(prefix);
  }

  add(doc: number, values: readonly string[]): void {
    // The doc's tokens (term id, position), then one record per distinct term, appended to the term's room.
    const tokens: number[] = [];
    const positions: number[] = [];
    const distinct: number[] = [];
    const add = ++this.adds;
    let pos = 0;
    for (let v = 0; v < values.length; v++) {
      if (v > 0) pos += POSITION_INCREMENT_GAP;
      for (const t of analyze(values[v])) {
        let id = this.termIds.get(t);
        if (id === undefined) id = this.newTerm(t);
        if (this.seenIn.data[id] !== add) {
          this.seenIn.data[id] = add;
          this.counts.data[id] = 0;
          distinct.push(id);
        }
        this.counts.data[id]++;
        tokens.push(id);
        positions.push(pos++);
      }
    }
    const length = tokens.length;
    if (length === 0) return;
    // Each distinct term's positions together (counting sort by first appearance; positions stay increasing).
    const grouped = new Uint32Array(length);
    let at = 0;
    for (const id of distinct) {
      const n = this.counts.data[id];
      this.counts.data[id] = at;
      at += n;
    }
    for (let i = 0; i < length; i++) grouped[this.counts.data[tokens[i]]++] = positions[i];
    let from = 0;
    for (const id of distinct) {
      const to = this.counts.data[id];
      this.appendRecord(id, doc, grouped, from, to);
      this.termDf.data[id]++;
      from = to;
    }
    this.docTerms.append(doc, distinct);
    this.lengths.set(doc, length, ABSENT);
    this.docCount++;
    this.sumTotalTermFreq += length;
  }

  private newTerm(term: string): number {
    const id = this.termIds.add(term);
    this.termStart.push(this.reserve(8));
    this.termLength.push(0);
    this.termRoom.push(8);
    this.termDf.push(0);
    this.lastDoc.push(ABSENT);
    this.seenIn.push(0);
    this.counts.push(0);
    return id;
  }

  /** Room for `bytes` at the end of the pool: its offset. */
  private reserve(bytes: number): number {
    if (this.poolEnd + bytes > this.pool.length) {
      const next = new Uint8Array(Math.max(this.poolEnd + bytes, Math.ceil(this.pool.length * 1.5)));
      next.set(this.pool.subarray(0, this.poolEnd));
      this.pool = next;
    }
    const at = this.poolEnd;
    this.poolEnd += bytes;
    return at;
  }

  private appendRecord(id: number, doc: number, positions: Uint32Array, from: number, to: number): void {
    const last = this.lastDoc.data[id];
    const previous = last === ABSENT ? -1 : last;
    const size = recordSize(doc, previous, positions, from, to);
    const length = this.termLength.data[id];
    if (length + size > this.termRoom.data[id]) this.move(id, Math.max(8, (length + size) * ROOM_GROWTH));
    putRecord(this.pool, this.termStart.data[id] + length, doc, previous, positions, from, to);
    this.termLength.data[id] = length + size;
    this.lastDoc.data[id] = doc;
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
    const next = new Uint8Array(exact ? size : Math.max(4096, Math.ceil(size * 1.25)));
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
      const records = new PostingsReader(this.pool.subarray(start, start + this.termLength.data[id]));
      // Kept records are rewritten in place: a kept record's new gap is at most the sum of the old gaps since the
      // previous kept one, so its head never takes more bytes than the records it replaces (positions are copied as they are).
      let out = start;
      let previous = -1;
      while (records.next()) {
        const to = map[records.doc];
        if (to < 0) continue;
        const posFrom = start + records.positionsStart;
        const posBytes = records.positionsEnd - records.positionsStart;
        out = putRecordHead(this.pool, out, to - previous, records.freq, posBytes);
        this.pool.copyWithin(out, posFrom, posFrom + posBytes);
        out += posBytes;
        previous = to;
      }
      this.termLength.data[id] = out - start;
      this.lastDoc.data[id] = previous < 0 ? ABSENT : previous;
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
    for (const a of [this.termStart, this.termLength, this.termRoom, this.termDf, this.lastDoc, this.seenIn, this.counts, this.lengths]) a.trim();
    this.docTerms.trim();
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
