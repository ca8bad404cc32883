/**
 * 20 Newsgroups retrieval quality (issue 3): corpus = train split, queries = test split texts, header block
 * stripped; precision@10 = share of the top-10 corpus documents with the query's newsgroup.
 *
 * Rankers are swappable: `Ranker` takes the corpus once and returns the top-k corpus ids for query texts. This
 * file ranks with the pure embedding module; an HTTP ranker (POST documents, then /documents/similar-to-text)
 * can replace it without touching the protocol.
 *
 *   npm run bench:quality [-- --limit 2000] [-- --candidates 200] [-- --threads 2]
 *                         [-- --corpus-size 1000] [-- --word-vectors | --lsa]   (force a model; default: by size)
 *                         [-- --dim 128]   (LSA dimensions; default: lsaDimensions of the corpus size)
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { WorkerPool } from '../src/pool';
import {
  embedBatch, embedTextsDetailed, fitModelSync, loadWordVectors, rankByScore, rerankCandidates, serializeModel,
  type FitOptions, type RerankOptions,
  type SparseVector,
} from '../src/embedding';
import { packSparse, tfidfVector, type TermStatistics } from '../src/embedding/sparse';
import { words } from '../src/text';

const DATA_DIR = process.env.NEWSGROUPS_DIR ?? path.join(__dirname, '..', '..', '..', 'shared', 'data', '20newsgroups');

export interface LabelledDoc {
  id: string;
  label: string;
  text: string;
}

export interface Ranker {
  readonly name: string;
  index(corpus: readonly LabelledDoc[]): Promise<void>;
  /** for each query text, the ids of the k most similar corpus documents, best first */
  topK(queries: readonly string[], k: number): Promise<string[][]>;
}

function stripHeaderBlock(raw: string): string {
  const i = raw.indexOf('\n\n');
  return i < 0 ? '' : raw.slice(i + 2);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

export function loadSplit(split: 'train' | 'test'): LabelledDoc[] {
  const file = path.join(DATA_DIR, `20newsgroups-bydate-${split}.jsonl.gz`);
  const lines = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').split('\n');
  const docs: LabelledDoc[] = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    const o: unknown = JSON.parse(line);
    if (!isRecord(o) || typeof o.id !== 'string' || typeof o.label !== 'string' || typeof o.text !== 'string') throw new Error(`bad line in ${file}`);
    docs.push({ id: o.id, label: o.label, text: stripHeaderBlock(o.text) });
  }
  return docs;
}

/** The `count` rows nearest `query` by dense score, best first, with their scores and their rows (a second stage's input). */
export function denseCandidates(vectors: Float32Array, dim: number, query: Float32Array, count: number): Candidates {
  const rows = denseTopK(vectors, dim, query, count);
  const dense = Float32Array.from(rows, (r) => {
    let s = 0;
    for (let j = 0; j < dim; j++) s += vectors[r * dim + j]! * query[j]!;
    return s;
  });
  const candidateVectors = new Float32Array(rows.length * dim);
  rows.forEach((r, c) => candidateVectors.set(vectors.subarray(r * dim, (r + 1) * dim), c * dim));
  return { rows, dense, vectors: candidateVectors };
}

/** Exact top-k of `query · rows` (rows of `dim`) by a plain typed-array loop. */
export function denseTopK(rows: Float32Array, dim: number, query: Float32Array, k: number): number[] {
  const n = rows.length / dim;
  const bestIdx = new Int32Array(k).fill(-1);
  const bestVal = new Float32Array(k).fill(-Infinity);
  for (let r = 0; r < n; r++) {
    let s = 0;
    const o = r * dim;
    for (let j = 0; j < dim; j++) s += rows[o + j]! * query[j]!;
    if (s <= bestVal[k - 1]!) continue;
    let p = k - 1;
    while (p > 0 && bestVal[p - 1]! < s) {
      bestVal[p] = bestVal[p - 1]!;
      bestIdx[p] = bestIdx[p - 1]!;
      p--;
    }
    bestVal[p] = s;
    bestIdx[p] = r;
  }
  return Array.from(bestIdx).filter((i) => i >= 0);
}

