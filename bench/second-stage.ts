/**
 * The second stage's shape on bench:quality's splits, in process (issue 32): each corpus's model fitted as the
 * service fits it (its shape chosen by its own documents), the test texts' exact dense top-N, then the second stage
 * (`rerankCandidates`) over the first 100, 200, 400, 800 of them, and the variants issue 32 lists, beside TF-IDF and
 * LSA-64/128/256 on the same split in the same run. Precision@10 by the corpus's label; the second stage's CPU per
 * query (p50, in this process) as its cost.
 *
 *   node dist/bench/second-stage.js
 *   BENCH_CORPORA=20ng,reuters,debian-de,debian-de-en   (default: 20ng, reuters and each Debian language with its twin)
 *   BENCH_CANDIDATES=100,200,400,800  BENCH_QUERIES=2000  BENCH_VARIANTS=0 (candidate counts only)
 *   BENCH_VARIANT_CANDIDATES=100,200   (the candidate counts each variant of VARIANT_BLENDS and MODEL_VARIANTS runs at)
 *   BENCH_DEBIAN_MAX_DOCS=14000   (the first N of each Debian set's seeded shuffle, before its split, as bench:quality's)
 *   BENCH_CORPORA=20ng-cut100   (20NG with every text cut to its first 100 words: shorter texts, same topics)
 *   BENCH_CORPORA=reuters-rest   (Reuters' other 1,136 held-out articles as queries: fresh ones for what was chosen on the 800)
 *   BENCH_WEIGHTS='{"λ 1": {"denseWeight": 1}}'   (the service's second stage with other weights)
 *   BENCH_MODEL_REORDERS='^fusion'   (these VARIANT_REORDERS on each model variant; 0: the second stage only)
 *   BENCH_CHECKS=1   (label-free checks on the train documents instead of precision: see `checks`)
 *   BENCH_DOC='^expansion'   (these DOC_VARIANTS: train rows transformed at fit time, queries unchanged; 0: none)
 */
import os from 'node:os';
import {
  embedBatch, fitModelSync, rankByScore, rerankCandidates, type EmbeddingModel, type FitOptions, type RerankOptions,
  type SparseVector,
} from '../src/embedding';
import { wordVectorModel } from '../src/embedding/fit';
import type { LsaModel } from '../src/embedding/model';
import { loadWordVectors, WORD_VECTOR_DIM } from '../src/embedding/word-vectors';
import { packSparse, sparseDot } from '../src/embedding/sparse';
import { analyze, countTerms } from '../src/text';
import { debianTwins, newsgroups, reuters, REUTERS_QUERIES, type CorpusSplit } from './corpora';
import {
  clusterCentroids, expandedByNeighbours, expandedSparse, firstNeighbours, nearestNeighbours, sharedNeighbourScores, smoothedByClusters, type Neighbours,
} from './neighbourhood';
import { denseTopK, TfidfBaselineRanker } from './quality';

const CANDIDATES = (process.env.BENCH_CANDIDATES ?? '100,200,400,800').split(',').filter(Boolean).map(Number);
const MAX_CANDIDATES = Math.max(...CANDIDATES);
const QUERIES = Number(process.env.BENCH_QUERIES ?? Infinity);
const VARIANTS = process.env.BENCH_VARIANTS !== '0';
const LSA_DIMS = [64, 128, 256];
const VARIANT_CANDIDATES = (process.env.BENCH_VARIANT_CANDIDATES ?? '100,200').split(',').filter(Boolean).map(Number);
const DEBIAN_LANGUAGES = ['de', 'fr', 'ru', 'ja'];
/** Only the variants whose name matches (a regular expression); the baselines are skipped with BENCH_BASELINES=0. */
const ONLY = new RegExp(process.env.BENCH_ONLY ?? '');
const BASELINES = process.env.BENCH_BASELINES !== '0';

/** The corpus embedded by one model: dense rows and TF-IDF terms of the train and test texts. */
interface Embedded {
  model: LsaModel;
  texts: { train: string[]; test: string[] };
  train: { vectors: Float32Array; sparse: SparseVector[] };
  test: { vectors: Float32Array; sparse: SparseVector[] };
}

function embed(split: CorpusSplit, fitOptions: FitOptions): Embedded {
  const model: EmbeddingModel = fitModelSync(split.train.map((d) => d.text), { minDocsForCorpusModel: 0, ...fitOptions });
  if (model.kind !== 'lsa') throw new Error('expected a corpus model');
  const texts = { train: split.train.map((d) => d.text), test: split.test.map((d) => d.text) };
  return { model, texts, train: embedBatch(model, texts.train), test: embedBatch(model, texts.test) };
}

/** Each test text's dense candidates: train rows best first, their dense scores and rows. */
interface Candidates {
  rows: number[];
  dense: Float32Array;
}

function candidatesOf(e: Embedded, count: number): Candidates[] {
  const dim = e.model.dim;
  const out: Candidates[] = [];
  for (let q = 0; q < e.test.sparse.length; q++) {
    const query = e.test.vectors.subarray(q * dim, (q + 1) * dim);
    const rows = denseTopK(e.train.vectors, dim, query, count);
    out.push({ rows, dense: Float32Array.from(rows, (r) => dot(e.train.vectors, r * dim, query, dim)) });
  }
  return out;
}

function dot(rows: Float32Array, offset: number, v: Float32Array, dim: number): number {
  let s = 0;
  for (let j = 0; j < dim; j++) s += rows[offset + j]! * v[j]!;
  return s;
}

function rowsOf(vectors: Float32Array, dim: number, rows: readonly number[]): Float32Array {
  const out = new Float32Array(rows.length * dim);
  rows.forEach((r, c) => out.set(vectors.subarray(r * dim, (r + 1) * dim), c * dim));
  return out;
}

/** How a variant orders one query's first `n` candidates: train rows, best first. */
type Reorder = (e: Embedded, query: number, candidates: Candidates, n: number) => number[];

const denseOnly: Reorder = (_e, _q, c) => c.rows.slice(0, 10);

/** The service's second stage with the model's weights, `change` applied. */
function secondStage(change: Partial<RerankOptions> = {}): Reorder {
  return (e, q, c, n) => {
    const rows = c.rows.slice(0, n);
    const scores = rerankCandidates(e.test.sparse[q]!, packSparse(rows.map((r) => e.train.sparse[r]!)), {
      ...e.model.shape?.weights, denseScores: c.dense.subarray(0, n), candidateVectors: rowsOf(e.train.vectors, e.model.dim, rows), ...change,
    });
    return rankByScore(scores).slice(0, 10).map((i) => rows[i]!);
  };
}

/**
 * A prototype of the second stage's variants (issue 32), plain and unoptimised: every score of `rerankCandidates`
 * with its own weight, the feedback documents chosen by the direct TF-IDF cosine, the dense score or the first
 * pass's blend, optionally a second round fed by the first round's best.
 */
interface Blend {
  direct: number;
  feedback: number;
  dense: number;
  denseFeedback: number;
  feedbackDocs: number;
  feedbackBy: 'direct' | 'dense' | 'blend';
  rounds?: number;
  /** feedback documents' weights proportional to their score (else a plain mean) */
  weighted?: boolean;
  /** skip feedback candidates whose TF-IDF cosine with one already chosen is at least this (near duplicates) */
  distinct?: number;
  /** the candidates' TF-IDF vectors to use instead of the model's (another term weighting) */
  sparse?: (e: Embedded) => { train: SparseVector[]; test: SparseVector[] };
}

