import { hashOf, stringOfUnits, unitsEqual } from '../text/utf16';

/** What embedding needs of a vocabulary: a term's id. A `Map` is one; a `Vocabulary` another. */
export interface TermLookup {
  get(term: string): number | undefined;
  readonly size: number;
}

/** The arrays a `Vocabulary` is made of: posted to another thread, shared memory is shared, not copied. */
export interface VocabularyArrays {
  /** Every term's UTF-16 code units, term after term. */
  readonly chars: Uint16Array;
  /** Term i is chars[starts[i], starts[i + 1]). */
  readonly starts: Uint32Array;
  /** Open addressing by hash (a power of two, at least twice the terms): id + 1, 0 when empty. */
  readonly slots: Uint32Array;
}

/**
 * Term → id in a few flat arrays instead of a Map of strings: a model's or the word vectors' vocabulary is
 * built once, on shared memory, and every thread reads the same bytes. A decoded Map cost each pool thread
 * ~7 MB per 60k-term model it had embedded with, and ~30 MB for the word vectors' 341k words (heap snapshots
 * of a pool thread after an 82k-document import).
 */
export class Vocabulary implements TermLookup {
  readonly size: number;
  private readonly mask: number;

  constructor(readonly arrays: VocabularyArrays) {
    this.size = arrays.starts.length - 1;
    this.mask = arrays.slots.length - 1;
    if (this.size < 0 || arrays.slots.length === 0 || (arrays.slots.length & this.mask) !== 0) throw new Error('corrupt vocabulary');
  }

  /** Later duplicates win, as in a Map built in order. `shared`: on SharedArrayBuffers (to hand to other threads). */
  static build(terms: readonly string[], shared = true): Vocabulary {
    const buffer = (bytes: number): ArrayBufferLike => (shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
    let length = 0;
    for (const t of terms) length += t.length;
    const chars = new Uint16Array(buffer(length * 2));
    const starts = new Uint32Array(buffer((terms.length + 1) * 4));
    let slotCount = 2;
    while (slotCount < terms.length * 2) slotCount *= 2;
    const slots = new Uint32Array(buffer(slotCount * 4));
    let at = 0;
    terms.forEach((t, i) => {
      starts[i] = at;
      for (let c = 0; c < t.length; c++) chars[at++] = t.charCodeAt(c);
    });
    starts[terms.length] = at;
    const vocabulary = new Vocabulary({ chars, starts, slots });
    terms.forEach((t, i) => vocabulary.insert(t, i));
    return vocabulary;
  }

  get(term: string): number | undefined {
    const { slots } = this.arrays;
    // Bounded: a table read from a damaged file may have no empty slot, and a lookup must not spin.
    for (let n = 0, i = hashOf(term) & this.mask; n < slots.length; n++, i = (i + 1) & this.mask) {
      const slot = slots[i]!;
      if (slot === 0) return undefined;
      if (slot <= this.size && this.termIs(slot - 1, term)) return slot - 1;
    }
    return undefined;
  }

  term(id: number): string {
    const { chars, starts } = this.arrays;
    return stringOfUnits(chars.subarray(starts[id], starts[id + 1]));
  }

  private insert(term: string, id: number): void {
    const { slots } = this.arrays;
    let i = hashOf(term) & this.mask;
    while (slots[i] !== 0 && !this.termIs(slots[i]! - 1, term)) i = (i + 1) & this.mask;
    slots[i] = id + 1;
  }

  private termIs(id: number, term: string): boolean {
    const { chars, starts } = this.arrays;
    return unitsEqual(chars, starts[id]!, starts[id + 1]!, term);
  }
}
