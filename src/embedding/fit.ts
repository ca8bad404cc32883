import {
  DEFAULT_CANDIDATES, lsaDimensions, MIN_DOCS_FOR_CORPUS_MODEL, RERANK_MIN_DOCS, SECOND_STAGE_WEIGHTS, shapeBySize,
  type EmbeddingModel, type LsaModel, type ModelShape, type TermWeighting, type WordVectorModel,
} from './model';
import { contentId } from './serialize';
import { MAX_TERM_ID, tfidfVector, type TermStatistics } from './sparse';
import { randomizedSvd, type CsrMatrix } from './svd';
import { analyze, countTerms, mainLanguage, UNDETERMINED } from '../text';
import { Vocabulary } from './vocabulary';
import { WORD_VECTOR_DIM } from './word-vectors';

export interface FitOptions {
  /** output dimension of the corpus model (index dimension); default 256 */
  dim?: number;
  /** below this many texts an English corpus gets the corpus-independent word-vector model; default 300 */
  minDocsForCorpusModel?: number;
  /** a term must occur in at least this many documents; default 2 */
  minDf?: number;
  /**
   * vocabulary cap (most frequent by document frequency); default 60,000 — the projection is terms × dim floats. At
   * most 65,536: a key's term arrays hold 16-bit term ids (MAX_TERM_ID).
   */
  maxTerms?: number;
  /** the SVD is fitted on at most this many documents (an even sample); vocabulary and idf use all; default 30,000 */
  maxSvdDocs?: number;
  /** singular vector j is scaled by σ_j^(exponent-1); 1 = plain projection; default: the shape check's choice, else 0.5 */
  singularValueExponent?: number;
  powerIterations?: number;
  /** extra random directions of the randomized SVD's range finder; default 10 */
  oversample?: number;
  /**
   * global term weight of the LSA projection: idf or log-entropy (1 + Σ_d p ln p / ln N, p = tf / the term's total
   * count); default: the shape check's choice (log-entropy for keys with the second stage), else idf
   */
  weighting?: TermWeighting;
  /** global term weight of the sparse vectors (the second stage's terms); default idf */
  sparseWeighting?: TermWeighting;
  seed?: number;
  /** issue 32: choose the shape by the key's own documents (default: unless `dim` is given) */
  checkShape?: boolean;
}

/**
 * The second stage runs for keys whose median document has at least this many analysed terms (and at least
 * RERANK_MIN_DOCS documents). Measured (docs/decisions/embedding.md, "Shape per key"): Debian descriptions
 * 30–37 terms, second stage 0.04–0.07 below dense only; Reuters articles 51, 20NG posts 86, second stage
 * +0.01 and +0.06 over dense only.
 */
export const LONG_TEXT_TERMS = 42;

/**
 * Keys ranked by the dense score alone (short texts) keep 128 dimensions up to this many documents, 96 from there.
 * Per corpus the best differs: Debian ru/ru-en (2.7k) 128, fr and fr-en 128 (also on a subset of de's size), de, ja
 * and their twins 64; no label-free check measured so far tells them apart (length, vocabulary, duplicates, the
 * spectrum, neighbours' agreement between fits on two halves, held-out energy of the components). 96 is the one
 * width at which every Debian key is above its best plain-LSA baseline in process (fr +0.003 … de-en +0.010),
 * where 64 leaves fr and fr-en below theirs and 128 leaves de at it through HTTP (docs/decisions/embedding.md,
 * "Dense-only keys' dimensions").
 */
export const DENSE_ONLY_WIDE_BELOW = 4000;

function denseOnlyDimensions(documents: number): number {
  return documents < DENSE_ONLY_WIDE_BELOW ? 128 : 96;
}

/**
 * The projection's term weighting for keys with the second stage (whose own terms stay idf-weighted): log-entropy
 * measured above idf on 20NG and Reuters, below it on the short Debian descriptions (docs/decisions/embedding.md,
 * "Term weighting of the projection").
 */
export const LONG_TEXT_WEIGHTING: TermWeighting = 'log-entropy';

/**
 * Singular-value exponent of short texts' projections (median below LONG_TEXT_TERMS; component j scaled by
 * σⱼ^(exponent − 1)): 1, the textbook LSA vector (a text's x·V, its row of UΣ). Measured above the σ^-0.5 of
 * before on every Debian description set, +0.006 to +0.016 at the same dimensions; on long texts with the second
 * stage it was mixed (20NG through HTTP −0.001, Reuters in process +0.003), so they keep 0.5
 * (docs/decisions/embedding.md, "σ-weights of the projection").
 */
export const SHORT_TEXT_SINGULAR_VALUE_EXPONENT = 1;
export const LONG_TEXT_SINGULAR_VALUE_EXPONENT = 0.5;

/**
 * Power iterations of the randomized SVD for keys with the second stage (1 elsewhere): the one-iteration SVD is
 * noisy on long texts' flat spectra; 4 measured above it on 20NG and Reuters, below it on the dense-only Debian
 * descriptions, at about twice the SVD's time (docs/decisions/embedding.md, "SVD power iterations for long texts").
 */
