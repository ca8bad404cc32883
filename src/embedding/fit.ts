import {
  DEFAULT_CANDIDATES, DEFAULT_SECOND_STAGE, lsaDimensions, MIN_DOCS_FOR_CORPUS_MODEL, RERANK_MIN_DOCS, shapeBySize,
  type EmbeddingModel, type LsaModel, type ModelShape, type WordVectorModel,
} from './model';
import { contentId } from './serialize';
import { tfidfVector, type TermStatistics } from './sparse';
import { randomizedSvd, type CsrMatrix } from './svd';
import { analyze, mainLanguage, UNDETERMINED } from '../text';
import { Vocabulary } from './vocabulary';
import { WORD_VECTOR_DIM } from './word-vectors';

export interface FitOptions {
  /** output dimension of the corpus model (index dimension); default 256 */
  dim?: number;
  /** below this many texts an English corpus gets the corpus-independent word-vector model; default 300 */
  minDocsForCorpusModel?: number;
  /** a term must occur in at least this many documents; default 2 */
  minDf?: number;
  /** vocabulary cap (most frequent by document frequency); default 60,000 — the projection is terms × dim floats */
  maxTerms?: number;
  /** the SVD is fitted on at most this many documents (an even sample); vocabulary and idf use all; default 30,000 */
  maxSvdDocs?: number;
  /** singular vector j is scaled by σ_j^(exponent-1); 1 = plain projection; default 0.5 */
  singularValueExponent?: number;
  powerIterations?: number;
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
 * Keys ranked by the dense score alone keep 128 dimensions up to this many documents (64 from there), as the
 * best plain LSA of the same split did: 20NG 1k and Debian ru/ru-en 2.7k peak at 128, Debian ja/ja-en 5.2k and
 * de-en 11k at 64 (docs/decisions/embedding.md, "Shape per key").
 */
export const DENSE_ONLY_WIDE_BELOW = 4000;

function denseOnlyDimensions(documents: number): number {
  return documents < DENSE_ONLY_WIDE_BELOW ? 128 : 64;
}

export const WORD_VECTOR_SIF_A = 1e-3;

export function wordVectorModel(): WordVectorModel {
  return { kind: 'word-vectors', id: contentId('word-vectors', [`a=${WORD_VECTOR_SIF_A}`]), dim: WORD_VECTOR_DIM, sifA: WORD_VECTOR_SIF_A };
}

function vocabulary(docs: readonly string[][], minDf: number, maxTerms: number): TermStatistics & { terms: string[] } {
  const df = new Map<string, number>();
  for (const tokens of docs) for (const t of new Set(tokens)) df.set(t, (df.get(t) ?? 0) + 1);
  const kept = [...df].filter(([, n]) => n >= minDf);
  kept.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const chosen = kept.slice(0, maxTerms);
  const n = docs.length;
  const terms = chosen.map(([t]) => t);
  const idf = Float32Array.from(chosen, ([, d]) => Math.log((1 + n) / (1 + d)) + 1);
  return { terms, vocabulary: new Map(terms.map((t, i) => [t, i] as const)), idf };
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
  const secondStage = fittedDocs >= RERANK_MIN_DOCS && medianTerms >= LONG_TEXT_TERMS;
  const dim = secondStage ? lsaDimensions(fittedDocs) : denseOnlyDimensions(fittedDocs);
  const checkMs = performance.now() - started;
  const fitted = fitProjection(analysed, language, fittedDocs, { ...options, dim });
  return withShape(fitted, {
    chosenBy: 'check', dim: fitted.dim, weighting: 'sublinear-tfidf', secondStage, candidates: DEFAULT_CANDIDATES, weights: DEFAULT_SECOND_STAGE,
    check: {
      method: 'document-length', documents: lengths.length, medianTerms, quartileTerms: [at(0.25), at(0.75)], longTextTerms: LONG_TEXT_TERMS,
      checkMs: Math.round(checkMs * 1000) / 1000, fitMs: Math.round(performance.now() - started),
    },
  });
}

/** The model with its shape, and an id that covers how queries use it (a new shape is a new generation). */
function withShape(model: LsaModel, shape: ModelShape): LsaModel {
  const decision = JSON.stringify({ dim: shape.dim, weighting: shape.weighting, secondStage: shape.secondStage, candidates: shape.candidates, weights: shape.weights });
  const id = contentId('lsa', [model.language, model.vocabulary.arrays.chars, model.vocabulary.arrays.starts, model.idf, model.projection, decision]);
  return { ...model, id, shape };
}

function fitProjection(analysed: ReadonlyArray<{ terms: string[] }>, language: string, fittedDocs: number, options: FitOptions): LsaModel {
  const exponent = options.singularValueExponent ?? 0.5;
  const docs = analysed.map((a) => a.terms);
  const stats = vocabulary(docs, options.minDf ?? 2, options.maxTerms ?? 60_000);
  // A small corpus spans fewer dimensions than asked for: the rest would be noise (or zero).
  const dim = Math.max(1, Math.min(options.dim ?? lsaDimensions(fittedDocs), docs.length, stats.terms.length));
  const sample = evenSample(docs, options.maxSvdDocs ?? 30_000);
  const matrix = tfidfMatrix(stats, sample);
  const svd = randomizedSvd(matrix, dim, { powerIterations: options.powerIterations ?? 1, seed: options.seed ?? 1 });
  const nTerms = stats.terms.length;
  const projection = new Float32Array(nTerms * dim);
  const singularValues = new Float32Array(dim);
  for (let j = 0; j < svd.k; j++) {
    const sigma = svd.singularValues[j]!;
    singularValues[j] = sigma;
    const scale = sigma > 1e-9 ? Math.pow(sigma, exponent - 1) : 0;
    for (let t = 0; t < nTerms; t++) projection[t * dim + j] = svd.rightVectors[t * svd.k + j]! * scale;
  }
  return {
    kind: 'lsa', id: '', dim, vocabulary: Vocabulary.build(stats.terms), idf: stats.idf, projection, singularValues, fittedDocs,
    language: language || UNDETERMINED,
  };
}
