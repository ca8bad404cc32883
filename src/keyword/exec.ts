import { MinMatch, Query } from './ast';
import { K1, normCache, termWeight, B, idf } from './bm25';
import { parseDate } from './datemath';
import { isDateField } from './document';
import { ABSENT, KeywordField } from './fields';
import { EMPTY, MatchSet, constantSet, intersect, scaled, subtract } from './matchset';
import { resolveMinimumShouldMatch } from './msm';
import { encodeLength } from './norms';
import { PostingsReader } from './postings';
import { IndexStore } from './store';

/** Per-doc accumulators reused across queries; only touched entries are cleared. */
class Scratch {
  sum = new Float64Array(0);
  max = new Float64Array(0);
  count = new Uint32Array(0);
  touched = new Uint32Array(0);
  nTouched = 0;

  ensure(maxDoc: number): void {
    if (this.sum.length >= maxDoc) return;
    const cap = Math.max(1024, maxDoc * 1.5) | 0;
    this.sum = new Float64Array(cap);
    this.max = new Float64Array(cap);
    this.count = new Uint32Array(cap);
    this.touched = new Uint32Array(cap);
  }

  add(doc: number, score: number): void {
    if (this.count[doc] === 0) {
      this.touched[this.nTouched++] = doc;
      this.max[doc] = score;
    } else if (score > this.max[doc]) this.max[doc] = score;
    this.sum[doc] += score;
    this.count[doc]++;
  }

  /** Docs touched at least `minCount` times, sorted, scored by `score`, then clears. */
  collect(minCount: number, score: (sum: number, max: number) => number): MatchSet {
    const t = this.touched.subarray(0, this.nTouched);
    t.sort();
    const docs = new Uint32Array(t.length);
    const scores = new Float64Array(t.length);
    let k = 0;
    for (let i = 0; i < t.length; i++) {
      const d = t[i];
      if (this.count[d] >= minCount) {
        docs[k] = d;
        scores[k++] = score(this.sum[d], this.max[d]);
      }
      this.sum[d] = 0;
      this.count[d] = 0;
      this.max[d] = 0;
    }
    this.nTouched = 0;
    return { docs: docs.subarray(0, k), scores: scores.subarray(0, k) };
  }
}

/** Parsed date values of a keyword field's ordinals, for ranges on date strings inside meta. */
const keywordDateCache = new WeakMap<KeywordField, number[]>();

function keywordDates(f: KeywordField): number[] {
  let cache = keywordDateCache.get(f);
  if (!cache) {
    cache = [];
    keywordDateCache.set(f, cache);
  }
  for (let ord = cache.length; ord < f.values.length; ord++) cache.push(parseDate(f.values[ord]) ?? NaN);
  return cache;
}

function inInterval(v: number, q: { min: number; max: number; minInclusive: boolean; maxInclusive: boolean }): boolean {
  return (q.minInclusive ? v >= q.min : v > q.min) && (q.maxInclusive ? v <= q.max : v < q.max);
}

/** Runs parsed queries against one index. Not re-entrant (one scratch per executor). */
export class Executor {
  private readonly scratch = new Scratch();

  constructor(private readonly store: IndexStore) {}

  run(q: Query): MatchSet {
    this.scratch.ensure(this.store.maxDoc);
    return this.exec(q);
  }

  private exec(q: Query): MatchSet {
    switch (q.kind) {
      case 'all': return constantSet(this.liveDocs(), q.boost);
      case 'none': return EMPTY;
      case 'text': return this.text(q.field, q.terms, q.minMatch, q.boost);
      case 'phrase': return this.phrase(q.field, q.terms, q.slop, q.boost);
      case 'keyword': return this.keyword(q.field, q.value, q.boost);
      case 'keywords': return constantSet(this.keywordsDocs(q.field, q.values), q.boost);
      case 'numeric': return constantSet(this.numericDocs(q), q.boost);
      case 'keyword_range': return constantSet(this.keywordRangeDocs(q), q.boost);
      case 'prefix': return constantSet(this.prefixDocs(q.field, q.prefix), q.boost);
      case 'exists': return constantSet(this.existsDocs(q.field), q.boost);
      case 'constant': {
        const m = this.exec(q.query);
        return constantSet(m.docs, q.boost);
      }
      case 'bool': return this.bool(q);
      case 'dismax': {
        const parts = q.queries.map((x) => this.exec(x));
        for (const m of parts) for (let i = 0; i < m.docs.length; i++) this.scratch.add(m.docs[i], m.scores[i]);
        const tie = q.tieBreaker;
        const boost = q.boost;
        return this.scratch.collect(1, (sum, max) => (max + tie * (sum - max)) * boost);
      }
    }
  }

