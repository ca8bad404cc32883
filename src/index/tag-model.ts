import { languageHintOf, type AnalysedText } from '../text/term-counts-task';

/**
 * A complement Naive Bayes tag classifier over one key's taggings (Rennie et al. 2003), kept current
 * document by document.
 *
 * Features are the embedding's corpus terms (stemmed words and e-mail addresses), weighted ln(1 + tf),
 * L2-normalised per document. Each tag keeps the sum of its documents' feature vectors (N_ci); a tag c
 * scores a text q by how badly the *other* tags explain it:
 *
 *   score_c = −Σ_i q_i · ln((N~c_i + α) / (N~c + α·V)),   N~c_i = T_i − N_ci,  N~c = T − N_c
 *
 * where T_i is the term's total over all tags, V the vocabulary size. Terms the tag never saw contribute the
 * same to every tag, so only the query's terms the tag did see are visited (plus one ln per tag).
 * Measured on 20 Newsgroups (bench/results/tags.md): 0.83 top-1 against 0.78 for neighbour votes in process; idf
 * weighting did not help (so no corpus-wide statistic has to be refreshed when documents come and go).
 *
 * Memory: per tagged document its feature vector (8 bytes a distinct term); per term a map from tag to
 * N_ci (one entry per tag that saw the term) and, once queried, its cached weights; per tag two numbers.
 * State is the sum of documents added minus documents removed, so it never needs a rebuild.
 *
 * The model does arithmetic only: texts reach it analysed (in pool threads, src/index/tag-learner.ts).
 */

export interface TagModelOptions {
  /** Additive smoothing. Measured 0.01 / 0.1 / 0.3 / 1: 0.823 / 0.830 / 0.828 / 0.812 on 20NG. */
  alpha: number;
  /** Softmax temperature turning scores (of an L2-normalised query) into probabilities. */
  temperature: number;
}

export const DEFAULT_TAG_MODEL_OPTIONS: TagModelOptions = { alpha: 0.1, temperature: 0.1 };

interface DocumentEntry {
  /** vocabulary ids, ascending */
  readonly ids: Uint32Array;
  readonly weights: Float32Array;
  readonly tags: readonly number[];
}

interface TagEntry {
  readonly name: string;
  documents: number;
  /** N_c: the sum of every weight of its documents */
  total: number;
}

/** Tags less likely than this are left out of a query's scores (they could not reach a visible score). */
const MIN_PROBABILITY = 1e-6;

/** Sums below this are float residue of adds and removes that cancelled out. */
const EPSILON = 1e-9;

/** Term weights ln(1 + tf), L2-normalised, in the text's own term order. */
function featureWeights(counts: ArrayLike<number>): Float64Array {
  const out = new Float64Array(counts.length);
  let norm = 0;
  for (let i = 0; i < counts.length; i++) {
    const w = Math.log1p(counts[i]!);
    out[i] = w;
    norm += w * w;
  }
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i] = out[i]! / norm;
  return out;
}

/** raw[tag] −= w · weight for each of a term's tags: the hot loop, kept monomorphic. */
function accumulate(raw: Float64Array, tags: Uint32Array, weights: Float32Array, w: number): void {
  for (let k = 0; k < tags.length; k++) raw[tags[k]!] -= w * weights[k]!;
}

export interface TagScore {
  tag: string;
  /** probability under the model, in [0,1]; the scores of one query sum to 1 (tags below 1e-6 left out) */
  probability: number;
}