/** Plain TF-IDF cosine baseline: unstemmed words, sublinear tf, idf, min df 2, exact via an inverted index. */
export class TfidfBaselineRanker implements Ranker {
  readonly name = 'TF-IDF cosine (baseline)';
  private stats: TermStatistics = { vocabulary: new Map(), idf: new Float32Array(0) };
  private ids: string[] = [];
  private postingRows: Uint32Array[] = [];
  private postingWeights: Float32Array[] = [];

  async index(corpus: readonly LabelledDoc[]): Promise<void> {
    const docs = corpus.map((d) => words(d.text));
    const df = new Map<string, number>();
    for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
    const terms = [...df].filter(([, n]) => n >= 2).map(([t]) => t);
    const vocabulary = new Map(terms.map((t, i) => [t, i] as const));
    const idf = Float32Array.from(terms, (t) => Math.log((1 + docs.length) / (1 + df.get(t)!)) + 1);
    this.stats = { vocabulary, idf };
    this.ids = corpus.map((d) => d.id);
    const vectors = docs.map((d) => tfidfVector(this.stats, d));
    const counts = new Uint32Array(terms.length);
    for (const v of vectors) for (const id of v.ids) counts[id]!++;
    this.postingRows = Array.from(counts, (n) => new Uint32Array(n));
    this.postingWeights = Array.from(counts, (n) => new Float32Array(n));
    counts.fill(0);
    vectors.forEach((v, row) => {
      for (let k = 0; k < v.ids.length; k++) {
        const id = v.ids[k]!;
        this.postingRows[id]![counts[id]!] = row;
        this.postingWeights[id]![counts[id]!++] = v.weights[k]!;
      }
    });
  }

  async topK(queries: readonly string[], k: number): Promise<string[][]> {
    const scores = new Float32Array(this.ids.length);
    return queries.map((q) => {
      scores.fill(0);
      const v = tfidfVector(this.stats, words(q));
      for (let i = 0; i < v.ids.length; i++) {
        const w = v.weights[i]!;
        const rows = this.postingRows[v.ids[i]!]!;
        const weights = this.postingWeights[v.ids[i]!]!;
        for (let p = 0; p < rows.length; p++) scores[rows[p]!]! += w * weights[p]!;
      }
      return topOfArray(scores, k).map((r) => this.ids[r]!);
    });
  }
}

/** Indices of the k largest scores, best first (partial selection, ties by lower index). */
function topOfArray(scores: Float32Array, k: number): number[] {
  const best: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i]!;
    if (best.length === k && s <= scores[best[k - 1]!]!) continue;
    let p = best.length < k ? best.length : k - 1;
    best[p] = i;
    while (p > 0 && scores[best[p - 1]!]! < s) {
      best[p] = best[p - 1]!;
      best[p - 1] = i;
      p--;
    }
  }
  return best;
}

export interface Candidates {
  rows: number[];
  dense: Float32Array;
  /** the candidates' dense vectors, rows in candidate order */
  vectors: Float32Array;
}

/** Shared by the embedding rankers: fit on the corpus, embed it in the worker pool, dense top-N per query. */
export class EmbeddingPipeline {
  readonly figures: Record<string, number> = {};
  modelId = '';
  ids: string[] = [];
  private vectors: Float32Array = new Float32Array(0);
  private sparse: SparseVector[] = [];
  private pool: WorkerPool | undefined;
  private bytes: Uint8Array | undefined;
  private cached: { queries: readonly string[]; candidates: Candidates[]; sparse: SparseVector[] } | undefined;

  constructor(readonly candidateCount: number, private readonly threads: number, private readonly fitOptions: FitOptions = {}) {}