  private liveDocs(): Uint32Array {
    const s = this.store;
    const out = new Uint32Array(s.liveCount);
    let k = 0;
    const live = s.live;
    for (let d = 0; d < s.maxDoc; d++) if (live[d] === 1) out[k++] = d;
    return out.subarray(0, k);
  }

  private fromPredicate(pred: (doc: number) => boolean): Uint32Array {
    const s = this.store;
    const out: number[] = [];
    const live = s.live;
    for (let d = 0; d < s.maxDoc; d++) if (live[d] === 1 && pred(d)) out.push(d);
    return Uint32Array.from(out);
  }

  /** BM25 over one text field; `minMatch` decides how many query terms a doc needs. */
  private text(fieldName: string, terms: string[], minMatch: MinMatch, boost: number): MatchSet {
    const field = this.store.text.get(fieldName);
    if (!field || field.docCount === 0) return EMPTY;
    const required = minMatch.operator === 'and'
      ? terms.length
      : minMatch.minimumShouldMatch !== undefined
        ? Math.max(1, resolveMinimumShouldMatch(minMatch.minimumShouldMatch, terms.length))
        : 1;
    const cache = normCache(field.avgFieldLength());
    const lengths = field.lengths.data;
    const live = this.store.live;
    if (terms.length === 1) {
      const p = field.postings(terms[0]);
      if (!p || p.df === 0) return EMPTY;
      const w = termWeight(boost, p.df, field.docCount);
      const docs = new Uint32Array(p.df);
      const scores = new Float64Array(p.df);
      let k = 0;
      for (const records = new PostingsReader(p.data); records.next();) {
        const doc = records.doc;
        if (live[doc] !== 1) continue;
        const tf = records.freq;
        docs[k] = doc;
        scores[k++] = (w * tf) / (tf + cache[encodeLength(lengths[doc])]);
      }
      return { docs: docs.subarray(0, k), scores: scores.subarray(0, k) };
    }
    let present = 0;
    for (const t of terms) {
      const p = field.postings(t);
      if (!p || p.df === 0) continue;
      present++;
      const w = termWeight(boost, p.df, field.docCount);
      for (const records = new PostingsReader(p.data); records.next();) {
        const doc = records.doc;
        if (live[doc] !== 1) continue;
        const tf = records.freq;
        this.scratch.add(doc, (w * tf) / (tf + cache[encodeLength(lengths[doc])]));
      }
    }
    if (present < required) {
      this.scratch.collect(Infinity, () => 0);
      return EMPTY;
    }
    return this.scratch.collect(required, (sum) => sum);
  }

