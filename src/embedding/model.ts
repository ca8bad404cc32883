import type { TermStatistics } from './sparse';
import type { Vocabulary } from './vocabulary';

/** Bumped whenever the serialised layout or the meaning of a model's numbers changes. */
export const MODEL_FORMAT_VERSION = 3;

/** Below this many documents a key uses the corpus-independent word-vector model (see docs/decisions/embedding.md). */
export const MIN_DOCS_FOR_CORPUS_MODEL = 300;

/**
 * The second stage (`rerankCandidates`) pays off from about this corpus size (20NG subsets: ≈ dense-only at 1,000
 * documents, +0.016 at 2,000, +0.05 at 11,314); below it rank by the dense score alone.
 */
export const RERANK_MIN_DOCS = 2000;

/**
 * Dimensions of a key's LSA model, by its size (docs/decisions/embedding.md, "Model shape by measurement"):
 * below RERANK_MIN_DOCS the dense score ranks alone and a 20NG 1k subset gains from 128 (0.4527 against 0.4500
 * at 64); with the second stage, 64 is best at 11k on 20NG (0.6767 against 0.6719 at 128, 0.6709 at 256) and
 * dense-only Debian descriptions peak at 32–64 (0.5078 at 64, 0.4571 at 256).
 */
export function lsaDimensions(documents: number): number {
  return documents < RERANK_MIN_DOCS ? 128 : 64;
}

/** Second-stage weights (`rerankCandidates`): a feedback, λ dense score, μ dense feedback, m feedback documents. */
export interface SecondStageWeights {
  readonly feedbackDocs: number;
  readonly feedbackWeight: number;
  readonly denseWeight: number;
  readonly denseFeedbackWeight: number;
}

/** The second stage's weights before issue 32 (20NG 11k, docs/decisions/embedding.md): models shaped by size. */
export const DEFAULT_SECOND_STAGE: SecondStageWeights = { feedbackDocs: 3, feedbackWeight: 2, denseWeight: 0.6, denseFeedbackWeight: 1 };

/**
 * The weights of models shaped by the check (issue 32, fifteenth session): the dense score and the dense feedback
 * weigh more on today's projections. Reuters +0.005 on bench:quality's 800, +0.002 on its other 1,136 held-out
 * articles, 20NG +0.0004, at no cost (docs/decisions/embedding.md, "Heavier dense evidence in the second stage").
 */
export const SECOND_STAGE_WEIGHTS: SecondStageWeights = { ...DEFAULT_SECOND_STAGE, denseWeight: 1.5, denseFeedbackWeight: 3 };

/** Candidates the vector index hands the second stage (issue 14's measurement: 800). */
export const DEFAULT_CANDIDATES = 800;

/**
 * The label-free check that chose a key's shape at fit time (issue 32), on the key's own documents as the fit
 * analysed them: how long they are, in analysed terms. The second stage re-ranks by TF-IDF terms and their
 * feedback; on one-paragraph texts it measured below the dense score alone (Debian descriptions, every
 * language), on articles and posts above it (20NG, Reuters): docs/decisions/embedding.md, "Shape per key".
 */
export interface ShapeCheck {
  readonly method: 'document-length';
  /** documents measured (every document the model was fitted on) */
  readonly documents: number;
  /** median analysed terms per document, and the quartiles */
  readonly medianTerms: number;
  readonly quartileTerms: readonly [number, number];
  /** the median from which the second stage runs */
  readonly longTextTerms: number;
  /** milliseconds of the check, and of the whole fit it is part of (in the fit's pool thread) */
  readonly checkMs: number;
  readonly fitMs: number;
}

/**
 * Global term weight of the texts' vectors that the LSA projection was fitted on: idf, or log-entropy (both with
 * sublinear tf, 1 + ln tf). The second stage's sparse terms are idf-weighted whichever the projection used.
 */
export type TermWeighting = 'sublinear-tfidf' | 'log-entropy';

/**
 * How a key's model answers similar-to queries, chosen at fit time and read by the query path: dimensions of the
 * dense vectors, term weighting, whether the second stage runs, with how many candidates and which weights.
 */
export interface ModelShape {
  /** `check`: the key's own documents chose (issue 32); `size`: the size rule (an older model, or dimensions asked for) */
  readonly chosenBy: 'check' | 'size';
  readonly dim: number;
  /** the projection's term weighting (the second stage's terms: `sparseWeighting`) */
  readonly weighting: TermWeighting;
  /**
   * component j of the projection is scaled by σⱼ^(exponent − 1): 1 is textbook LSA (a text's x·V, its row of UΣ;
   * the shape check's choice for short texts), 0.5 is σ^-0.5 (longer texts); absent (models from before): 0.5
   */
  readonly singularValueExponent?: number;
  /** power iterations of the randomized SVD the projection was fitted with (the check's choice); absent (models from before): 1 */
  readonly powerIterations?: number;
  /** the second stage's terms' global weight (the check's choice); absent (models from before): idf */
  readonly sparseWeighting?: TermWeighting;
  readonly secondStage: boolean;
  readonly candidates: number;
  readonly weights: SecondStageWeights;
  readonly check?: ShapeCheck;
}

/** The shape of a model fitted on `fittedDocs` documents by the size rule (models from before issue 32). */
export function shapeBySize(kind: 'lsa' | 'word-vectors', dim: number, fittedDocs: number): ModelShape {
  return {
    chosenBy: 'size', dim, weighting: 'sublinear-tfidf', secondStage: kind === 'lsa' && fittedDocs >= RERANK_MIN_DOCS,
    candidates: DEFAULT_CANDIDATES, weights: DEFAULT_SECOND_STAGE,
  };
}

/**
 * Corpus-independent model: SIF-weighted average of GloVe word vectors, a/(a + p(w)) with p(w) estimated from
 * the word's frequency rank (Zipf), so function words weigh little without any corpus statistics.
 */
export interface WordVectorModel {
  readonly kind: 'word-vectors';
  readonly id: string;
  readonly dim: number;
  readonly sifA: number;
}

/**
 * Corpus-fitted model: sublinear TF-IDF over the fitted vocabulary, projected on the top `dim` right singular
 * vectors of the (row-normalised) TF-IDF matrix, each scaled by σ^(exponent-1), then L2-normalised.
 */
export interface LsaModel extends TermStatistics {
  readonly kind: 'lsa';
  readonly id: string;
  readonly dim: number;
  readonly vocabulary: Vocabulary;
  /** terms × dim, row-major */
  readonly projection: Float32Array;
  readonly singularValues: Float32Array;
  readonly fittedDocs: number;
  /** The corpus's main language (ISO 639-3, or `und`): assumed for texts too short to tell their own. */
  readonly language: string;
  /** How queries use the model (chosen at fit time); absent in models from before issue 32: `shapeBySize`. */
  readonly shape?: ModelShape;
}

export type EmbeddingModel = WordVectorModel | LsaModel;