export class TagModel {
  private readonly vocabulary = new Map<string, number>();
  /** term id → term, to drop a term from the vocabulary */
  private readonly termNames: Array<string | undefined> = [];
  private readonly freeTermIds: number[] = [];
  /** per term id: tag index → N_ci */
  private readonly postings: Array<Map<number, number> | undefined> = [];
  /**
   * per term id: its postings as arrays with each tag's score term ln(T_i − N_ci + α) − ln(T_i + α), built
   * when a query first needs them and dropped when the term's counts change. Scoring is then a sparse dot
   * product with no ln in the inner loop (for 1,020 tags: 12 ms a query with the ln, ~1 ms without).
   */
  private readonly weightCache: Array<{ tags: Uint32Array; weights: Float32Array } | undefined> = [];
  /** per term id: T_i */
  private termTotals = new Float64Array(1024);
  /** per term id: tagged documents holding the term (the term leaves the vocabulary at 0) */
  private termDocuments = new Uint32Array(1024);
  /** T */
  private grandTotal = 0;
  private readonly tags: Array<TagEntry | undefined> = [];
  private readonly tagIndex = new Map<string, number>();
  private readonly freeTagIndexes: number[] = [];
  private readonly documents = new Map<string, DocumentEntry>();
  /** distinct (term, tag) pairs held: the size of `postings` */
  private postingCount = 0;
  private featureCount = 0;
  /** Languages of the documents learnt (a hint for queries too short to tell their own). */
  private readonly languages = new Map<string, number>();

  constructor(private readonly options: TagModelOptions = DEFAULT_TAG_MODEL_OPTIONS) {}

  /** Tagged documents the model learnt from. */
  get documentCount(): number {
    return this.documents.size;
  }

  get tagCount(): number {
    return this.tagIndex.size;
  }

  get vocabularySize(): number {
    return this.vocabulary.size;
  }

  /**
   * Makes the model hold the document as it is now: its text (analysed) under its tags; no tags takes it out.
   * The text must have been analysed with the hint the model gives once the document's previous entry is out
   * (`languageHint`, the learnt documents' main language): otherwise false, the model unchanged, and the text is
   * to be analysed again (the hint decides the language of texts too short to tell their own).
   */
  learn(id: string, text: AnalysedText, tags: readonly string[]): boolean {
    if (text.hint !== this.hintWithout(id)) return false;
    this.removeDocument(id);
    if (tags.length === 0) return true;
    this.languages.set(text.language, (this.languages.get(text.language) ?? 0) + 1);
    const entry = this.featuresOf(text, tags);
    if (entry) this.add(id, entry);
    return true;
  }

  removeDocument(id: string): void {
    const previous = this.documents.get(id);
    if (previous) this.subtract(id, previous);
  }

  clear(): void {
    this.vocabulary.clear();
    this.termNames.length = 0;
    this.freeTermIds.length = 0;
    this.postings.length = 0;
    this.weightCache.length = 0;
    this.termTotals = new Float64Array(1024);
    this.termDocuments = new Uint32Array(1024);
    this.grandTotal = 0;
    this.tags.length = 0;
    this.tagIndex.clear();
    this.freeTagIndexes.length = 0;
    this.documents.clear();
    this.postingCount = 0;
    this.featureCount = 0;
    this.languages.clear();
  }

  /** The document's vector and tag indexes; undefined for a text without terms (nothing to learn). */
  private featuresOf(text: AnalysedText, tags: readonly string[]): DocumentEntry | undefined {
    const weights = featureWeights(text.counts);
    if (weights.length === 0) return undefined;
    const pairs: Array<[number, number]> = [];
    text.terms.forEach((term, i) => pairs.push([this.termId(term), weights[i]!]));
    pairs.sort((a, b) => a[0] - b[0]);
    return {
      ids: Uint32Array.from(pairs, (p) => p[0]),
      weights: Float32Array.from(pairs, (p) => p[1]),
      tags: [...new Set(tags)].map((t) => this.tagId(t)),
    };
  }

  /** Whether taking the document's entry out empties the model (and forgets its languages). */
  private isOnly(id: string): boolean {
    return this.documents.size === 1 && this.documents.has(id);
  }

  /** The hint once the document's entry is out. */
  private hintWithout(id: string): string | undefined {
    return this.isOnly(id) ? undefined : this.languageHint;
  }