const sparseCache = new WeakMap<Embedded, Map<Blend['sparse'], { train: SparseVector[]; test: SparseVector[] }>>();

function blended(b: Blend): Reorder {
  return (e, q, c, n) => {
    const dim = e.model.dim;
    let cache = sparseCache.get(e);
    if (!cache) sparseCache.set(e, (cache = new Map()));
    let terms = cache.get(b.sparse);
    if (!terms) cache.set(b.sparse, (terms = b.sparse ? b.sparse(e) : { train: e.train.sparse, test: e.test.sparse }));
    const rows = c.rows.slice(0, n);
    const cs = rows.map((r) => terms.train[r]!);
    const direct = Float64Array.from(cs, (v) => sparseDot(terms.test[q]!, v));
    const dense = Float64Array.from(c.dense.subarray(0, n), (x) => Math.max(0, x));
    const choose = (by: Float64Array): number[] => {
      const order = Array.from(by.keys()).sort((x, y) => by[y]! - by[x]! || x - y);
      const chosen: number[] = [];
      for (const i of order) {
        if (chosen.length >= b.feedbackDocs) break;
        if (b.distinct !== undefined && chosen.some((f) => sparseDot(cs[f]!, cs[i]!) >= b.distinct!)) continue;
        chosen.push(i);
      }
      return chosen;
    };
    const score = (feedback: number[], by: Float64Array): Float64Array => {
      const w = feedback.map((f) => (b.weighted ? Math.max(1e-6, by[f]!) : 1));
      const total = w.reduce((x, y) => x + y, 0);
      return Float64Array.from(rows, (r, i) => {
        let fb = 0;
        let dfb = 0;
        feedback.forEach((f, k) => {
          if (b.feedback) fb += (w[k]! / total) * sparseDot(cs[f]!, cs[i]!);
          if (b.denseFeedback) dfb += (w[k]! / total) * Math.max(0, dot(e.train.vectors, r * dim, e.train.vectors.subarray(rows[f]! * dim, (rows[f]! + 1) * dim), dim));
        });
        return b.direct * direct[i]! + b.feedback * fb + b.dense * dense[i]! + b.denseFeedback * dfb;
      });
    };
    const firstBy = b.feedbackBy === 'direct' ? direct : b.feedbackBy === 'dense' ? dense : Float64Array.from(direct, (d, i) => b.direct * d + b.dense * dense[i]!);
    let scores = score(choose(firstBy), firstBy);
    for (let round = 1; round < (b.rounds ?? 1); round++) scores = score(choose(scores), scores);
    return Array.from(scores.keys()).sort((x, y) => scores[y]! - scores[x]! || x - y).slice(0, 10).map((i) => rows[i]!);
  };
}

/** The service's weights as a Blend (checks the prototype against `rerankCandidates`). */
const SERVICE: Blend = { direct: 1, feedback: 2, dense: 0.6, denseFeedback: 1, feedbackDocs: 3, feedbackBy: 'direct' };

/** BM25's saturating term frequency and length normalisation (k1 1.2, b 0.75) with the model's idf, L2-normalised. */
function bm25(e: Embedded): { train: SparseVector[]; test: SparseVector[] } {
  const analysed = (texts: readonly string[]) => texts.map((t) => analyze(t, { hint: e.model.language }).terms);
  const train = analysed(e.texts.train);
  const test = analysed(e.texts.test);
  const average = train.reduce((s, t) => s + t.length, 0) / Math.max(1, train.length);
  const vector = (terms: string[]): SparseVector => {
    const pairs: Array<[number, number]> = [];
    for (const [term, tf] of countTerms(terms)) {
      const id = e.model.vocabulary.get(term);
      if (id !== undefined) pairs.push([id, (e.model.idf[id]! * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * terms.length) / average))]);
    }
    pairs.sort((x, y) => x[0] - y[0]);
    const norm = Math.hypot(...pairs.map(([, w]) => w)) || 1;
    return { ids: Uint32Array.from(pairs, ([id]) => id), weights: Float32Array.from(pairs, ([, w]) => w / norm) };
  };
  return { train: train.map(vector), test: test.map(vector) };
}

/**
 * The service's second stage with the μ term's feedback vector replaced by alpha query expansion in dense space:
 * q + Σ over the `k` best candidates by dense score of max(0, dense)^α · their rows (issue 32, third session).
 */
function alphaQueryExpansion(k: number, alpha: number, mu?: number): Reorder {
  return (e, q, c, n) => {
    const dim = e.model.dim;
    const rows = c.rows.slice(0, n);
    const vectors = rowsOf(e.train.vectors, dim, rows);
    const expanded = Float32Array.from(e.test.vectors.subarray(q * dim, (q + 1) * dim));
    for (let i = 0; i < Math.min(k, n); i++) {
      const w = Math.pow(Math.max(0, c.dense[i]!), alpha);
      for (let j = 0; j < dim; j++) expanded[j]! += w * vectors[i * dim + j]!;
    }
    const norm = Math.hypot(...expanded) || 1;
    const scores = rerankCandidates(e.test.sparse[q]!, packSparse(rows.map((r) => e.train.sparse[r]!)), {
      ...e.model.shape?.weights, ...(mu === undefined ? {} : { denseFeedbackWeight: mu }), denseScores: c.dense.subarray(0, n),
      denseFeedbackOf: () => Float32Array.from(rows, (_r, i) => dot(vectors, i * dim, expanded, dim) / norm),
    });
    return rankByScore(scores).slice(0, 10).map((i) => rows[i]!);
  };
}

/**
 * The service's scores, then diffusion over the kNN graph of the best `top` of them (dense rows, k neighbours each,
 * affinity max(0, cos)^3): f ← (1 − β) y + β W f for 10 rounds, y the service's scores, W row-normalised; the
 * rest keep their order below.
 */
function diffusion(top: number, k: number, beta: number): Reorder {
  return (e, q, c, n) => {
    const dim = e.model.dim;
    const rows = c.rows.slice(0, n);
    const scores = rerankCandidates(e.test.sparse[q]!, packSparse(rows.map((r) => e.train.sparse[r]!)), {
      ...e.model.shape?.weights, denseScores: c.dense.subarray(0, n), candidateVectors: rowsOf(e.train.vectors, dim, rows),
    });
    const order = rankByScore(scores);
    const best = order.slice(0, top);
    const r = best.length;
    const vectors = rowsOf(e.train.vectors, dim, best.map((i) => rows[i]!));
    const neighbours: Array<Array<[number, number]>> = [];
    for (let a = 0; a < r; a++) {
      const sims: Array<[number, number]> = [];
      for (let b = 0; b < r; b++) {
        if (b === a) continue;
        let cos = 0;
        for (let j = 0; j < dim; j++) cos += vectors[a * dim + j]! * vectors[b * dim + j]!;
        sims.push([b, Math.pow(Math.max(0, cos), 3)]);
      }
      sims.sort((x, y) => y[1] - x[1]);
      const kept = sims.slice(0, k);
      const total = kept.reduce((t, [, w]) => t + w, 0) || 1;
      neighbours.push(kept.map(([b, w]) => [b, w / total]));
    }
    const y = Float64Array.from(best, (i) => scores[i]!);
    let f = Float64Array.from(y);
    for (let round = 0; round < 10; round++) {
      const next = new Float64Array(r);
      for (let a = 0; a < r; a++) {
        let s = 0;
        for (const [b, w] of neighbours[a]!) s += w * f[b]!;
        next[a] = (1 - beta) * y[a]! + beta * s;
      }
      f = next;
    }
    const reordered = Array.from(f.keys()).sort((x, z) => f[z]! - f[x]! || x - z).map((a) => best[a]!);
    return [...reordered, ...order.slice(top)].slice(0, 10).map((i) => rows[i]!);
  };
}