export const LONG_TEXT_POWER_ITERATIONS = 4;

/**
 * Keys with the second stage whose median document has at least this many analysed terms weight the second
 * stage's terms by log-entropy too (idf below it): on 20NG posts (median 88) +0.006 over idf, on Reuters articles
 * (51) −0.005 (docs/decisions/embedding.md, "The second stage's term weights by length").
 */
export const ENTROPY_TERMS_FROM = 70;
export const DEFAULT_POWER_ITERATIONS = 1;

export const WORD_VECTOR_SIF_A = 1e-3;

export function wordVectorModel(): WordVectorModel {
  return { kind: 'word-vectors', id: contentId('word-vectors', [`a=${WORD_VECTOR_SIF_A}`]), dim: WORD_VECTOR_DIM, sifA: WORD_VECTOR_SIF_A };
}

/** A term's document frequency, total count and Σ over documents of count · ln count (for its entropy). */
interface TermTotals {
  df: number;
  count: number;
  countLogCount: number;
}

/** The vocabulary and each term's global weight by both weightings. */
function vocabulary(docs: readonly string[][], minDf: number, maxTerms: number): { terms: string[]; vocabulary: Map<string, number>; weights: Record<TermWeighting, Float32Array> } {
  const totals = new Map<string, TermTotals>();
  for (const tokens of docs) {
    for (const [t, c] of countTerms(tokens)) {
      let s = totals.get(t);
      if (!s) totals.set(t, (s = { df: 0, count: 0, countLogCount: 0 }));
      s.df++;
      s.count += c;
      s.countLogCount += c * Math.log(c);
    }
  }
  const kept = [...totals].filter(([, s]) => s.df >= minDf);
  kept.sort((a, b) => b[1].df - a[1].df || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const chosen = kept.slice(0, maxTerms);
  const n = docs.length;
  const terms = chosen.map(([t]) => t);
  const weights = {
    'sublinear-tfidf': Float32Array.from(chosen, ([, s]) => Math.log((1 + n) / (1 + s.df)) + 1),
    'log-entropy': Float32Array.from(chosen, ([, s]) => entropyWeight(s, n)),
  };
  return { terms, vocabulary: new Map(terms.map((t, i) => [t, i] as const)), weights };
}

/** 1 + Σ_d p_d ln p_d / ln N with p_d = count in d / total count: 1 for a term in one document, 0 for one spread evenly over all. */
function entropyWeight(s: TermTotals, documents: number): number {
  if (documents < 2) return 1;
  const sumPLogP = s.countLogCount / s.count - Math.log(s.count);
  return Math.max(1e-3, 1 + sumPLogP / Math.log(documents));
}

function evenSample<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  const out: T[] = [];
  const step = items.length / max;
  for (let i = 0; i < max; i++) out.push(items[Math.floor(i * step)]!);
  return out;
}

function tfidfMatrix(stats: TermStatistics, docs: readonly string[][]): CsrMatrix {
  const rows = docs.map((d) => tfidfVector(stats, d));
  const rowStart = new Uint32Array(rows.length + 1);
  rows.forEach((r, i) => (rowStart[i + 1] = rowStart[i]! + r.ids.length));
  const colIndex = new Uint32Array(rowStart[rows.length]!);
  const values = new Float32Array(rowStart[rows.length]!);
  rows.forEach((r, i) => {
    colIndex.set(r.ids, rowStart[i]!);
    values.set(r.weights, rowStart[i]!);
  });
  return { rows: rows.length, cols: stats.vocabulary.size, rowStart, colIndex, values };
}

/** Share of a small corpus that must be English for the (English) word vectors to serve it. */
const WORD_VECTOR_ENGLISH_SHARE = 0.9;

/**
 * Fits the model a corpus should use (pure; runs inside the embed-fit worker). Small English corpora get
 * the word vectors; small corpora in other languages (or mixed) get a TF-IDF/LSA model of their own
 * statistics, every term kept, since no word vectors exist for them (docs/decisions/embedding.md).
 */
export function fitModel(texts: readonly string[], options: FitOptions = {}): EmbeddingModel {
  if (texts.length === 0) return wordVectorModel();
  if (texts.length >= (options.minDocsForCorpusModel ?? MIN_DOCS_FOR_CORPUS_MODEL)) return fitLsa(texts, options);
  const analysed = texts.map((t) => analyze(t));
  const { language, share } = mainLanguage(analysed.map((a) => a.language));
  if (language === 'eng' && share >= WORD_VECTOR_ENGLISH_SHARE) return wordVectorModel();
  return lsaOf(analysed, language, texts.length, { ...options, minDf: 1 });
}

export function fitLsa(texts: readonly string[], options: FitOptions = {}): LsaModel {
  const analysed = texts.map((t) => analyze(t));
  return lsaOf(analysed, mainLanguage(analysed.map((a) => a.language)).language, texts.length, options);
}