  private phrase(fieldName: string, terms: string[], slop: number, boost: number): MatchSet {
    const field = this.store.text.get(fieldName);
    if (!field || field.docCount === 0) return EMPTY;
    const postings = terms.map((t) => field.postings(t));
    if (postings.some((p) => !p || p.df === 0)) return EMPTY;
    const readers = postings.map((p) => new PostingsReader(p!.data));
    let idfSum = 0;
    for (const p of postings) idfSum += idf(p!.df, field.docCount);
    const weight = boost * idfSum * (K1 + 1);
    const cache = normCache(field.avgFieldLength());
    // Walk the rarest term's postings, advancing a cursor in each other list.
    let lead = 0;
    for (let i = 1; i < postings.length; i++) if (postings[i]!.df < postings[lead]!.df) lead = i;
    const docs: number[] = [];
    const scores: number[] = [];
    const leader = readers[lead]!;
    // Each term's positions in the current doc, decoded into a buffer of its own (grown as needed).
    const buffers = readers.map(() => new Uint32Array(16));
    const positions: Uint32Array[] = new Array<Uint32Array>(readers.length);
    const positionsOf = (t: number): Uint32Array => {
      const r = readers[t]!;
      if (buffers[t]!.length < r.freq) buffers[t] = new Uint32Array(r.freq * 2);
      return r.positions(buffers[t]!);
    };
    while (leader.next()) {
      const doc = leader.doc;
      if (this.store.live[doc] !== 1) continue;
      let all = true;
      for (let t = 0; t < readers.length && all; t++) {
        if (t === lead) continue;
        const r = readers[t]!;
        if (!r.advance(doc) || r.doc !== doc) all = false;
      }
      if (!all) continue;
      for (let t = 0; t < readers.length; t++) positions[t] = positionsOf(t);
      const freq = slop === 0 ? exactPhraseFreq(positions) : sloppyPhraseFreq(positions, slop);
      if (freq === 0) continue;
      docs.push(doc);
      scores.push((weight * freq) / (freq + cache[encodeLength(field.lengths.data[doc])]));
    }
    return { docs: Uint32Array.from(docs), scores: Float64Array.from(scores) };
  }

  private keyword(fieldName: string, value: string, boost: number): MatchSet {
    const f = this.store.keyword.get(fieldName);
    const ord = f?.ordOf.get(value);
    if (!f || ord === undefined || f.df[ord] === 0) return EMPTY;
    // Keyword fields have no norms: Lucene scores them with length 1 and avgdl = sumDocFreq / docCount.
    const avgdl = f.sumDocFreq / f.docCount;
    const k = K1 * (1 - B + B / avgdl);
    const score = (termWeight(boost, f.df[ord], f.docCount) * 1) / (1 + k);
    return constantSet(this.liveOf(f.docsOf(ord)), score);
  }

  private liveOf(list: Uint32Array): Uint32Array {
    const out = new Uint32Array(list.length);
    let k = 0;
    const live = this.store.live;
    for (let i = 0; i < list.length; i++) if (live[list[i]] === 1) out[k++] = list[i];
    return out.subarray(0, k);
  }

  /** Union of docs holding any of `values` (exact values of a keyword field, or terms of a text field). */
  keywordsDocs(fieldName: string, values: readonly string[]): Uint32Array {
    const kw = this.store.keyword.get(fieldName);
    const lists: Uint32Array[] = [];
    if (kw) {
      for (const v of new Set(values)) {
        const ord = kw.ordOf.get(v);
        if (ord !== undefined) lists.push(this.liveOf(kw.docsOf(ord)));
      }
    }
    const tf = this.store.text.get(fieldName);
    if (tf) {
      for (const v of new Set(values)) {
        const p = tf.postings(v);
        if (!p) continue;
        const docs: number[] = [];
        for (const records = new PostingsReader(p.data); records.next();) if (this.store.live[records.doc] === 1) docs.push(records.doc);
        lists.push(Uint32Array.from(docs));
      }
    }
    return unionDocs(lists);
  }

  private numericDocs(q: Extract<Query, { kind: 'numeric' }>): Uint32Array {
    if (q.source === 'date') {
      const col = isDateField(q.field) ? this.store.dates.get(q.field) : undefined;
      if (!col) return new Uint32Array(0);
      const data = col.data;
      const n = col.length;
      return this.fromPredicate((d) => d < n && inInterval(data[d], q));
    }
    if (q.source === 'meta_number') {
      const f = this.store.numeric.get(q.field);
      if (!f) return new Uint32Array(0);
      return this.fromPredicate((d) => {
        const v = f.docValues.view(d);
        if (!v) return false;
        for (let i = 0; i < v.length; i++) if (inInterval(v[i], q)) return true;
        return false;
      });
    }
    const kw = this.store.keyword.get(q.field);
    if (!kw) return new Uint32Array(0);
    const dates = keywordDates(kw);
    const ords: number[] = [];
    for (let ord = 0; ord < dates.length; ord++) if (inInterval(dates[ord], q)) ords.push(ord);
    return unionDocs(ords.map((o) => this.liveOf(kw.docsOf(o))));
  }