/**
 * Bigrams of adjacent analysed terms added to the second stage's terms (sublinear tf × their idf on the train
 * texts, bigrams in ≥ 2 train texts, at most `cap` per text by idf, the bigram part weighted `weight`), L2-normalised.
 */
function withBigrams(cap: number, weight: number): (e: Embedded) => { train: SparseVector[]; test: SparseVector[] } {
  return (e) => {
    const analysed = (texts: readonly string[]) => texts.map((t) => analyze(t, { hint: e.model.language }).terms);
    const train = analysed(e.texts.train);
    const test = analysed(e.texts.test);
    const bigramsOf = (terms: string[]): string[] => terms.slice(1).map((t, i) => `${terms[i]!} ${t}`);
    const df = new Map<string, number>();
    for (const terms of train) for (const b of new Set(bigramsOf(terms))) df.set(b, (df.get(b) ?? 0) + 1);
    const ids = new Map<string, number>();
    const base = e.model.idf.length;
    for (const [b, n] of df) if (n >= 2) ids.set(b, base + ids.size);
    const idfOf = (b: string): number => Math.log((1 + train.length) / (1 + df.get(b)!)) + 1;
    const vector = (terms: string[], unigrams: SparseVector): SparseVector => {
      const pairs: Array<[number, number]> = Array.from(unigrams.ids, (id, k) => [id, unigrams.weights[k]!] as [number, number]);
      const bigrams: Array<[number, number]> = [];
      let norm = 0;
      for (const [b, tf] of countTerms(bigramsOf(terms))) {
        const id = ids.get(b);
        if (id === undefined) continue;
        const w = (1 + Math.log(tf)) * idfOf(b);
        bigrams.push([id, w]);
      }
      bigrams.sort((x, y) => y[1] - x[1]);
      const kept = bigrams.slice(0, cap);
      for (const [, w] of kept) norm += w * w;
      norm = Math.sqrt(norm) || 1;
      for (const [id, w] of kept) pairs.push([id, (weight * w) / norm]);
      pairs.sort((x, y) => x[0] - y[0]);
      const total = Math.hypot(...pairs.map(([, w]) => w)) || 1;
      return { ids: Uint32Array.from(pairs, ([id]) => id), weights: Float32Array.from(pairs, ([, w]) => w / total) };
    };
    return { train: train.map((t, i) => vector(t, e.train.sparse[i]!)), test: test.map((t, i) => vector(t, e.test.sparse[i]!)) };
  };
}

/** Each train row's mean dense cosine with its `k` nearest other train rows (cached per embedding and k). */
const radiusCache = new WeakMap<Embedded, Map<number, Float32Array>>();

function neighbourhoodRadius(e: Embedded, k: number): Float32Array {
  let byK = radiusCache.get(e);
  if (!byK) radiusCache.set(e, (byK = new Map()));
  const cached = byK.get(k);
  if (cached) return cached;
  const dim = e.model.dim;
  const vectors = e.train.vectors;
  const radius = new Float32Array(vectors.length / dim);
  radius.forEach((_r, r) => {
    const best = denseTopK(vectors, dim, vectors.subarray(r * dim, (r + 1) * dim), k + 1).filter((x) => x !== r).slice(0, k);
    radius[r] = best.reduce((s, x) => s + dot(vectors, x * dim, vectors.subarray(r * dim, (r + 1) * dim), dim), 0) / Math.max(1, best.length);
  });
  byK.set(k, radius);
  return radius;
}

/**
 * Hubness reduction (CSLS-like): the service's scores (or the dense score alone when `dense`) less β times each
 * candidate's neighbourhood radius (mean dense cosine with its k nearest train rows): documents near everything
 * ("hubs") rank lower. The radius is a per-document constant, computable at index time.
 */
function hubnessCorrected(k: number, beta: number, denseOnlyScores = false): Reorder {
  return (e, q, c, n) => {
    const rows = c.rows.slice(0, n);
    const radius = neighbourhoodRadius(e, k);
    const scores = denseOnlyScores
      ? Float32Array.from(rows, (_r, i) => c.dense[i]!)
      : rerankCandidates(e.test.sparse[q]!, packSparse(rows.map((r) => e.train.sparse[r]!)), {
        ...e.model.shape?.weights, denseScores: c.dense.subarray(0, n), candidateVectors: rowsOf(e.train.vectors, e.model.dim, rows),
      });
    const corrected = Float32Array.from(scores, (s, i) => s - beta * radius[rows[i]!]!);
    return rankByScore(corrected).slice(0, 10).map((i) => rows[i]!);
  };
}

/**
 * The service's scores, then the best 10 with near duplicates collapsed (issue 32, seventh session): a candidate
 * whose TF-IDF cosine with one already taken (or, `ofQuery`, with the query) is at least `threshold` is passed over.
 */
function duplicatesCollapsed(threshold: number, ofQuery: boolean): Reorder {
  return (e, q, c, n) => {
    const rows = c.rows.slice(0, n);
    const scores = rerankCandidates(e.test.sparse[q]!, packSparse(rows.map((r) => e.train.sparse[r]!)), {
      ...e.model.shape?.weights, denseScores: c.dense.subarray(0, n), candidateVectors: rowsOf(e.train.vectors, e.model.dim, rows),
    });
    const taken: number[] = [];
    for (const i of rankByScore(scores)) {
      if (taken.length === 10) break;
      const v = e.train.sparse[rows[i]!]!;
      if (ofQuery && sparseDot(e.test.sparse[q]!, v) >= threshold) continue;
      if (taken.some((t) => sparseDot(e.train.sparse[t]!, v) >= threshold)) continue;
      taken.push(rows[i]!);
    }
    return taken;
  };
}

/**
 * Reciprocal-rank fusion (k 60) of the service's second stage with the LSA-only blend (dense + μ 2 dense feedback
 * of the 3 best by dense score): the two rankings' 1 / (60 + rank) summed, `lsaShare` weighting the second.
 */
function reciprocalRankFusion(lsaShare: number, k = 60, feedback = true): Reorder {
  const lsaOnly = VARIANT_BLENDS['LSA only, μ 2']!;
  return (e, q, c, n) => {
    const rows = c.rows.slice(0, n);
    const scores = rerankCandidates(e.test.sparse[q]!, packSparse(rows.map((r) => e.train.sparse[r]!)), {
      ...e.model.shape?.weights, denseScores: c.dense.subarray(0, n), candidateVectors: rowsOf(e.train.vectors, e.model.dim, rows),
    });
    const dim = e.model.dim;
    const byDense = [0, 1, 2].filter((i) => i < n && feedback);
    const mean = new Float32Array(dim);
    for (const f of byDense) for (let j = 0; j < dim; j++) mean[j]! += e.train.vectors[rows[f]! * dim + j]! / byDense.length;
    const lsa = Float32Array.from(rows, (r, i) => lsaOnly.dense * Math.max(0, c.dense[i]!) + lsaOnly.denseFeedback * Math.max(0, dot(e.train.vectors, r * dim, mean, dim)));
    const fused = new Float32Array(n);
    rankByScore(scores).forEach((i, rank) => (fused[i]! += 1 / (k + rank)));
    rankByScore(lsa).forEach((i, rank) => (fused[i]! += lsaShare / (k + rank)));
    return rankByScore(fused).slice(0, 10).map((i) => rows[i]!);
  };
}