  /**
   * The languages of the documents learnt so far and how many of each, in the order first seen, once the document's
   * entry is out: what the analysis of its text starts from.
   */
  languageCounts(id?: string): Array<[string, number]> {
    return id !== undefined && this.isOnly(id) ? [] : [...this.languages];
  }

  private termId(term: string): number {
    let id = this.vocabulary.get(term);
    if (id !== undefined) return id;
    id = this.freeTermIds.pop() ?? this.vocabulary.size;
    this.vocabulary.set(term, id);
    this.termNames[id] = term;
    if (id >= this.termTotals.length) {
      const totals = new Float64Array(this.termTotals.length * 2);
      totals.set(this.termTotals);
      this.termTotals = totals;
      const docs = new Uint32Array(this.termDocuments.length * 2);
      docs.set(this.termDocuments);
      this.termDocuments = docs;
    }
    return id;
  }

  private tagId(name: string): number {
    let index = this.tagIndex.get(name);
    if (index !== undefined) return index;
    index = this.freeTagIndexes.pop() ?? this.tags.length;
    this.tags[index] = { name, documents: 0, total: 0 };
    this.tagIndex.set(name, index);
    return index;
  }

  private add(id: string, entry: DocumentEntry): void {
    this.documents.set(id, entry);
    this.featureCount += entry.ids.length;
    let sum = 0;
    for (let k = 0; k < entry.ids.length; k++) {
      const term = entry.ids[k]!;
      const w = entry.weights[k]!;
      sum += w;
      this.termDocuments[term]!++;
      this.termTotals[term] += w * entry.tags.length;
      this.weightCache[term] = undefined;
      let posting = this.postings[term];
      if (!posting) this.postings[term] = posting = new Map();
      for (const tag of entry.tags) {
        const before = posting.get(tag);
        if (before === undefined) this.postingCount++;
        posting.set(tag, (before ?? 0) + w);
      }
    }
    for (const tag of entry.tags) {
      const t = this.tags[tag]!;
      t.documents++;
      t.total += sum;
    }
    this.grandTotal += sum * entry.tags.length;
  }

  private subtract(id: string, entry: DocumentEntry): void {
    this.documents.delete(id);
    this.featureCount -= entry.ids.length;
    let sum = 0;
    for (let k = 0; k < entry.ids.length; k++) {
      const term = entry.ids[k]!;
      const w = entry.weights[k]!;
      sum += w;
      const posting = this.postings[term]!;
      this.weightCache[term] = undefined;
      for (const tag of entry.tags) {
        const after = posting.get(tag)! - w;
        if (after > EPSILON) posting.set(tag, after);
        else if (posting.delete(tag)) this.postingCount--;
      }
      if (--this.termDocuments[term]! === 0) {
        // Every document holding it is gone: drop the term so the vocabulary follows the key's documents.
        this.postingCount -= posting.size;
        this.postings[term] = undefined;
        this.termTotals[term] = 0;
        this.vocabulary.delete(this.termNames[term]!);
        this.termNames[term] = undefined;
        this.freeTermIds.push(term);
      } else {
        this.termTotals[term] -= w * entry.tags.length;
      }
    }
    for (const tag of entry.tags) {
      const t = this.tags[tag]!;
      t.total -= sum;
      if (--t.documents === 0) {
        this.tags[tag] = undefined;
        this.tagIndex.delete(t.name);
        this.freeTagIndexes.push(tag);
      }
    }
    this.grandTotal -= sum * entry.tags.length;
    if (this.documents.size === 0) this.clear();
  }

  /** The language a text too short to tell its own is analysed in for `scoreTerms` (the documents' main one). */
  get languageHint(): string | undefined {
    return languageHintOf(this.languages);
  }

