import { DATE_FIELDS, DateField, flattenMeta, KeywordDocument, KEYWORD_IGNORE_ABOVE } from './document';
import { KeywordField, NumericField, TextField, type KeywordFieldState, type TextFieldState } from './fields';
import { GrowableF64, type DocValueListsState } from './growable';
import { parseDate } from './datemath';

/** Compact when this share of the doc numbers belongs to deleted documents (and at least MIN_DEAD). */
const COMPACT_RATIO = 0.25;
const MIN_DEAD = 1024;

/** A key's keyword index as plain data (typed arrays, strings, the documents), for v8.serialize. */
export interface IndexStoreState {
  text: Array<[string, TextFieldState]>;
  keyword: Array<[string, KeywordFieldState]>;
  numeric: Array<[string, DocValueListsState]>;
  dates: Array<[DateField, Float64Array]>;
  /** Source of each doc number, null once deleted. */
  sources: (KeywordDocument | null)[];
}

/**
 * The data of one key's keyword index: documents get increasing internal numbers; an update is a
 * delete plus an add; deleted numbers are skipped until a compaction renumbers everything.
 */
export class IndexStore {
  text = new Map<string, TextField>();
  keyword = new Map<string, KeywordField>();
  numeric = new Map<string, NumericField>();
  dates = new Map<DateField, GrowableF64>();
  /** Source of each live doc number (undefined once deleted). */
  sources: (KeywordDocument | undefined)[] = [];
  /** 1 per live doc number: a compact copy of `sources[d] !== undefined` for the hot loops. */
  live = new Uint8Array(1024);
  docOf = new Map<string, number>();
  liveCount = 0;

  constructor() {
    this.reset();
  }

  get maxDoc(): number {
    return this.sources.length;
  }

  isLive(doc: number): boolean {
    return this.sources[doc] !== undefined;
  }

  reset(): void {
    this.text = new Map();
    this.keyword = new Map();
    this.numeric = new Map();
    this.dates = new Map(DATE_FIELDS.map((f) => [f, new GrowableF64(16)]));
    this.sources = [];
    this.live = new Uint8Array(1024);
    this.docOf = new Map();
    this.liveCount = 0;
    this.textField('text');
    this.keywordField('id');
    this.keywordField('tags');
  }

  textField(name: string): TextField {
    let f = this.text.get(name);
    if (!f) {
      f = new TextField(name);
      this.text.set(name, f);
    }
    return f;
  }

  keywordField(name: string): KeywordField {
    let f = this.keyword.get(name);
    if (!f) {
      f = new KeywordField(name);
      this.keyword.set(name, f);
    }
    return f;
  }

  numericField(name: string): NumericField {
    let f = this.numeric.get(name);
    if (!f) {
      f = new NumericField(name);
      this.numeric.set(name, f);
    }
    return f;
  }

  upsert(doc: KeywordDocument): void {
    this.removeId(doc.id);
    const n = this.sources.length;
    this.sources.push(doc);
    if (n >= this.live.length) {
      const next = new Uint8Array(this.live.length * 2);
      next.set(this.live);
      this.live = next;
    }
    this.live[n] = 1;
    this.docOf.set(doc.id, n);
    this.liveCount++;
    this.textField('text').add(n, typeof doc.text === 'string' ? [doc.text] : []);
    this.keywordField('id').add(n, [doc.id]);
    this.keywordField('tags').add(n, Array.isArray(doc.tags) ? doc.tags.filter((t) => typeof t === 'string') : []);
    for (const f of DATE_FIELDS) {
      const v = doc[f];
      const t = typeof v === 'string' ? parseDate(v) : undefined;
      this.dates.get(f)?.set(n, t ?? NaN);
    }
    const flat = flattenMeta(doc.meta);
    for (const [path, values] of flat.strings) {
      this.textField(path).add(n, values);
      this.keywordField(`${path}.keyword`).add(n, values.filter((v) => v.length <= KEYWORD_IGNORE_ABOVE));
    }
    for (const [path, values] of flat.numbers) this.numericField(path).docValues.append(n, values);
    for (const [path, values] of flat.booleans) this.keywordField(path).add(n, values.map(String));
  }

  /** Removes a document; false if it was not indexed. */
  removeId(id: string): boolean {
    const n = this.docOf.get(id);
    if (n === undefined) return false;
    const doc = this.sources[n];
    this.docOf.delete(id);
    if (!doc) return false;
    this.sources[n] = undefined;
    this.live[n] = 0;
    this.liveCount--;
    this.text.get('text')?.remove(n, typeof doc.text === 'string' ? [doc.text] : []);
    this.keyword.get('id')?.remove(n);
    this.keyword.get('tags')?.remove(n);
    const flat = flattenMeta(doc.meta);
    for (const [path, values] of flat.strings) {
      this.text.get(path)?.remove(n, values);
      this.keyword.get(`${path}.keyword`)?.remove(n);
    }
    for (const path of flat.booleans.keys()) this.keyword.get(path)?.remove(n);
    return true;
  }

  toState(): IndexStoreState {
    return {
      text: [...this.text].map(([name, f]) => [name, f.toState()]),
      keyword: [...this.keyword].map(([name, f]) => [name, f.toState()]),
      numeric: [...this.numeric].map(([name, f]) => [name, f.toState()]),
      dates: [...this.dates].map(([name, c]) => [name, c.values()]),
      sources: this.sources.map((d) => d ?? null),
    };
  }

  /** Replaces the whole content with a state from `toState`. */
  load(state: IndexStoreState): void {
    this.text = new Map(state.text.map(([name, s]) => [name, new TextField(name, s)]));
    this.keyword = new Map(state.keyword.map(([name, s]) => [name, new KeywordField(name, s)]));
    this.numeric = new Map(state.numeric.map(([name, s]) => [name, new NumericField(name, s)]));
    this.dates = new Map(state.dates.map(([name, values]) => [name, new GrowableF64(0).adopt(values)]));
    this.sources = state.sources.map((d) => d ?? undefined);
    this.live = new Uint8Array(Math.max(1024, this.sources.length));
    this.docOf = new Map();
    this.liveCount = 0;
    this.sources.forEach((d, n) => {
      if (!d) return;
      this.live[n] = 1;
      this.docOf.set(d.id, n);
      this.liveCount++;
    });
  }

  /** Releases growth slack of every array (after a bulk load). */
  trim(): void {
    for (const f of this.text.values()) f.trim();
    for (const f of this.keyword.values()) f.trim();
    for (const f of this.numeric.values()) f.trim();
    for (const c of this.dates.values()) c.trim();
  }

  /** Whether enough doc numbers are dead that renumbering pays. */
  needsCompaction(): boolean {
    const dead = this.sources.length - this.liveCount;
    return dead >= MIN_DEAD && dead >= COMPACT_RATIO * this.sources.length;
  }

  compact(): void {
    const live = this.sources.filter((d): d is KeywordDocument => d !== undefined);
    this.reset();
    for (const d of live) this.upsert(d);
    this.trim();
  }
}