/**
 * Reciprocal-rank fusion, general form: the service's second stage with `change` fused with a dense ranking,
 * λ' · dense(q, c) + μ' · dense(mean of the `k` best by dense score, each weighted dense^α, c), `share` its weight.
 */
function fusion(change: Partial<RerankOptions>, lsa: { k: number; alpha: number; mu: number }, share = 1, rrfK = 60): Reorder {
  return (e, q, c, n) => {
    const rows = c.rows.slice(0, n);
    const scores = rerankCandidates(e.test.sparse[q]!, packSparse(rows.map((r) => e.train.sparse[r]!)), {
      ...e.model.shape?.weights, denseScores: c.dense.subarray(0, n), candidateVectors: rowsOf(e.train.vectors, e.model.dim, rows), ...change,
    });
    const dim = e.model.dim;
    const mean = new Float32Array(dim);
    for (let i = 0; i < Math.min(lsa.k, n); i++) {
      const w = Math.pow(Math.max(0, c.dense[i]!), lsa.alpha);
      for (let j = 0; j < dim; j++) mean[j]! += w * e.train.vectors[rows[i]! * dim + j]!;
    }
    const norm = Math.hypot(...mean) || 1;
    const dense = Float32Array.from(rows, (r, i) => Math.max(0, c.dense[i]!) + lsa.mu * Math.max(0, dot(e.train.vectors, r * dim, mean, dim) / norm));
    const fused = new Float32Array(n);
    rankByScore(scores).forEach((i, rank) => (fused[i]! += 1 / (rrfK + rank)));
    rankByScore(dense).forEach((i, rank) => (fused[i]! += share / (rrfK + rank)));
    return rankByScore(fused).slice(0, 10).map((i) => rows[i]!);
  };
}

/** The train and test texts' SIF-weighted GloVe means (the word-vector model's rows; cached per embedding). */
const wordVectorCache = new WeakMap<Embedded, { train: Float32Array; test: Float32Array }>();

function wordVectorRows(e: Embedded): { train: Float32Array; test: Float32Array } {
  let cached = wordVectorCache.get(e);
  if (!cached) {
    const table = loadWordVectors();
    const model = wordVectorModel();
    cached = { train: embedBatch(model, e.texts.train, table).vectors, test: embedBatch(model, e.texts.test, table).vectors };
    wordVectorCache.set(e, cached);
  }
  return cached;
}

/**
 * The service's second stage with a third, corpus-independent signal (issue 32, fifteenth session): each candidate's
 * word-vector cosine with the query, `form` 'add' (score + ν · (cos − its mean over the candidates)) or 'rrf'
 * (reciprocal-rank fusion of the word-vector order with the second stage's, share ν).
 */
function withWordVectors(nu: number, form: 'add' | 'rrf'): Reorder {
  return (e, q, c, n) => {
    const rows = c.rows.slice(0, n);
    const scores = rerankCandidates(e.test.sparse[q]!, packSparse(rows.map((r) => e.train.sparse[r]!)), {
      ...e.model.shape?.weights, denseScores: c.dense.subarray(0, n), candidateVectors: rowsOf(e.train.vectors, e.model.dim, rows),
    });
    const wv = wordVectorRows(e);
    const query = wv.test.subarray(q * WORD_VECTOR_DIM, (q + 1) * WORD_VECTOR_DIM);
    const cos = Float32Array.from(rows, (r) => dot(wv.train, r * WORD_VECTOR_DIM, query, WORD_VECTOR_DIM));
    if (form === 'add') {
      const mean = cos.reduce((s, x) => s + x, 0) / Math.max(1, n);
      return rankByScore(scores.map((s, i) => s + nu * (cos[i]! - mean))).slice(0, 10).map((i) => rows[i]!);
    }
    const fused = new Float32Array(n);
    rankByScore(scores).forEach((i, rank) => (fused[i]! += 1 / (60 + rank)));
    rankByScore(cos).forEach((i, rank) => (fused[i]! += nu / (60 + rank)));
    return rankByScore(fused).slice(0, 10).map((i) => rows[i]!);
  };
}

/**
 * Reciprocal-rank fusion of the second stage with the dense order (dense + μ 2 · the 3 best's mean), each query's
 * share of the dense order set by its own dense density (the mean dense score of its 10 nearest): 0 below `from`,
 * `share` from `to`, linear between (issue 32, fifteenth session: a per-query form of the per-key check).
 */
function densityFusion(from: number, to: number, share = 1): Reorder {
  const fused = fusion({}, { k: 3, alpha: 0, mu: 2 }, share);
  const plain = secondStage();
  const partial = new Map<number, Reorder>();
  return (e, q, c, n) => {
    const density = c.dense.subarray(0, 10).reduce((t, x) => t + x, 0) / 10;
    const t = Math.min(1, Math.max(0, (density - from) / Math.max(1e-9, to - from)));
    if (t === 0) return plain(e, q, c, n);
    if (t === 1) return fused(e, q, c, n);
    const step = Math.round(t * 10) / 10;
    let r = partial.get(step);
    if (!r) partial.set(step, (r = fusion({}, { k: 3, alpha: 0, mu: 2 }, share * step)));
    return r(e, q, c, n);
  };
}

/** Models fitted otherwise (the second stage with the default weights). */
const MODEL_VARIANTS: Record<string, FitOptions & { center?: boolean }> = {
  'd128': { dim: 128 },
  'σ-weight σ^0 (plain projection)': { singularValueExponent: 1 },
  'log-entropy weighting': { weighting: 'log-entropy', sparseWeighting: 'log-entropy' },
  'log-entropy weighting, d128': { weighting: 'log-entropy', sparseWeighting: 'log-entropy', dim: 128 },
  'log-entropy for the projection, idf for the second stage': { weighting: 'log-entropy', sparseWeighting: 'sublinear-tfidf' },
  'log-entropy, SVD 4 power iterations, oversample 40': { weighting: 'log-entropy', sparseWeighting: 'log-entropy', powerIterations: 4, oversample: 40 },
  'idf for the projection (before issue 32\'s third session)': { weighting: 'sublinear-tfidf' },
  'SVD 4 power iterations, oversample 40': { weighting: 'sublinear-tfidf', powerIterations: 4, oversample: 40 },
  // issue 32, fourth session: the shape check's own choice (log-entropy projection for long texts, idf for short), SVD settled further
  'shape check, 2 power iterations': { powerIterations: 2 },
  'shape check, 4 power iterations': { powerIterations: 4 },
  'shape check, 4 power iterations, oversample 40': { powerIterations: 4, oversample: 40 },
  'shape check, 8 power iterations, oversample 20': { powerIterations: 8, oversample: 20 },
  'shape check, σ-weight σ^0': { singularValueExponent: 1 },
  'shape check, σ-weight σ^-1': { singularValueExponent: 0 },
  'shape check, σ-weight σ^+0.5': { singularValueExponent: 1.5 },
  'σ-weight σ^0, d64': { singularValueExponent: 1, dim: 64 },
  'σ-weight σ^0, d128': { singularValueExponent: 1, dim: 128 },
  'shape check, dense vectors centred on the train mean': { center: true },
  // issue 32, seventh session
  'shape check, log-entropy second-stage terms': { sparseWeighting: 'log-entropy' },
};