  async index(corpus: readonly LabelledDoc[]): Promise<void> {
    if (this.bytes) return;
    const texts = corpus.map((d) => d.text);
    let t = performance.now();
    const fitCpu = process.cpuUsage();
    const model = fitModelSync(texts, this.fitOptions);
    this.figures.fitSeconds = (performance.now() - t) / 1000;
    const fitUsage = process.cpuUsage(fitCpu);
    this.figures.fitCpuSeconds = (fitUsage.user + fitUsage.system) / 1e6;
    this.bytes = serializeModel(model);
    this.modelId = model.id;
    this.figures.modelMB = this.bytes.byteLength / 1e6;
    this.figures.dim = model.dim;
    const cpuSeconds = (from: NodeJS.CpuUsage): number => {
      const u = process.cpuUsage(from);
      return (u.user + u.system) / 1e6;
    };
    t = performance.now();
    let cpu = process.cpuUsage();
    const single = embedBatch(model, texts, model.kind === 'word-vectors' ? loadWordVectors() : undefined);
    this.figures.embedDocsPerSecond1Thread = texts.length / ((performance.now() - t) / 1000);
    this.figures.embedDocsPerCpuSecond1Thread = texts.length / cpuSeconds(cpu);
    this.pool = new WorkerPool({ threads: this.threads });
    await embedTextsDetailed(this.pool, this.bytes, texts.slice(0, 512)); // warm-up: each worker decodes the model once
    t = performance.now();
    cpu = process.cpuUsage(); // counts every thread of the process, workers included
    const pooled = await embedTextsDetailed(this.pool, this.bytes, texts);
    this.figures.embedDocsPerSecondPool = texts.length / ((performance.now() - t) / 1000);
    this.figures.embedDocsPerCpuSecondPool = texts.length / cpuSeconds(cpu);
    for (let i = 0; i < single.vectors.length; i++) {
      if (single.vectors[i] !== pooled.vectors[i]) throw new Error('worker embedding differs from in-process embedding');
    }
    this.ids = corpus.map((d) => d.id);
    this.vectors = pooled.vectors;
    this.sparse = pooled.sparse;
  }

  async candidates(queries: readonly string[]): Promise<{ candidates: Candidates[]; querySparse: SparseVector[]; corpusSparse: SparseVector[] }> {
    if (!this.pool || !this.bytes) throw new Error('index() first');
    if (this.cached?.queries !== queries) {
      const q = await embedTextsDetailed(this.pool, this.bytes, [...queries]);
      const dim = q.dim;
      const candidates = queries.map((_, i) => denseCandidates(this.vectors, dim, q.vectors.subarray(i * dim, (i + 1) * dim), this.candidateCount));
      this.cached = { queries, candidates, sparse: q.sparse };
    }
    return { candidates: this.cached.candidates, querySparse: this.cached.sparse, corpusSparse: this.sparse };
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }
}

export class DenseRanker implements Ranker {
  constructor(private readonly pipeline: EmbeddingPipeline, readonly name = 'embedding, dense only (exact top-10)') {}
  index(corpus: readonly LabelledDoc[]): Promise<void> {
    return this.pipeline.index(corpus);
  }
  async topK(queries: readonly string[], k: number): Promise<string[][]> {
    const { candidates } = await this.pipeline.candidates(queries);
    return candidates.map((c) => c.rows.slice(0, k).map((r) => this.pipeline.ids[r]!));
  }
}

export class RerankRanker implements Ranker {
  readonly name: string;
  /** milliseconds of second-stage work per query, from the last `topK` */
  latencies: number[] = [];
  constructor(private readonly pipeline: EmbeddingPipeline, private readonly options: RerankOptions & { useDense: boolean; useDenseFeedback?: boolean }) {
    const o = options;
    this.name = `embedding top-${pipeline.candidateCount} + rerank (m=${o.feedbackDocs ?? 3}, a=${o.feedbackWeight ?? 2}` +
      `${o.useDense ? `, λ=${o.denseWeight ?? 0.6}` : ', no dense'}${o.useDenseFeedback ? `, μ=${o.denseFeedbackWeight ?? 1}` : ''})`;
  }
  index(corpus: readonly LabelledDoc[]): Promise<void> {
    return this.pipeline.index(corpus);
  }
  async topK(queries: readonly string[], k: number): Promise<string[][]> {
    const { candidates, querySparse, corpusSparse } = await this.pipeline.candidates(queries);
    this.latencies = [];
    return candidates.map((c, i) => {
      const started = performance.now();
      const scores = rerankCandidates(querySparse[i]!, packSparse(c.rows.map((r) => corpusSparse[r]!)), {
        ...this.options,
        denseScores: this.options.useDense ? c.dense : undefined,
        candidateVectors: this.options.useDenseFeedback ? c.vectors : undefined,
      });
      const ranked = rankByScore(scores).slice(0, k).map((j) => this.pipeline.ids[c.rows[j]!]!);
      this.latencies.push(performance.now() - started);
      return ranked;
    });
  }
}

