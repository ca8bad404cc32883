import { DATE_FIELDS, DateField, flattenMeta, KeywordDocument, KEYWORD_IGNORE_ABOVE } from './document';
import { KeywordField, NumericField, TextField, type KeywordFieldState, type TextFieldState } from './fields';
import { GrowableF64, type DocValueListsState } from './growable';
import { parseDate } from './datemath';

/** Compact when this share of the doc numbers belongs to deleted documents (and at least MIN_DEAD). */
const COMPACT_RATIO = 0.25;
const MIN_DEAD = 1024;

/** A key's keyword index as plain data (typed arrays and strings), for v8.serialize. */
export interface IndexStoreState {
  text: Array<[string, TextFieldState]>;
  keyword: Array<[string, KeywordFieldState]>;
  numeric: Array<[string, DocValueListsState]>;
  dates: Array<[DateField, Float64Array]>;
  /** Id of each doc number, null once deleted. */
  ids: (string | null)[];
}

/**
 * The data of one key's keyword index: documents get increasing internal numbers; an update is a
 * delete plus an add; deleted numbers are skipped until a compaction renumbers everything. No copy of the
 * documents is kept: hits' stored fields and highlights come from storage (TenantIndexes.search).
 */
export class IndexStore {
  text = new Map<string, TextField>();
  keyword = new Map<string, KeywordField>();
  numeric = new Map<string, NumericField>();
  dates = new Map<DateField, GrowableF64>();
  /** Id of each live doc number (undefined once deleted). */
  ids: (string | undefined)[] = [];
  /** 1 per live doc number: a compact copy of `ids[d] !== undefined` for the hot loops. */
  live = new Uint8Array(1024);
  docOf = new Map<string, number>();
  liveCount = 0;

  constructor() {
    this.reset();
  }

  get maxDoc(): number {
    return this.ids.length;
  }

  isLive(doc: number): boolean {
    return this.ids[doc] !== undefined;
  }

  reset(): void {
    this.text = new Map();
    this.keyword = new Map();
    this.numeric = new Map();
    this.dates = new Map(DATE_FIELDS.map((f) => [f, new GrowableF64(16)]));
    this.ids = [];
    this.live = new Uint8Array(1024);
    this.docOf = new Map();
    this.liveCount = 0;
    this.textField('text');
    this.keywordField('id');
    this.keywordField('tags');
  }

  textField(name: string): TextField {
    return fieldOf(this.text, name, () => new TextField(name));
  }

  keywordField(name: string): KeywordField {
    return fieldOf(this.keyword, name, () => new KeywordField(name));
  }

  numericField(name: string): NumericField {
    return fieldOf(this.numeric, name, () => new NumericField(name));
  }

  upsert(doc: KeywordDocument): void {
    this.removeId(doc.id);
    const n = this.ids.length;
    this.ids.push(doc.id);
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
    this.docOf.delete(id);
    this.ids[n] = undefined;
    this.live[n] = 0;
    this.liveCount--;
    // Each field knows whether the doc had a value in it.
    for (const f of this.text.values()) f.remove(n);
    for (const f of this.keyword.values()) f.remove(n);
    return true;
  }

  /** Whether doc `n` was indexed at this `updated_at` (epoch ms) with these tags (in this order). */
  isVersion(n: number, updatedAt: number, tags: readonly string[]): boolean {
    if (this.dates.get('updated_at')?.get(n) !== updatedAt) return false;
    const field = this.keyword.get('tags');
    if (!field || field.docOrds.count(n) !== tags.length) return false;
    let i = 0;
    let same = true;
    field.docOrds.forEach(n, (ord) => {
      same &&= field.values[ord] === tags[i++];
    });
    return same;
  }

  toState(): IndexStoreState {
    return {
      text: [...this.text].map(([name, f]) => [name, f.toState()]),
      keyword: [...this.keyword].map(([name, f]) => [name, f.toState()]),
      numeric: [...this.numeric].map(([name, f]) => [name, f.toState()]),
      dates: [...this.dates].map(([name, c]) => [name, c.values()]),
      ids: this.ids.map((id) => id ?? null),
    };
  }

  /** Replaces the whole content with a state from `toState`. */
  load(state: IndexStoreState): void {
    this.text = new Map(state.text.map(([name, s]) => [name, new TextField(name, s)]));
    this.keyword = new Map(state.keyword.map(([name, s]) => [name, new KeywordField(name, s)]));
    this.numeric = new Map(state.numeric.map(([name, s]) => [name, new NumericField(name, s)]));
    this.dates = new Map(state.dates.map(([name, values]) => [name, new GrowableF64(0).adopt(values)]));
    this.ids = state.ids.map((id) => id ?? undefined);
    this.live = new Uint8Array(Math.max(1024, this.ids.length));
    this.docOf = new Map();
    this.liveCount = 0;
    this.ids.forEach((id, n) => {
      if (id === undefined) return;
      this.live[n] = 1;
      this.docOf.set(id, n);
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
    const dead = this.ids.length - this.liveCount;
    return dead >= MIN_DEAD && dead >= COMPACT_RATIO * this.ids.length;
  }

  /** Renumbers the live docs 0, 1, … in their order, dropping what deleted docs left in every field. */
  compact(): void {
    const map = new Int32Array(this.ids.length).fill(-1);
    const ids: string[] = [];
    this.ids.forEach((id, n) => {
      if (id === undefined) return;
      map[n] = ids.length;
      ids.push(id);
    });
    for (const f of this.text.values()) f.compact(map);
    for (const f of this.keyword.values()) f.compact(map);
    for (const f of this.numeric.values()) f.compact(map);
    for (const [name, column] of this.dates) {
      const kept = new GrowableF64(16);
      map.forEach((to, n) => {
        if (to >= 0) kept.set(to, column.get(n));
      });
      this.dates.set(name, kept);
    }
    this.ids = ids;
    this.live = new Uint8Array(Math.max(1024, ids.length)).fill(1, 0, ids.length);
    this.docOf = new Map(ids.map((id, n) => [id, n]));
    this.trim();
  }
}

/** The field of `fields` named `name`, made by `make` the first time it is asked for. */
function fieldOf<F>(fields: Map<string, F>, name: string, make: () => F): F {
  let field = fields.get(name);
  if (!field) {
    field = make();
    fields.set(name, field);
  }
  return field;
}