  /**
   * The tags' probabilities for a text analysed (in a pool thread, with `languageHint`): its terms and their counts;
   * most likely first (ties by name): the `limit` most likely (ties at the cut included), none below 1e-6, plus every
   * tag of `include` the model knows. Cost: one pass over the text's terms, then over the tags that saw each of them
   * (a multiply-add each), then one ln per tag.
   */
  scoreTerms(analysed: { terms: readonly string[]; counts: ArrayLike<number> }, limit = Infinity, include?: ReadonlySet<string>): TagScore[] {
    const live = this.tagIndex.size;
    if (live === 0) return [];
    const { alpha, temperature } = this.options;
    // Term id → count: one vocabulary lookup per term, small-integer keys after that.
    const counts = new Map<number, number>();
    analysed.terms.forEach((term, i) => {
      const id = this.vocabulary.get(term);
      if (id !== undefined) counts.set(id, analysed.counts[i]!);
    });
    if (counts.size === 0) return [];
    let norm = 0;
    for (const count of counts.values()) norm += Math.log1p(count) ** 2;
    norm = Math.sqrt(norm);
    const raw = new Float64Array(this.tags.length);
    let queryMass = 0;
    for (const [term, count] of counts) {
      const w = Math.log1p(count) / norm;
      queryMass += w;
      const cached = this.weightCache[term] ?? this.cacheWeights(term);
      accumulate(raw, cached.tags, cached.weights, w);
    }
    const vocabularyMass = alpha * this.vocabulary.size;
    // The per-tag term, then a softmax; in place over `raw`, objects only for the tags that survive.
    let best = -Infinity;
    for (let i = 0; i < raw.length; i++) {
      const t = this.tags[i];
      if (!t) continue;
      const s = (raw[i]! + queryMass * Math.log(Math.max(0, this.grandTotal - t.total) + vocabularyMass)) / temperature;
      raw[i] = s;
      if (s > best) best = s;
    }
    let sum = 0;
    for (let i = 0; i < raw.length; i++) {
      if (!this.tags[i]) continue;
      raw[i] = Math.exp(raw[i]! - best);
      sum += raw[i]!;
    }
    // The cut-off probability of the `limit` most likely (a numeric typed-array sort, no objects).
    let cutoff = MIN_PROBABILITY;
    if (limit < live) {
      const probabilities = new Float64Array(live);
      let n = 0;
      for (let i = 0; i < raw.length; i++) if (this.tags[i]) probabilities[n++] = raw[i]! / sum;
      probabilities.sort();
      cutoff = Math.max(cutoff, probabilities[live - Math.max(1, limit)]!);
    }
    const out: TagScore[] = [];
    for (let i = 0; i < raw.length; i++) {
      const t = this.tags[i];
      if (!t) continue;
      const probability = raw[i]! / sum;
      if (probability >= cutoff || include?.has(t.name)) out.push({ tag: t.name, probability });
    }
    return out.sort((x, y) => y.probability - x.probability || (x.tag < y.tag ? -1 : 1));
  }

  private cacheWeights(term: number): { tags: Uint32Array; weights: Float32Array } {
    const { alpha } = this.options;
    const posting = this.postings[term]!;
    const total = this.termTotals[term]!;
    const unseen = Math.log(total + alpha);
    const tags = new Uint32Array(posting.size);
    const weights = new Float32Array(posting.size);
    let k = 0;
    for (const [tag, n] of posting) {
      tags[k] = tag;
      weights[k++] = Math.log(Math.max(0, total - n) + alpha) - unseen;
    }
    const cached = { tags, weights };
    this.weightCache[term] = cached;
    return cached;
  }

  /** Approximate heap held, from the counts of what is stored (bytes). */
  memoryEstimate(): { documents: number; features: number; postings: number; vocabulary: number; bytes: number } {
    let cached = 0;
    for (const c of this.weightCache) if (c) cached += c.tags.length;
    const bytes = this.featureCount * 8 + this.documents.size * 160
      + this.postingCount * 40 + cached * 8 + this.vocabulary.size * (60 + 80) + this.tags.length * 80 + this.termTotals.length * 12;
    return { documents: this.documents.size, features: this.featureCount, postings: this.postingCount, vocabulary: this.vocabulary.size, bytes };
  }
}
