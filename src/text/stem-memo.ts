import { hashOf, hashOfUnits, stringOfUnits, unitsEqual } from './utf16';

const HEADER = 3;
const FIRST_SLOTS = 4096;
const FIRST_CHARS = 65536;

/**
 * A bounded word → stem memo in two flat arrays, cleared when full. A `Map` of 200k words held each word and its
 * stem as strings, and a word cut out of a document as a V8 slice holds the whole text: analysing the 82k texts of
 * bench:scale grew the heap by 20 MB with it, by 2 MB with this (a session probe), in each pool thread. Here an
 * entry is its code units and a header. A stem is mostly the word's own beginning
 * and a short tail ("studies" → "studi", "happy" → "happi"), so only the tail is kept.
 */
export class StemMemo {
  /** Open addressing by the word's hash: the entry's offset in `pool` + 1, 0 when empty. */
  private slots = new Int32Array(FIRST_SLOTS);
  /** Per entry: word length, length of the stem's part shared with the word, tail length, the word, the tail. */
  private pool = new Uint16Array(FIRST_CHARS);
  private end = 0;
  private entries = 0;

  constructor(private readonly maxEntries: number) {}

  get size(): number {
    return this.entries;
  }

  get(word: string): string | undefined {
    const { slots, pool } = this;
    const mask = slots.length - 1;
    for (let i = hashOf(word) & mask; ; i = (i + 1) & mask) {
      const slot = slots[i]!;
      if (slot === 0) return undefined;
      const at = slot - 1;
      if (!this.wordAt(at, word)) continue;
      const shared = pool[at + 1]!;
      const tail = pool[at + 2]!;
      if (tail === 0) return shared === word.length ? word : word.slice(0, shared);
      const from = at + HEADER + word.length;
      return word.slice(0, shared) + stringOfUnits(pool.subarray(from, from + tail));
    }
  }

  /** Remembers `word`'s stem; a full memo starts over (words in use come back at once). */
  set(word: string, stem: string): void {
    let shared = 0;
    const limit = Math.min(word.length, stem.length);
    while (shared < limit && word.charCodeAt(shared) === stem.charCodeAt(shared)) shared++;
    const tail = stem.length - shared;
    const need = HEADER + word.length + tail;
    if (word.length > 0xffff || stem.length > 0xffff) return; // lengths are 16-bit
    if (this.entries >= this.maxEntries) this.clear();
    if (this.end + need > this.pool.length) this.growPool(need);
    if ((this.entries + 1) * 2 > this.slots.length) this.growSlots();
    const at = this.end;
    const { pool } = this;
    pool[at] = word.length;
    pool[at + 1] = shared;
    pool[at + 2] = tail;
    for (let c = 0; c < word.length; c++) pool[at + HEADER + c] = word.charCodeAt(c);
    for (let c = 0; c < tail; c++) pool[at + HEADER + word.length + c] = stem.charCodeAt(shared + c);
    this.end += need;
    this.entries++;
    this.place(at, hashOf(word));
  }

  clear(): void {
    this.slots.fill(0);
    this.end = 0;
    this.entries = 0;
  }

  private place(at: number, hash: number): void {
    const mask = this.slots.length - 1;
    let i = hash & mask;
    while (this.slots[i] !== 0) i = (i + 1) & mask;
    this.slots[i] = at + 1;
  }

  private wordAt(at: number, word: string): boolean {
    return unitsEqual(this.pool, at + HEADER, at + HEADER + this.pool[at]!, word);
  }

  private growPool(need: number): void {
    const grown = new Uint16Array(Math.max(this.end + need, Math.ceil(this.pool.length * 1.5)));
    grown.set(this.pool.subarray(0, this.end));
    this.pool = grown;
  }

  private growSlots(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    const { pool } = this;
    for (let at = 0; at < this.end; at += HEADER + pool[at]! + pool[at + 2]!) {
      this.place(at, hashOfUnits(pool, at + HEADER, at + HEADER + pool[at]!));
    }
  }
}