  private keywordRangeDocs(q: Extract<Query, { kind: 'keyword_range' }>): Uint32Array {
    const kw = this.store.keyword.get(q.field);
    if (!kw) return new Uint32Array(0);
    const lists: Uint32Array[] = [];
    kw.values.forEach((v, ord) => {
      if (q.gt !== undefined && !(v > q.gt)) return;
      if (q.gte !== undefined && !(v >= q.gte)) return;
      if (q.lt !== undefined && !(v < q.lt)) return;
      if (q.lte !== undefined && !(v <= q.lte)) return;
      lists.push(this.liveOf(kw.docsOf(ord)));
    });
    return unionDocs(lists);
  }

  private prefixDocs(fieldName: string, prefix: string): Uint32Array {
    const values: string[] = [];
    const tf = this.store.text.get(fieldName);
    if (tf) for (const t of tf.termsWithPrefix(prefix)) values.push(t);
    const kw = this.store.keyword.get(fieldName);
    if (kw) for (const v of kw.values) if (v.startsWith(prefix)) values.push(v);
    return this.keywordsDocs(fieldName, values);
  }

  existsDocs(fieldName: string): Uint32Array {
    const s = this.store;
    const checks: ((d: number) => boolean)[] = [];
    const addField = (name: string): void => {
      const t = s.text.get(name);
      if (t) checks.push((d) => t.lengths.get(d, ABSENT) !== ABSENT);
      const k = s.keyword.get(name);
      if (k) checks.push((d) => k.docOrds.count(d) > 0);
      const n = s.numeric.get(name);
      if (n) checks.push((d) => n.docValues.count(d) > 0);
      if (isDateField(name)) {
        const col = s.dates.get(name)!;
        checks.push((d) => !Number.isNaN(col.get(d)));
      }
    };
    addField(fieldName);
    addField(`${fieldName}.keyword`);
    if (checks.length === 0) {
      // An object path (`meta`, `meta.author`): any field below it.
      const prefix = `${fieldName}.`;
      for (const name of [...s.text.keys(), ...s.keyword.keys(), ...s.numeric.keys()]) if (name.startsWith(prefix)) addField(name);
    }
    if (checks.length === 0) return new Uint32Array(0);
    return this.fromPredicate((d) => checks.some((c) => c(d)));
  }

  /** A cheap per-document test for constant-score clauses, so big filters need not be materialized. */
  private predicate(q: Query): ((doc: number) => boolean) | undefined {
    if (q.kind === 'numeric' && q.source === 'date') {
      const col = isDateField(q.field) ? this.store.dates.get(q.field) : undefined;
      if (!col) return () => false;
      const data = col.data;
      const n = col.length;
      const { min, max, minInclusive, maxInclusive } = q;
      return (d) => {
        if (d >= n) return false;
        const v = data[d];
        return (minInclusive ? v >= min : v > min) && (maxInclusive ? v <= max : v < max);
      };
    }
    if (q.kind === 'numeric' && q.source === 'meta_number') {
      const f = this.store.numeric.get(q.field);
      if (!f) return () => false;
      const dv = f.docValues;
      return (d) => {
        const vals = dv.values.data;
        for (let i = dv.startOf(d), e = dv.endOf(d); i < e; i++) if (inInterval(vals[i], q)) return true;
        return false;
      };
    }
    if ((q.kind === 'keyword' || q.kind === 'keywords') && this.store.keyword.has(q.field) && !this.store.text.has(q.field)) {
      const kw = this.store.keyword.get(q.field)!;
      const values = q.kind === 'keyword' ? [q.value] : q.values;
      const ords = new Set<number>();
      for (const v of values) { const o = kw.ordOf.get(v); if (o !== undefined) ords.add(o); }
      const dv = kw.docOrds;
      return (d) => {
        const vals = dv.values.data;
        for (let i = dv.startOf(d), e = dv.endOf(d); i < e; i++) if (ords.has(vals[i])) return true;
        return false;
      };
    }
    if (q.kind === 'bool' && q.must.length === 0 && q.should.length === 0 && q.filter.length > 0) {
      const parts = [...q.filter.map((x) => this.predicate(x)), ...q.mustNot.map((x) => this.predicate(x))];
      if (parts.some((p) => !p)) return undefined;
      const pos = parts.slice(0, q.filter.length) as ((d: number) => boolean)[];
      const neg = parts.slice(q.filter.length) as ((d: number) => boolean)[];
      return (d) => pos.every((p) => p(d)) && !neg.some((p) => p(d));
    }
    return undefined;
  }