/** The dense rows and queries less the train rows' mean, renormalised (a prototype: the model does not store a mean). */
function centred(e: Embedded): Embedded {
  const dim = e.model.dim;
  const rows = e.train.vectors.length / dim;
  const mean = new Float64Array(dim);
  for (let r = 0; r < rows; r++) for (let j = 0; j < dim; j++) mean[j]! += e.train.vectors[r * dim + j]! / rows;
  const shift = (vectors: Float32Array): Float32Array => {
    const out = new Float32Array(vectors.length);
    for (let o = 0; o < vectors.length; o += dim) {
      let norm = 0;
      for (let j = 0; j < dim; j++) norm += vectors[o + j]! * vectors[o + j]!;
      if (norm === 0) continue;
      let n2 = 0;
      for (let j = 0; j < dim; j++) n2 += (out[o + j] = vectors[o + j]! - mean[j]!) ** 2;
      const inv = n2 > 0 ? 1 / Math.sqrt(n2) : 0;
      for (let j = 0; j < dim; j++) out[o + j]! *= inv;
    }
    return out;
  };
  return { ...e, train: { ...e.train, vectors: shift(e.train.vectors) }, test: { ...e.test, vectors: shift(e.test.vectors) } };
}

const VARIANT_BLENDS: Record<string, Blend> = {
  'prototype of the service': SERVICE,
  'LSA only: dense + dense feedback (m 3, by dense)': { direct: 0, feedback: 0, dense: 1, denseFeedback: 1, feedbackDocs: 3, feedbackBy: 'dense' },
  'LSA only, μ 2': { direct: 0, feedback: 0, dense: 1, denseFeedback: 2, feedbackDocs: 3, feedbackBy: 'dense' },
  'LSA only, m 10 weighted, μ 2': { direct: 0, feedback: 0, dense: 1, denseFeedback: 2, feedbackDocs: 10, feedbackBy: 'dense', weighted: true },
  'service, feedback by blend': { ...SERVICE, feedbackBy: 'blend' },
  'service, 2 rounds': { ...SERVICE, rounds: 2 },
  'service, m 5 weighted': { ...SERVICE, feedbackDocs: 5, weighted: true },
  'service, distinct feedback (cos < 0.8)': { ...SERVICE, distinct: 0.8 },
  'service, BM25 terms': { ...SERVICE, sparse: bm25 },
  'service, direct 0.5, dense 1': { ...SERVICE, direct: 0.5, dense: 1 },
  'service, bigrams (≤ 20 a text, weight 0.5)': { ...SERVICE, sparse: withBigrams(20, 0.5) },
  'service, bigrams (≤ 40 a text, weight 1)': { ...SERVICE, sparse: withBigrams(40, 1) },
};

/** Reorderings that are not a Blend (issue 32, third session). */
const VARIANT_REORDERS: Record<string, Reorder> = {
  'alpha-QE in dense space (k 10, α 3) as the μ term': alphaQueryExpansion(10, 3),
  'alpha-QE (k 20, α 3), μ 2': alphaQueryExpansion(20, 3, 2),
  'alpha-QE (k 5, α 1) as the μ term': alphaQueryExpansion(5, 1),
  'alpha-QE (k 20, α 3), μ 3': alphaQueryExpansion(20, 3, 3),
  'alpha-QE (k 40, α 3), μ 2': alphaQueryExpansion(40, 3, 2),
  'hubness: service − 0.05 · radius (k 10)': hubnessCorrected(10, 0.05),
  'hubness: service − 0.1 · radius (k 10)': hubnessCorrected(10, 0.1),
  'hubness: service − 0.2 · radius (k 10)': hubnessCorrected(10, 0.2),
  'hubness: dense − 0.5 · radius (k 10)': hubnessCorrected(10, 0.5, true),
  'hubness: dense − 1 · radius (k 10), CSLS': hubnessCorrected(10, 1, true),
  'diffusion over the best 100 (k 10, β 0.5)': diffusion(100, 10, 0.5),
  'diffusion over the best 50 (k 5, β 0.3)': diffusion(50, 5, 0.3),
  'near duplicates collapsed (cos ≥ 0.9)': duplicatesCollapsed(0.9, false),
  'near duplicates collapsed (cos ≥ 0.9), also of the query': duplicatesCollapsed(0.9, true),
  'RRF: second stage + LSA only (share 1)': reciprocalRankFusion(1),
  'RRF: second stage + LSA only (share 0.5)': reciprocalRankFusion(0.5),
  'RRF: second stage + LSA only (share 1.5)': reciprocalRankFusion(1.5),
  'RRF: second stage + LSA only (share 2)': reciprocalRankFusion(2),
  'RRF: second stage + LSA only (share 1, k 20)': reciprocalRankFusion(1, 20),
  'RRF: second stage + LSA only (share 1, k 200)': reciprocalRankFusion(1, 200),
  'RRF: second stage + dense only (share 1)': reciprocalRankFusion(1, 60, false),
  'fusion: service + dense, k 3 α 0 μ 2 (= RRF share 1)': fusion({}, { k: 3, alpha: 0, mu: 2 }),
  'fusion: service + dense, k 3 α 0 μ 1': fusion({}, { k: 3, alpha: 0, mu: 1 }),
  'fusion: service + dense, k 10 α 0 μ 2': fusion({}, { k: 10, alpha: 0, mu: 2 }),
  'fusion: service + dense, k 20 α 3 μ 2': fusion({}, { k: 20, alpha: 3, mu: 2 }),
  'fusion: service + dense, k 20 α 3 μ 4': fusion({}, { k: 20, alpha: 3, mu: 4 }),
  'fusion: service a 1 + dense, k 3 α 0 μ 2': fusion({ feedbackWeight: 1 }, { k: 3, alpha: 0, mu: 2 }),
  'fusion: service λ 1 + dense, k 3 α 0 μ 2': fusion({ denseWeight: 1 }, { k: 3, alpha: 0, mu: 2 }),
  'fusion: service no dense terms + dense, k 3 α 0 μ 2': fusion({ denseWeight: 0, denseFeedbackWeight: 0 }, { k: 3, alpha: 0, mu: 2 }),
  'density fusion: 0.75 → 0.85': densityFusion(0.75, 0.85),
  'density fusion: 0.8 → 0.9': densityFusion(0.8, 0.9),
  'density fusion: 0.7 → 0.9': densityFusion(0.7, 0.9),
  'density fusion: step at 0.8': densityFusion(0.8, 0.8001),
  'density fusion: step at 0.85': densityFusion(0.85, 0.8501),
  'word vectors: + 0.25 · cos': withWordVectors(0.25, 'add'),
  'word vectors: + 0.5 · cos': withWordVectors(0.5, 'add'),
  'word vectors: + 1 · cos': withWordVectors(1, 'add'),
  'word vectors: + 2 · cos': withWordVectors(2, 'add'),
  'word vectors: RRF share 0.5': withWordVectors(0.5, 'rrf'),
  'word vectors: RRF share 1': withWordVectors(1, 'rrf'),
};

/** Each train row's 20 nearest train rows by dense cosine (cached per embedding). */
const neighbourCache = new WeakMap<Embedded, Neighbours>();
const MAX_NEIGHBOURS = Number(process.env.BENCH_MAX_NEIGHBOURS ?? 20);

