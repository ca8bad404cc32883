import { hashOf, hashOfUnits, stringOfUnits, unitsEqual } from '../text/utf16';

/**
 * A field's term → id dictionary (ids in the order terms were first added) in flat arrays. A Map held each term
 * as a string, and a term the analyser had cut out of a document is a slice that keeps the whole document's text
 * alive: the keyword worker of an 82k-document key held 14.7 MB of texts through 13k such terms, beside 6 MB of
 * term strings and 8 MB of Map tables (a session probe's heap snapshot; bench:scale's keyword heap per document,
 * 519 → 163 B, is the figure it reproduces).
 */
export class TermTable {
  /** Every term's UTF-16 code units, term after term: term i is chars[starts[i], starts[i + 1]). */
  private chars = new Uint16Array(4096);
  private starts = new Uint32Array(1024);
  /** Open addressing by hash (a power of two, at least twice the terms): id + 1, 0 when empty. */
  private slots = new Uint32Array(2048);
  private count = 0;

  static of(terms: readonly string[]): TermTable {
    const table = new TermTable();
    for (const term of terms) if (table.get(term) === undefined) table.add(term);
    return table;
  }

  get size(): number {
    return this.count;
  }

  get(term: string): number | undefined {
    const mask = this.slots.length - 1;
    for (let i = hashOf(term) & mask; ; i = (i + 1) & mask) {
      const slot = this.slots[i]!;
      if (slot === 0) return undefined;
      if (this.termIs(slot - 1, term)) return slot - 1;
    }
  }

  /** Adds a term the table does not hold; its id. */
  add(term: string): number {
    const id = this.count;
    const from = this.starts[id]!;
    if (id + 2 > this.starts.length) this.starts = grown(this.starts, id + 2);
    if (from + term.length > this.chars.length) this.chars = grown(this.chars, from + term.length);
    for (let c = 0; c < term.length; c++) this.chars[from + c] = term.charCodeAt(c);
    this.starts[id + 1] = from + term.length;
    this.count++;
    if (this.count * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(id, hashOf(term));
    return id;
  }

  term(id: number): string {
    return stringOfUnits(this.chars.subarray(this.starts[id], this.starts[id + 1]));
  }

  /** Every term, by id. */
  *terms(): IterableIterator<string> {
    for (let id = 0; id < this.count; id++) yield this.term(id);
  }

  /** The terms that begin with `prefix` (compared in place: only those are made strings). */
  withPrefix(prefix: string): string[] {
    const found: string[] = [];
    const { chars, starts } = this;
    next: for (let id = 0; id < this.count; id++) {
      const from = starts[id]!;
      if (starts[id + 1]! - from < prefix.length) continue;
      for (let c = 0; c < prefix.length; c++) if (chars[from + c] !== prefix.charCodeAt(c)) continue next;
      found.push(this.term(id));
    }
    return found;
  }

  private termIs(id: number, term: string): boolean {
    return unitsEqual(this.chars, this.starts[id]!, this.starts[id + 1]!, term);
  }

  private place(id: number, hash: number): void {
    const mask = this.slots.length - 1;
    let i = hash & mask;
    while (this.slots[i] !== 0) i = (i + 1) & mask;
    this.slots[i] = id + 1;
  }

  private rehash(size: number): void {
    this.slots = new Uint32Array(size);
    for (let id = 0; id < this.count; id++) this.place(id, hashOfUnits(this.chars, this.starts[id]!, this.starts[id + 1]!));
  }
}

function grown<T extends Uint16Array | Uint32Array>(array: T, atLeast: number): T {
  const next = new (array.constructor as new (length: number) => T)(Math.max(atLeast, Math.ceil(array.length * 1.5)));
  next.set(array);
  return next;
}
