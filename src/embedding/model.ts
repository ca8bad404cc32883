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
}

export type EmbeddingModel = WordVectorModel | LsaModel;