function neighboursOf(e: Embedded, k: number): Neighbours {
  let all = neighbourCache.get(e);
  if (!all) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    neighbourCache.set(e, (all = nearestNeighbours(e.train.vectors, e.model.dim, MAX_NEIGHBOURS)));
    const used = process.cpuUsage(cpu);
    console.error(`neighbours of ${e.train.vectors.length / e.model.dim} rows: ${((performance.now() - started) / 1000).toFixed(1)} s wall, ` +
      `${((used.user + used.system) / 1e6).toFixed(1)} s CPU; the model's fit: ${e.model.shape?.check?.fitMs ?? '?'} ms wall`);
  }
  return firstNeighbours(all, k);
}

/** The model's own ranking of the first `n` candidates: the second stage's scores, or the dense scores for dense-only keys. */
function modelScores(e: Embedded, q: number, c: Candidates, n: number): Float32Array {
  const rows = c.rows.slice(0, n);
  if (!e.model.shape?.secondStage) return Float32Array.from(c.dense.subarray(0, n));
  return rerankCandidates(e.test.sparse[q]!, packSparse(rows.map((r) => e.train.sparse[r]!)), {
    ...e.model.shape?.weights, denseScores: c.dense.subarray(0, n), candidateVectors: rowsOf(e.train.vectors, e.model.dim, rows),
  });
}

/**
 * Shared-nearest-neighbour re-ranking (issue 32, eighth session): the model's scores + γ · the share of the query's
 * best `top` (by those scores) among the candidate's k stored neighbours.
 */
function sharedNeighbours(k: number, top: number, gamma: number): Reorder {
  return (e, q, c, n) => {
    const rows = c.rows.slice(0, n);
    const scores = modelScores(e, q, c, n);
    const best = rankByScore(scores).slice(0, top).map((i) => rows[i]!);
    const shared = sharedNeighbourScores(rows, best, neighboursOf(e, k));
    return rankByScore(scores.map((s, i) => s + gamma * shared[i]!)).slice(0, 10).map((i) => rows[i]!);
  };
}

/** The model's own ranking (second stage or dense only), to compare the document-side variants with. */
const modelRanking: Reorder = (e, q, c, n) => rankByScore(modelScores(e, q, c, n)).slice(0, 10).map((i) => c.rows[i]!);

/** Train rows transformed at fit time (issue 32, eighth session); queries and the second stage unchanged. */
type DocTransform = (e: Embedded) => Partial<Embedded['train']>;

const clusterCache = new WeakMap<Embedded, Map<number, Float32Array>>();