  private bool(q: Extract<Query, { kind: 'bool' }>): MatchSet {
    // Constant-score filters and exclusions with a per-doc test are applied to the candidates the
    // other clauses produce, instead of materializing (say) every document in a date range.
    const filterPreds: ((d: number) => boolean)[] = [];
    const notPreds: ((d: number) => boolean)[] = [];
    let filterQs = q.filter;
    let mustNotQs = q.mustNot;
    const predOf = q.filter.map((f) => this.predicate(f));
    const anchored = q.must.length > 0 || predOf.some((p) => !p);
    if (anchored) {
      filterQs = q.filter.filter((_, i) => !predOf[i]);
      for (const p of predOf) if (p) filterPreds.push(p);
      mustNotQs = [];
      for (const x of q.mustNot) {
        const p = this.predicate(x);
        if (p) notPreds.push(p);
        else mustNotQs.push(x);
      }
    }
    const must = q.must.map((x) => this.exec(x));
    const filter = filterQs.map((x) => this.exec(x));
    const should = q.should.map((x) => this.exec(x));
    const mustNot = mustNotQs.map((x) => this.exec(x));
    const hasRequired = must.length + filter.length > 0;
    if (!hasRequired && should.length === 0) {
      // Empty bool is match_all; a purely negative bool matches the rest with score 0.
      const base = constantSet(this.liveDocs(), mustNot.length === 0 ? q.boost : 0);
      return mustNot.reduce((acc, m) => subtract(acc, m), base);
    }
    const msm = q.minShouldMatch !== undefined
      ? resolveMinimumShouldMatch(q.minShouldMatch, should.length)
      : hasRequired ? 0 : 1;
    let result: MatchSet;
    if (hasRequired) {
      const req = [...must.map((m) => ({ m, scoring: true })), ...filter.map((m) => ({ m, scoring: false }))]
        .sort((a, b) => a.m.docs.length - b.m.docs.length);
      // Start from the smallest set; a filter's scores do not count.
      let acc: MatchSet = req[0].scoring ? req[0].m : constantSet(req[0].m.docs, 0);
      for (let i = 1; i < req.length && acc.docs.length > 0; i++) acc = intersect(acc, req[i].m, req[i].scoring);
      if (filterPreds.length + notPreds.length > 0) acc = this.applyPredicates(acc, filterPreds, notPreds);
      if (should.length > 0 && acc.docs.length > 0) {
        for (const m of should) for (let i = 0; i < m.docs.length; i++) this.scratch.add(m.docs[i], m.scores[i]);
        const docs = new Uint32Array(acc.docs.length);
        const scores = new Float64Array(acc.docs.length);
        let k = 0;
        for (let i = 0; i < acc.docs.length; i++) {
          const d = acc.docs[i];
          if (this.scratch.count[d] < msm) continue;
          docs[k] = d;
          scores[k++] = acc.scores[i] + this.scratch.sum[d];
        }
        this.scratch.collect(Infinity, () => 0);
        acc = { docs: docs.subarray(0, k), scores: scores.subarray(0, k) };
      } else if (msm > 0) acc = EMPTY;
      result = acc;
    } else {
      for (const m of should) for (let i = 0; i < m.docs.length; i++) this.scratch.add(m.docs[i], m.scores[i]);
      result = this.scratch.collect(Math.max(1, msm), (sum) => sum);
    }
    for (const m of mustNot) result = subtract(result, m);
    return scaled(result, q.boost);
  }

  private applyPredicates(m: MatchSet, keep: ((d: number) => boolean)[], drop: ((d: number) => boolean)[]): MatchSet {
    const docs = new Uint32Array(m.docs.length);
    const scores = new Float64Array(m.docs.length);
    let k = 0;
    outer: for (let i = 0; i < m.docs.length; i++) {
      const d = m.docs[i];
      for (const p of keep) if (!p(d)) continue outer;
      for (const p of drop) if (p(d)) continue outer;
      docs[k] = d;
      scores[k++] = m.scores[i];
    }
    return { docs: docs.subarray(0, k), scores: scores.subarray(0, k) };
  }
}