function lsaOf(analysed: ReadonlyArray<{ terms: string[] }>, language: string, fittedDocs: number, options: FitOptions): LsaModel {
  const started = performance.now();
  if (!(options.checkShape ?? options.dim === undefined)) {
    const fitted = fitProjection(analysed, language, fittedDocs, options);
    return withShape(fitted, shapeBySize('lsa', fitted.dim, fittedDocs));
  }
  const lengths = Float64Array.from(analysed, (a) => a.terms.length).sort();
  const at = (q: number): number => lengths[Math.min(lengths.length - 1, Math.floor(q * lengths.length))] ?? 0;
  const medianTerms = at(0.5);
  const shortTexts = medianTerms < LONG_TEXT_TERMS;
  const secondStage = fittedDocs >= RERANK_MIN_DOCS && !shortTexts;
  const dim = secondStage ? lsaDimensions(fittedDocs) : denseOnlyDimensions(fittedDocs);
  const weighting = options.weighting ?? (secondStage ? LONG_TEXT_WEIGHTING : 'sublinear-tfidf');
  const singularValueExponent = options.singularValueExponent ?? (shortTexts ? SHORT_TEXT_SINGULAR_VALUE_EXPONENT : LONG_TEXT_SINGULAR_VALUE_EXPONENT);
  const powerIterations = options.powerIterations ?? (secondStage ? LONG_TEXT_POWER_ITERATIONS : DEFAULT_POWER_ITERATIONS);
  const sparseWeighting = options.sparseWeighting ?? (secondStage && medianTerms >= ENTROPY_TERMS_FROM ? 'log-entropy' : 'sublinear-tfidf');
  const checkMs = performance.now() - started;
  const fitted = fitProjection(analysed, language, fittedDocs, { ...options, dim, weighting, singularValueExponent, powerIterations, sparseWeighting });
  return withShape(fitted, {
    chosenBy: 'check', dim: fitted.dim, weighting, singularValueExponent, powerIterations, sparseWeighting, secondStage, candidates: DEFAULT_CANDIDATES,
    weights: SECOND_STAGE_WEIGHTS,
    check: {
      method: 'document-length', documents: lengths.length, medianTerms, quartileTerms: [at(0.25), at(0.75)], longTextTerms: LONG_TEXT_TERMS,
      checkMs: Math.round(checkMs * 1000) / 1000, fitMs: Math.round(performance.now() - started),
    },
  });
}

/** The model with its shape, and an id that covers how queries use it (a new shape is a new generation). */
function withShape(model: LsaModel, shape: ModelShape): LsaModel {
  const decision = JSON.stringify({
    dim: shape.dim, weighting: shape.weighting, singularValueExponent: shape.singularValueExponent, powerIterations: shape.powerIterations,
    sparseWeighting: shape.sparseWeighting, secondStage: shape.secondStage,
    candidates: shape.candidates, weights: shape.weights,
  });
  const id = contentId('lsa', [model.language, model.vocabulary.arrays.chars, model.vocabulary.arrays.starts, model.idf, model.projection, decision]);
  return { ...model, id, shape };
}

function fitProjection(analysed: ReadonlyArray<{ terms: string[] }>, language: string, fittedDocs: number, options: FitOptions): LsaModel {
  const exponent = options.singularValueExponent ?? 0.5;
  const docs = analysed.map((a) => a.terms);
  const words = vocabulary(docs, options.minDf ?? 2, Math.min(options.maxTerms ?? 60_000, MAX_TERM_ID + 1));
  const denseWeights = words.weights[options.weighting ?? 'sublinear-tfidf'];
  const sparseWeights = words.weights[options.sparseWeighting ?? 'sublinear-tfidf'];
  const stats = { terms: words.terms, vocabulary: words.vocabulary, idf: denseWeights };
  // A small corpus spans fewer dimensions than asked for: the rest would be noise (or zero).
  const dim = Math.max(1, Math.min(options.dim ?? lsaDimensions(fittedDocs), docs.length, stats.terms.length));
  const sample = evenSample(docs, options.maxSvdDocs ?? 30_000);
  const matrix = tfidfMatrix(stats, sample);
  const svd = randomizedSvd(matrix, dim, { powerIterations: options.powerIterations ?? DEFAULT_POWER_ITERATIONS, oversample: options.oversample ?? 10, seed: options.seed ?? 1 });
  const nTerms = stats.terms.length;
  const projection = new Float32Array(nTerms * dim);
  const singularValues = new Float32Array(dim);
  for (let j = 0; j < svd.k; j++) {
    const sigma = svd.singularValues[j]!;
    singularValues[j] = sigma;
    const scale = sigma > 1e-9 ? Math.pow(sigma, exponent - 1) : 0;
    // Texts are embedded from their sparse vectors: a term's row carries its dense weight over its sparse one (the
    // dense vector is normalised, so projecting sparse-weighted terms through it is the dense weighting's projection).
    for (let t = 0; t < nTerms; t++) projection[t * dim + j] = svd.rightVectors[t * svd.k + j]! * scale * (denseWeights[t]! / sparseWeights[t]!);
  }
  return {
    kind: 'lsa', id: '', dim, vocabulary: Vocabulary.build(stats.terms), idf: sparseWeights, projection, singularValues, fittedDocs,
    language: language || UNDETERMINED,
  };
}