function centroidsOf(e: Embedded, clusters: (n: number) => number): Float32Array {
  const n = e.train.vectors.length / e.model.dim;
  const k = Math.max(2, Math.round(clusters(n)));
  let byK = clusterCache.get(e);
  if (!byK) clusterCache.set(e, (byK = new Map()));
  let centroids = byK.get(k);
  if (!centroids) {
    const started = performance.now();
    byK.set(k, (centroids = clusterCentroids(e.train.vectors, e.model.dim, k)));
    console.error(`k-means ${k} clusters of ${n} rows: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  return centroids;
}

const clusterSmoothing = (clusters: (n: number) => number, beta: number, normalise: boolean): DocTransform => (e) =>
  ({ vectors: smoothedByClusters(e.train.vectors, e.model.dim, centroidsOf(e, clusters), beta, normalise) });

const expansion = (k: number, weight: number, refined = false): DocTransform => (e) =>
  ({ vectors: expandedByNeighbours(e.train.vectors, e.model.dim, refined ? refinedNeighboursOf(e, k) : neighboursOf(e, k), weight) });

/**
 * Each train row's k nearest by the second stage's own document similarity: its MAX_NEIGHBOURS nearest by dense
 * cosine re-scored by TF-IDF cosine + 0.6 · dense cosine.
 */
function refinedNeighboursOf(e: Embedded, k: number): Neighbours {
  const all = neighboursOf(e, MAX_NEIGHBOURS);
  const n = all.ids.length / all.k;
  const ids = new Int32Array(n * k);
  const sims = new Float32Array(n * k);
  for (let i = 0; i < n; i++) {
    const scored: Array<[number, number]> = [];
    for (let t = 0; t < all.k; t++) {
      const r = all.ids[i * all.k + t]!;
      if (r >= 0) scored.push([r, sparseDot(e.train.sparse[i]!, e.train.sparse[r]!) + 0.6 * all.sims[i * all.k + t]!]);
    }
    scored.sort((x, y) => y[1] - x[1]);
    for (let t = 0; t < k; t++) {
      ids[i * k + t] = scored[t]?.[0] ?? -1;
      sims[i * k + t] = scored[t]?.[1] ?? 0;
    }
  }
  return { k, ids, sims };
}

/** Expansion of the second stage's terms (the `cap` heaviest of the mix kept), and of the dense rows when `dense` is given. */
const termExpansion = (k: number, weight: number, cap: (length: number) => number, dense?: { k: number; weight: number }): DocTransform => (e) => ({
  sparse: expandedSparse(e.train.sparse, neighboursOf(e, k), weight, cap),
  ...(dense ? expansion(dense.k, dense.weight)(e) : {}),
});

const DOC_VARIANTS: Record<string, DocTransform> = {
  'unchanged rows': () => ({}),
  'cluster smoothing √n, β 0.25': clusterSmoothing(Math.sqrt, 0.25, false),
  'cluster smoothing √n, β 0.5': clusterSmoothing(Math.sqrt, 0.5, false),
  'cluster smoothing √n, β 1': clusterSmoothing(Math.sqrt, 1, false),
  'cluster smoothing n/50, β 0.25': clusterSmoothing((n) => n / 50, 0.25, false),
  'cluster smoothing n/50, β 0.5': clusterSmoothing((n) => n / 50, 0.5, false),
  'cluster smoothing n/50, β 1': clusterSmoothing((n) => n / 50, 1, false),
  'cluster smoothing n/20, β 0.25': clusterSmoothing((n) => n / 20, 0.25, false),
  'cluster smoothing n/20, β 0.5': clusterSmoothing((n) => n / 20, 0.5, false),
  'cluster smoothing n/20, β 1': clusterSmoothing((n) => n / 20, 1, false),
  'cluster smoothing n/50, β 0.5, normalised': clusterSmoothing((n) => n / 50, 0.5, true),
  'expansion k 5, w 0.2': expansion(5, 0.2),
  'expansion k 5, w 0.35': expansion(5, 0.35),
  'expansion k 5, w 0.5': expansion(5, 0.5),
  'expansion k 10, w 0.2': expansion(10, 0.2),
  'expansion k 10, w 0.35': expansion(10, 0.35),
  'expansion k 10, w 0.5': expansion(10, 0.5),
  'expansion k 20, w 0.2': expansion(20, 0.2),
  'expansion k 20, w 0.35': expansion(20, 0.35),
  'expansion k 20, w 0.5': expansion(20, 0.5),
  'expansion k 5, w 0.5, refined neighbours': expansion(5, 0.5, true),
  'expansion k 10, w 0.5, refined neighbours': expansion(10, 0.5, true),
  'expansion k 10, w 0.35, refined neighbours': expansion(10, 0.35, true),
  'expansion k 3, w 0.5, refined neighbours': expansion(3, 0.5, true),
  'expansion k 7, w 0.5, refined neighbours': expansion(7, 0.5, true),
  'expansion k 5, w 0.6, refined neighbours': expansion(5, 0.6, true),
  'expansion k 5, w 0.4, refined neighbours': expansion(5, 0.4, true),
  'term expansion k 5, w 0.2, own length': termExpansion(5, 0.2, (l) => l),
  'term expansion k 5, w 0.35, own length': termExpansion(5, 0.35, (l) => l),
  'term expansion k 10, w 0.2, own length': termExpansion(10, 0.2, (l) => l),
  'term expansion k 10, w 0.35, own length': termExpansion(10, 0.35, (l) => l),
  'term expansion k 10, w 0.5, own length': termExpansion(10, 0.5, (l) => l),
  'term expansion k 10, w 0.35, 1.5 × length': termExpansion(10, 0.35, (l) => 1.5 * l),
  'term expansion k 10, w 0.35, all terms': termExpansion(10, 0.35, () => Infinity),
  'term expansion k 10, w 0.35, own length, dense k 10 w 0.5': termExpansion(10, 0.35, (l) => l, { k: 10, weight: 0.5 }),
};

const SNN_REORDERS: Record<string, Reorder> = {
  'SNN k 10, top 10, γ 0.02': sharedNeighbours(10, 10, 0.02),
  'SNN k 10, top 10, γ 0.05': sharedNeighbours(10, 10, 0.05),
  'SNN k 10, top 10, γ 0.1': sharedNeighbours(10, 10, 0.1),
  'SNN k 20, top 20, γ 0.02': sharedNeighbours(20, 20, 0.02),
  'SNN k 20, top 20, γ 0.05': sharedNeighbours(20, 20, 0.05),
  'SNN k 20, top 20, γ 0.1': sharedNeighbours(20, 20, 0.1),
  'SNN k 10, top 5, γ 0.05': sharedNeighbours(10, 5, 0.05),
  'SNN k 20, top 10, γ 0.05': sharedNeighbours(20, 10, 0.05),
};

/** BENCH_WEIGHTS='{"name": {"denseWeight": 1}, …}': the service's second stage with other weights (RerankOptions). */
const WEIGHT_VARIANTS = JSON.parse(process.env.BENCH_WEIGHTS ?? '{}') as Record<string, Partial<RerankOptions>>;

interface Measured {
  precision: number;
  /** CPU milliseconds of reordering per query, median (this thread; wall time on a loaded machine is the scheduler's) */
  p50: number;
  /** each query's hits in its top 10 */
  hits: Uint8Array;
}

/** The mean per-query difference of precision@10 between two runs on the same queries, and its standard error. */
function pairedDifference(a: Uint8Array, b: Uint8Array): { mean: number; se: number } {
  const d = Array.from(a, (x, i) => (x - b[i]!) / 10);
  const mean = d.reduce((s, x) => s + x, 0) / d.length;
  const variance = d.reduce((s, x) => s + (x - mean) ** 2, 0) / Math.max(1, d.length - 1);
  return { mean, se: Math.sqrt(variance / d.length) };
}

function measure(split: CorpusSplit, e: Embedded, candidates: Candidates[], n: number, reorder: Reorder): Measured {
  let hits = 0;
  const perQuery = new Uint8Array(candidates.length);
  const times: number[] = [];
  candidates.forEach((c, q) => {
    const started = process.cpuUsage();
    const top = reorder(e, q, c, n);
    const used = process.cpuUsage(started);
    times.push((used.user + used.system) / 1000);
    for (const r of top) if (split.train[r]!.label === split.test[q]!.label) perQuery[q]!++;
    hits += perQuery[q]!;
  });
  times.sort((a, b) => a - b);
  return { precision: hits / (candidates.length * 10), p50: times[Math.floor(times.length / 2)] ?? 0, hits: perQuery };
}

async function tfidfBaseline(split: CorpusSplit): Promise<number> {
  const ranker = new TfidfBaselineRanker();
  await ranker.index(split.train);
  const labelOf = new Map(split.train.map((d) => [d.id, d.label] as const));
  const results = await ranker.topK(split.test.map((d) => d.text), 10);
  let hits = 0;
  results.forEach((ids, q) => (hits += ids.filter((id) => labelOf.get(id) === split.test[q]!.label).length));
  return hits / (split.test.length * 10);
}

function splitsOf(names: readonly string[]): CorpusSplit[] {
  const out: CorpusSplit[] = [];
  for (const name of names) {
    if (name === '20ng') out.push(newsgroups());
    else if (/^20ng-cut\d+$/.test(name)) out.push(cutWords(newsgroups(), Number(name.slice(8))));
    else if (name === 'reuters') out.push(reuters());
    // the held-out articles bench:quality does not ask (a check of what was chosen on the first 800)
    else if (name === 'reuters-rest') out.push(reuters(Infinity, REUTERS_QUERIES));
    else {
      const m = /^debian-([a-z]+)(-en)?$/.exec(name);
      if (!m) throw new Error(`unknown corpus ${name}`);
      const twins = debianTwins(m[1]!, 1000, Number(process.env.BENCH_DEBIAN_MAX_DOCS ?? Infinity));
      out.push(m[2] ? twins.english : twins.translated);
    }
  }
  return out.map((s) => ({ ...s, test: s.test.slice(0, QUERIES) }));
}

/** The split with every text cut to its first `words` whitespace-separated words (shorter texts, same labels). */
function cutWords(split: CorpusSplit, words: number): CorpusSplit {
  const cut = (d: CorpusSplit['train'][number]) => ({ ...d, text: d.text.split(/\s+/).filter(Boolean).slice(0, words).join(' ') });
  return { ...split, name: `${split.name}-cut${words}`, train: split.train.map(cut), test: split.test.map(cut) };
}

const row = (cells: ReadonlyArray<string | number>): string =>
  `| ${cells.map((c) => (typeof c === 'number' && !Number.isInteger(c) ? c.toFixed(4) : String(c))).join(' | ')} |`;

/**
 * Label-free checks on the key's own documents (BENCH_CHECKS=1; issue 32, seventh session): 300 train documents
 * (an even sample) as queries against the other train documents, each whole and cut in two halves by words.
 * Prints, per method: the agreement of the two halves' top 10 (consistency), and the agreement with the dense top 10.
 */
function checks(split: CorpusSplit, e: Embedded, methods: Record<string, Reorder>): void {
  const sample = 300;
  const picked = Array.from({ length: sample }, (_x, i) => Math.floor((i * e.texts.train.length) / sample));
  const dim = e.model.dim;
  const halves = picked.map((r) => {
    const words = e.texts.train[r]!.split(/\s+/).filter(Boolean);
    const cut = Math.floor(words.length / 2);
    return [words.slice(0, cut).join(' '), words.slice(cut).join(' ')] as const;
  });
  const views: Record<string, string[]> = { whole: picked.map((r) => e.texts.train[r]!), first: halves.map((h) => h[0]), second: halves.map((h) => h[1]) };
  const results: Record<string, Record<string, number[][]>> = {};
  let density = 0;
  for (const [view, texts] of Object.entries(views)) {
    const test = embedBatch(e.model, texts);
    const ev: Embedded = { ...e, test };
    const candidates = picked.map((r, q) => {
      const query = test.vectors.subarray(q * dim, (q + 1) * dim);
      const rows = denseTopK(e.train.vectors, dim, query, MAX_CANDIDATES + 1).filter((x) => x !== r).slice(0, MAX_CANDIDATES);
      return { rows, dense: Float32Array.from(rows, (x) => dot(e.train.vectors, x * dim, query, dim)) };
    });
    if (view === 'whole') density = candidates.reduce((t, c) => t + c.dense.subarray(0, 10).reduce((a, b) => a + b, 0) / 10, 0) / sample;
    for (const [name, reorder] of Object.entries({ dense: denseOnly, ...methods })) {
      (results[name] ??= {})[view] = candidates.map((c, q) => reorder(ev, q, c, MAX_CANDIDATES));
    }
  }
  const overlap = (a: number[][], b: number[][]): number => a.reduce((t, x, i) => t + x.filter((y) => b[i]!.includes(y)).length / 10, 0) / a.length;
  console.log(`checks ${split.name}: dense density (mean cos of the 10 nearest) ${density.toFixed(4)}`);
  for (const [name, r] of Object.entries(results)) {
    console.log(`checks ${split.name}: ${name}: halves agree ${overlap(r.first!, r.second!).toFixed(4)}; whole vs dense ${overlap(r.whole!, results.dense!.whole!).toFixed(4)}; ` +
      `half → whole ${((overlap(r.first!, r.whole!) + overlap(r.second!, r.whole!)) / 2).toFixed(4)}`);
  }
}

async function main(): Promise<void> {
  const names = (process.env.BENCH_CORPORA ?? ['20ng', 'reuters', ...DEBIAN_LANGUAGES.flatMap((l) => [`debian-${l}`, `debian-${l}-en`])].join(','))
    .split(',').filter(Boolean);
  console.log(`## second stage by candidate count (bench/second-stage.ts) — ${new Date().toISOString()}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}`);
  for (const split of splitsOf(names)) {
    const started = performance.now();
    const chosen = embed(split, {});
    const shape = chosen.model.shape!;
    if (process.env.BENCH_CHECKS === '1') {
      checks(split, chosen, { service: secondStage(), fusion: VARIANT_REORDERS['RRF: second stage + LSA only (share 1)']! });
      continue;
    }
    const candidates = candidatesOf(chosen, MAX_CANDIDATES);
    const baselines: Array<[string, number]> = BASELINES ? [['TF-IDF', await tfidfBaseline(split)]] : [['none', 0]];
    for (const dim of BASELINES ? LSA_DIMS : []) {
      const e = embed(split, { dim });
      baselines.push([`LSA-${dim}`, measure(split, e, candidatesOf(e, 10), 10, denseOnly).precision]);
    }
    const best = Math.max(...baselines.map(([, p]) => p));
    console.log('');
    console.log(`### ${split.name} (${split.label}): ${split.train.length} train, ${split.test.length} queries; shape d${shape.dim}, ` +
      `${shape.secondStage ? 'second stage' : 'dense only'} (median ${shape.check?.medianTerms ?? '?'} terms)`);
    console.log('');
    console.log(row(['baselines', ...baselines.map(([n, p]) => `${n} ${p.toFixed(4)}`)]));
    console.log('');
    console.log(row(['method', 'candidates', 'P@10', '− best baseline', 'p50 CPU ms/query', 'Δ vs the first row ± its standard error (paired)']));
    console.log(row(['---', '---', '---', '---', '---', '---']));
    // the first row reported with the model's own ranking (the second stage at its count, or dense only) is the paired baseline
    let modelHits: Uint8Array | undefined;
    const report = (name: string, n: number, reorder: Reorder, e: Embedded = chosen, c: Candidates[] = candidates): void => {
      const m = measure(split, e, c, n, reorder);
      modelHits ??= m.hits;
      const d = pairedDifference(m.hits, modelHits);
      console.log(row([name, n, m.precision, `${m.precision >= best ? '+' : ''}${(m.precision - best).toFixed(4)}`, m.p50.toFixed(2),
        `${d.mean >= 0 ? '+' : ''}${d.mean.toFixed(4)} ± ${d.se.toFixed(4)}`]));
    };
    report('dense only', 10, denseOnly);
    for (const n of CANDIDATES) report('second stage (model weights)', n, secondStage());
    const docOnly = process.env.BENCH_DOC;
    if (docOnly && docOnly !== '0') {
      const n = Math.max(...VARIANT_CANDIDATES);
      modelHits = undefined;
      report('model ranking (the paired baseline below)', n, modelRanking);
      for (const [name, reorder] of Object.entries(SNN_REORDERS)) if (new RegExp(docOnly).test(name)) report(name, n, reorder);
      for (const [name, transform] of Object.entries(DOC_VARIANTS)) {
        if (!new RegExp(docOnly).test(name)) continue;
        const e: Embedded = { ...chosen, train: { ...chosen.train, ...transform(chosen) } };
        const c = candidatesOf(e, n);
        report(`${name}: dense only`, 10, denseOnly, e, c);
        if (shape.secondStage) report(`${name}: second stage`, n, secondStage(), e, c);
        if (shape.secondStage) for (const [weights, change] of Object.entries(WEIGHT_VARIANTS)) report(`${name}: second stage, ${weights}`, n, secondStage(change), e, c);
      }
    } else if (VARIANTS) {
      for (const [name, b] of Object.entries(VARIANT_BLENDS)) if (ONLY.test(name)) for (const n of VARIANT_CANDIDATES) report(name, n, blended(b));
      for (const [name, reorder] of Object.entries(VARIANT_REORDERS)) if (ONLY.test(name)) for (const n of VARIANT_CANDIDATES) report(name, n, reorder);
      for (const [name, change] of Object.entries(WEIGHT_VARIANTS)) for (const n of VARIANT_CANDIDATES) report(`weights ${name}`, n, secondStage(change));
      for (const [name, { center, ...options }] of Object.entries(MODEL_VARIANTS)) {
        if (!ONLY.test(name)) continue;
        const fitted = embed(split, options);
        const e = center ? centred(fitted) : fitted;
        const c = candidatesOf(e, Math.max(...VARIANT_CANDIDATES));
        report(`${name}: dense only`, 10, denseOnly, e, c);
        console.log(row([`${name}: shape`, `d${e.model.dim}`, e.model.shape?.secondStage ? 'second stage' : 'dense only', `fit ${e.model.shape?.check?.fitMs ?? '?'} ms`, '']));
        // BENCH_DENSE_ONLY_KEYS=1: no second stage for models the check made dense only; =all: for none
        if (process.env.BENCH_DENSE_ONLY_KEYS === 'all' || (!e.model.shape?.secondStage && process.env.BENCH_DENSE_ONLY_KEYS === '1')) continue;
        for (const n of VARIANT_CANDIDATES) report(`${name}: second stage`, n, secondStage(), e, c);
        // BENCH_MODEL_REORDERS='<regex>': these VARIANT_REORDERS on the model variant instead of the two below
        const also = process.env.BENCH_MODEL_REORDERS;
        if (also && also !== '0') {
          for (const [reorderName, reorder] of Object.entries(VARIANT_REORDERS)) {
            if (new RegExp(also).test(reorderName)) for (const n of VARIANT_CANDIDATES) report(`${name}: ${reorderName}`, n, reorder, e, c);
          }
          continue;
        }
        if (also === '0') continue;
        for (const n of VARIANT_CANDIDATES) report(`${name}: LSA only, μ 2`, n, blended(VARIANT_BLENDS['LSA only, μ 2']!), e, c);
        for (const n of VARIANT_CANDIDATES) report(`${name}: alpha-QE (k 20, α 3), μ 2`, n, alphaQueryExpansion(20, 3, 2), e, c);
      }
    }
    console.error(`${split.name}: ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