/** Marks for unions of many doc lists (a byte per doc beats sorting when the lists are long). */
let unionMarks = new Uint8Array(0);

function unionDocs(lists: Uint32Array[]): Uint32Array {
  if (lists.length === 0) return new Uint32Array(0);
  if (lists.length === 1) return lists[0];
  let total = 0;
  let maxDoc = 0;
  for (const l of lists) {
    total += l.length;
    if (l.length > 0 && l[l.length - 1] + 1 > maxDoc) maxDoc = l[l.length - 1] + 1;
  }
  if (total > 4096 && total * 8 > maxDoc) {
    if (unionMarks.length < maxDoc) unionMarks = new Uint8Array(Math.ceil(maxDoc * 1.5));
    const marks = unionMarks;
    let count = 0;
    for (const l of lists) for (let i = 0; i < l.length; i++) if (marks[l[i]] === 0) { marks[l[i]] = 1; count++; }
    const out = new Uint32Array(count);
    let k = 0;
    for (let d = 0; d < maxDoc && k < count; d++) if (marks[d] !== 0) { marks[d] = 0; out[k++] = d; }
    return out;
  }
  const all = new Uint32Array(total);
  let o = 0;
  for (const l of lists) { all.set(l, o); o += l.length; }
  all.sort();
  let k = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[k++] = all[i];
  return all.subarray(0, k);
}

function contains(sorted: Uint32Array, v: number): boolean {
  let lo = 0, hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] === v) return true;
    if (sorted[mid] < v) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** Occurrences of the exact phrase: term i at position p + i for every i. */
export function exactPhraseFreq(positions: Uint32Array[]): number {
  let freq = 0;
  const first = positions[0];
  for (let j = 0; j < first.length; j++) {
    const p = first[j];
    let ok = true;
    for (let i = 1; i < positions.length && ok; i++) ok = contains(positions[i], p + i);
    if (ok) freq++;
  }
  return freq;
}

/**
 * Lucene's sloppy phrase frequency (SloppyPhraseScorer.phraseFreq): term positions shifted by their
 * offset in the phrase; the lowest is advanced while that shrinks the window, and each minimal window
 * whose spread (end − start) is within slop adds 1 / (1 + spread). Phrases repeating a term do not get
 * Lucene's extra repeat handling.
 */
export function sloppyPhraseFreq(positions: Uint32Array[], slop: number): number {
  const n = positions.length;
  const idx = new Array<number>(n).fill(0);
  const pos = (t: number): number => positions[t][idx[t]] - t;
  const inQueue = new Array<boolean>(n).fill(true);
  // queue order: position, then phrase offset (PhraseQueue.lessThan)
  const popMin = (): number => {
    let best = -1;
    for (let t = 0; t < n; t++) if (inQueue[t] && (best < 0 || pos(t) < pos(best))) best = t;
    inQueue[best] = false;
    return best;
  };
  const topPos = (): number => {
    let best = Infinity;
    for (let t = 0; t < n; t++) if (inQueue[t] && pos(t) < best) best = pos(t);
    return best;
  };
  let end = -Infinity;
  for (let t = 0; t < n; t++) if (pos(t) > end) end = pos(t);
  let freq = 0;
  let pp = popMin();
  let matchLength = end - pos(pp);
  let next = topPos();
  while (idx[pp] + 1 < positions[pp].length) {
    idx[pp]++;
    const p = pos(pp);
    if (p > end) end = p;
    if (p > next) {
      if (matchLength <= slop) freq += 1 / (1 + matchLength);
      inQueue[pp] = true;
      pp = popMin();
      next = topPos();
      matchLength = end - pos(pp);
    } else {
      const ml2 = end - p;
      if (ml2 < matchLength) matchLength = ml2;
    }
  }
  if (matchLength <= slop) freq += 1 / (1 + matchLength);
  return freq;
}
