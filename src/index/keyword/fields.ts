import { analyze, POSITION_INCREMENT_GAP } from './analyzer';
import { DocValueLists, GrowableU32 } from './growable';

export const ABSENT = 0xffffffff;

/**
 * Postings of one term in one text field, as one flat array of records
 * `[doc, freq, position × freq]`, docs increasing. Deleted docs stay until compaction.
 */
export class TermPostings {
  readonly data = new GrowableU32(4);
  /** Live documents containing the term (Lucene's docFreq, without deleted documents). */
  df = 0;
  /** While indexing: the doc of the last record and where its freq sits. */
  lastDoc = -1;
  freqAt = 0;
}

/** An analyzed (full-text) field: `text` or a string path of meta such as `meta.title`. */
export class TextField {
  readonly terms = new Map<string, TermPostings>();
  /** Token count per doc; ABSENT when the doc has no token in this field. */
  readonly lengths = new GrowableU32(16);
  docCount = 0;
  sumTotalTermFreq = 0;

  constructor(readonly name: string) {}

  add(doc: number, values: readonly string[]): void {
    // A term's records are contiguous and the current doc is always its last record, so positions
    // are appended in place and only the freq slot is bumped.
    let pos = 0;
    let length = 0;
    for (let v = 0; v < values.length; v++) {
      if (v > 0) pos += POSITION_INCREMENT_GAP;
      const terms = analyze(values[v]);
      for (const t of terms) {
        let p = this.terms.get(t);
        if (!p) {
          p = new TermPostings();
          this.terms.set(t, p);
        }
        const d = p.data;
        if (p.lastDoc !== doc) {
          p.lastDoc = doc;
          p.df++;
          d.push(doc);
          p.freqAt = d.length;
          d.push(0);
        }
        d.data[p.freqAt]++;
        d.push(pos++);
      }
      length += terms.length;
    }
    if (length === 0) return;
    this.lengths.set(doc, length, ABSENT);
    this.docCount++;
    this.sumTotalTermFreq += length;
  }

  /** Takes a deleted doc out of the statistics (its postings stay, skipped as dead). */
  remove(doc: number, values: readonly string[]): void {
    const length = this.lengths.get(doc, ABSENT);
    if (length === ABSENT) return;
    this.docCount--;
    this.sumTotalTermFreq -= length;
    this.lengths.data[doc] = ABSENT;
    const seen = new Set<string>();
    for (const v of values) for (const t of analyze(v)) seen.add(t);
    for (const t of seen) {
      const p = this.terms.get(t);
      if (p) p.df--;
    }
  }

  trim(): void {
    for (const p of this.terms.values()) p.data.trim();
    this.lengths.trim();
  }

  avgFieldLength(): number {
    return this.docCount === 0 ? 1 : this.sumTotalTermFreq / this.docCount;
  }
}

/**
 * An exact-value field (`id`, `tags`, `meta.x.keyword`, booleans): ordinals, a doc list per ordinal
 * (for term queries and candidate sets) and per-doc ordinals (for aggregations).
 */
export class KeywordField {
  readonly ordOf = new Map<string, number>();
  readonly values: string[] = [];
  /** First doc of each ordinal; most values of `id` and `meta.x.keyword` have one doc only. */
  private readonly firstDoc = new GrowableU32(16);
  /** Doc list of ordinals seen in more than one doc (first doc included). */
  private readonly lists: (GrowableU32 | undefined)[] = [];
  readonly df: number[] = [];
  readonly docOrds = new DocValueLists('u32');
  docCount = 0;
  /** Sum over live docs of their number of distinct values (Lucene's sumDocFreq). */
  sumDocFreq = 0;

  constructor(readonly name: string) {}

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

  /** Every doc number ever given this ordinal, increasing (dead ones included). */
  docsOf(ord: number): Uint32Array {
    const list = this.lists[ord];
    return list ? list.data.subarray(0, list.length) : this.firstDoc.data.subarray(ord, ord + 1);
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
  readonly docValues = new DocValueLists('f64');
  constructor(readonly name: string) {}
  trim(): void {
    this.docValues.trim();
  }
}