export function precisionAt(k: number, queries: readonly LabelledDoc[], results: string[][], labelOf: Map<string, string>): number {
  let hits = 0;
  queries.forEach((q, i) => {
    for (const id of results[i]!.slice(0, k)) if (labelOf.get(id) === q.label) hits++;
  });
  return hits / (queries.length * k);
}

function argValue(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

export function evenSample<T>(items: readonly T[], max: number): T[] {
  if (!(max < items.length)) return [...items];
  return Array.from({ length: max }, (_, i) => items[Math.floor((i * items.length) / max)]!);
}

async function main(): Promise<void> {
  // `BENCH_CORPORA` without 20ng (bench/quality-http.ts): this in-process 20NG half has nothing to add.
  if (process.env.BENCH_CORPORA && !process.env.BENCH_CORPORA.split(',').includes('20ng')) return;
  const limit = argValue('limit', Infinity);
  const candidates = argValue('candidates', 200);
  const threads = argValue('threads', 2);
  const corpus = evenSample(loadSplit('train'), argValue('corpus-size', Infinity));
  const model = process.argv.includes('--word-vectors') ? 'word-vectors' : process.argv.includes('--lsa') ? 'lsa' : 'auto';
  const dim = argValue('dim', NaN);
  const fitOptions: FitOptions = {
    ...(model === 'word-vectors' ? { minDocsForCorpusModel: Infinity } : model === 'lsa' ? { minDocsForCorpusModel: 0 } : {}),
    ...(Number.isFinite(dim) ? { dim } : {}),
  };
  const queries = evenSample(loadSplit('test'), limit);
  const labelOf = new Map(corpus.map((d) => [d.id, d.label] as const));
  console.log(`20NG: corpus ${corpus.length} train docs, ${queries.length} test queries, header block stripped`);

  const pipeline = new EmbeddingPipeline(candidates, threads, fitOptions);
  const rankers: Ranker[] = [
    new TfidfBaselineRanker(),
    new DenseRanker(pipeline),
    new RerankRanker(pipeline, { useDense: false }),
    new RerankRanker(pipeline, { useDense: true }),
    new RerankRanker(pipeline, { useDense: true, useDenseFeedback: true }),
    new RerankRanker(pipeline, { useDense: true, useDenseFeedback: true, denseWeight: 1, denseFeedbackWeight: 1 }),
  ];
  const texts = queries.map((q) => q.text);
  for (const ranker of rankers) {
    const t = performance.now();
    await ranker.index(corpus);
    const indexed = performance.now();
    const results = await ranker.topK(texts, 10);
    const done = performance.now();
    console.log(
      `${ranker.name.padEnd(60)} precision@10 ${precisionAt(10, queries, results, labelOf).toFixed(4)}` +
        `  (index ${((indexed - t) / 1000).toFixed(1)} s, queries ${((done - indexed) / 1000).toFixed(1)} s = ${((done - indexed) / queries.length).toFixed(2)} ms/query)`,
    );
    if (ranker instanceof RerankRanker) {
      const sorted = [...ranker.latencies].sort((a, b) => a - b);
      const at = (q: number): string => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(2);
      console.log(`${''.padEnd(60)} second stage per query: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`);
    }
  }
  const f = pipeline.figures;
  console.log(
    `model ${pipeline.modelId}: dim ${f.dim}, ${f.modelMB!.toFixed(1)} MB serialised; fit ${f.fitSeconds!.toFixed(1)} s on ${corpus.length} docs; ` +
      `embedding ${Math.round(f.embedDocsPerSecond1Thread!)} docs/s in-process, ${Math.round(f.embedDocsPerSecondPool!)} docs/s with ${threads} workers (wall clock)`,
  );
  console.log(
    `CPU time: fit ${f.fitCpuSeconds!.toFixed(1)} CPU-s; embedding ${Math.round(f.embedDocsPerCpuSecond1Thread!)} docs per CPU-second in-process, ` +
      `${Math.round(f.embedDocsPerCpuSecondPool!)} docs per CPU-second through the pool (all threads counted; ≈ docs/s per free core)`,
  );
  await pipeline.close();
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
