import type { TaskRunner } from '../als/executor';
import { rowRegularization, solveRowDirect } from '../als/kernels';
import { mapContent } from './content-map';
import type { HybridModel } from './model';
import { rank, type BlendWeights, type RankQuery, type RankResult, type ServingArrays } from './scoring';
import type { ContentVectors } from './train';

export interface ScoredId {
  id: string;
  score: number;
}

export interface Restrictions {
  number: number;
  /** Only these document ids may be returned. */
  selectFrom?: string[];
  /** These document ids are never returned. */
  exclude?: string[];
}

export interface UserRecommendationRequest extends Restrictions {
  userId?: string;
  /** The user's current preferences (document ids); folded in when the model has not seen all of them. */
  preferences?: string[];
  /** Default true: leave out documents the user has interacted with. */
  unseenOnly?: boolean;
}

export interface SimilarRequest extends Restrictions {
  documentIds: string[];
  userId?: string;
  preferences?: string[];
  unseenOnly?: boolean;
}

export interface HybridAnswer {
  results: ScoredId[];
  /** Whether the model (or the attached content) knows each entity: the `recognised` flags of the responses. */
  recognisedDocuments: Array<{ id: string; recognised: boolean }>;
  recognisedUser?: { id: string; recognised: boolean };
}

export interface RecommenderOptions {
  /** Pool whose `als` task module scores in a worker thread; inline scoring when absent. */
  runner?: TaskRunner;
  /** Score in a worker when items x k exceeds this (default 20,000: ~0.1 ms of inline work). */
  workerThreshold?: number;
  weights?: BlendWeights;
}

function sharedF32(n: number): Float32Array {
  return new Float32Array(new SharedArrayBuffer(n * 4));
}

/** The array itself when already shared, else a shared copy (posting a plain array to a worker would copy it per query). */
function shared(a: Float32Array): Float32Array {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const out = sharedF32(a.length);
  out.set(a);
  return out;
}

/**
 * Serves one trained model (or none: content + popularity only). Immutable once content is attached: to swap models
 * build a new recommender and replace the reference.
 */
export class HybridRecommender {
  private arrays: ServingArrays;
  private itemIds: string[];
  private itemIndex = new Map<string, number>();
  private userIndex = new Map<string, number>();
  private readonly weights: BlendWeights;

  constructor(readonly model: HybridModel | null, private readonly options: RecommenderOptions = {}) {
    this.weights = options.weights ?? model?.params.weights ?? { factor: 1, itemItem: 1, content: 1, popularity: 0 };
    model?.userIds.forEach((id, u) => this.userIndex.set(id, u));
    this.itemIds = model ? [...model.itemIds] : [];
    this.itemIds.forEach((id, i) => this.itemIndex.set(id, i));
    this.arrays = this.buildArrays(undefined);
  }

  /**
   * Registers content vectors for documents: trained documents gain a content component; documents the model never
   * saw become cold-start candidates with factors mapped from their content.
   */
  attachContent(content: ContentVectors): void {
    for (const id of content.ids) {
      if (!this.itemIndex.has(id)) {
        this.itemIndex.set(id, this.itemIds.length);
        this.itemIds.push(id);
      }
    }
    this.arrays = this.buildArrays(content);
  }

  /** Replaces the popularity counts (e.g. live preference counts from storage) by document id. */
  setPopularity(counts: Map<string, number>): void {
    const pop = sharedF32(this.itemIds.length);
    for (const [id, c] of counts) {
      const i = this.itemIndex.get(id);
      if (i !== undefined) pop[i] = Math.log1p(Math.max(0, c));
    }
    this.arrays = { ...this.arrays, popularity: pop };
  }

  knowsUser(id: string): boolean {
    return this.userIndex.has(id);
  }

  knowsDocument(id: string): boolean {
    const i = this.itemIndex.get(id);
    return i !== undefined && (i < this.arrays.nTrained || this.arrays.hasContent[i] === 1);
  }

  private buildArrays(content: ContentVectors | undefined): ServingArrays {
    const m = this.model;
    const k = m?.k ?? 0;
    const nTrained = m?.itemIds.length ?? 0;
    const nItems = this.itemIds.length;
    const itemFactors = sharedF32(nItems * k);
    if (m) itemFactors.set(m.itemFactors);
    const popularity = sharedF32(nItems);
    if (m) for (let i = 0; i < nTrained; i++) popularity[i] = Math.log1p(m.itemCounts[i]);
    const dim = content?.dim ?? 0;
    const contentArr = content ? sharedF32(nItems * dim) : new Float32Array(0);
    const hasContent = new Uint8Array(new SharedArrayBuffer(Math.max(1, nItems)));
    if (content) {
      content.ids.forEach((id, r) => {
        const i = this.itemIndex.get(id);
        if (i === undefined) return;
        contentArr.set(content.vectors.subarray(r * dim, (r + 1) * dim), i * dim);
        hasContent[i] = 1;
        if (i >= nTrained && m?.contentMap && m.contentMap.dim === dim) {
          mapContent(m.contentMap, content.vectors.subarray(r * dim, (r + 1) * dim), itemFactors, i * k);
        }
      });
    }
    const itemNorms = sharedF32(nItems);
    for (let i = 0; i < nItems; i++) {
      let s = 0;
      for (let a = 0; a < k; a++) s += itemFactors[i * k + a] * itemFactors[i * k + a];
      itemNorms[i] = Math.sqrt(s);
    }
    return { k, nTrained, nItems, itemFactors, itemNorms, popularity, itemItem: shared(m?.itemItem ?? new Float32Array(0)), content: contentArr, contentDim: dim, hasContent };
  }

  /** Least-squares user vector for a set of interacted documents against the fixed item factors. */
  foldIn(documentIds: string[]): Float32Array | undefined {
    const m = this.model;
    if (!m) return undefined;
    const cols = this.trainedIndices(documentIds);
    if (cols.length === 0) return undefined;
    const conf = new Float64Array(cols.length).fill(m.params.als.alpha);
    const als = m.params.als;
    const gram = Float64Array.from(m.itemGram);
    const lambda = rowRegularization(als.regularization, als.regExponent, cols.length);
    for (let a = 0; a < m.k; a++) gram[a * m.k + a] += lambda;
    return Float32Array.from(solveRowDirect(m.itemFactors, m.k, gram, cols, conf));
  }

  private trainedIndices(ids: string[]): number[] {
    const out: number[] = [];
    const seen = new Set<number>();
    for (const id of ids) {
      const i = this.itemIndex.get(id);
      if (i !== undefined && i < this.arrays.nTrained && !seen.has(i)) {
        seen.add(i);
        out.push(i);
      }
    }
    return out;
  }

  private indicesOf(ids: string[] | undefined): number[] {
    const out: number[] = [];
    for (const id of ids ?? []) {
      const i = this.itemIndex.get(id);
      if (i !== undefined) out.push(i);
    }
    return out;
  }

  /** The user's vector and interacted items: trained factors, or a fold-in when preferences hold unseen items. */
  private userContext(userId: string | undefined, preferences: string[] | undefined): { vector?: Float32Array; seen: number[] } {
    const m = this.model;
    const seen = new Set<number>(this.indicesOf(preferences));
    const u = userId !== undefined ? this.userIndex.get(userId) : undefined;
    let trainedRow: Set<number> | undefined;
    if (m && u !== undefined) {
      trainedRow = new Set<number>();
      for (let e = m.userItems.indptr[u]; e < m.userItems.indptr[u + 1]; e++) trainedRow.add(m.userItems.indices[e]);
      if (!preferences) for (const i of trainedRow) seen.add(i);
    }
    if (!m) return { seen: [...seen] };
    const allTrained = trainedRow !== undefined && [...seen].every((i) => i >= this.arrays.nTrained || trainedRow.has(i));
    if (u !== undefined && allTrained) return { vector: m.userFactors.subarray(u * m.k, (u + 1) * m.k), seen: [...seen] };
    const vector = this.foldIn(this.itemIds.filter((_, i) => seen.has(i)));
    return { vector, seen: [...seen] };
  }

  private candidates(selectFrom: string[] | undefined): Int32Array | undefined {
    return selectFrom ? Int32Array.from(this.indicesOf(selectFrom)) : undefined;
  }

  private async run(query: RankQuery): Promise<ScoredId[]> {
    const a = this.arrays;
    const threshold = this.options.workerThreshold ?? 20_000;
    let res: RankResult;
    if (this.options.runner && a.nItems * Math.max(1, a.k) > threshold) {
      res = await this.options.runner.run<RankResult>('als', { op: 'rank', arrays: a, query });
    } else {
      res = rank(a, query);
    }
    return Array.from(res.indices, (i, j) => ({ id: this.itemIds[i], score: res.scores[j] }));
  }

  /** GET /users/:id/recommendations with use_hybrid: factors + item-item + content + popularity; popularity alone for a user with nothing. */
  async recommendForUser(req: UserRecommendationRequest): Promise<HybridAnswer> {
    const ctx = this.userContext(req.userId, req.preferences);
    const skip = [...this.indicesOf(req.exclude), ...(req.unseenOnly === false ? [] : ctx.seen)];
    const results = await this.run({
      userVector: ctx.vector,
      seeds: Int32Array.from(ctx.seen),
      mode: 'user',
      skip: Int32Array.from(skip),
      candidates: this.candidates(req.selectFrom),
      number: req.number,
      weights: this.weights,
    });
    return {
      results,
      recognisedDocuments: [],
      recognisedUser: req.userId !== undefined ? { id: req.userId, recognised: this.knowsUser(req.userId) } : undefined,
    };
  }

  /** Similar documents to one or several documents, optionally personalised for a user. */
  async similarToDocuments(req: SimilarRequest): Promise<HybridAnswer> {
    const seeds = this.indicesOf(req.documentIds);
    const ctx = req.userId !== undefined || req.preferences ? this.userContext(req.userId, req.preferences) : { seen: [] as number[] };
    const skip = [...seeds, ...this.indicesOf(req.exclude), ...(req.unseenOnly === false ? [] : ctx.seen)];
    const results = await this.run({
      userVector: ctx.vector,
      seeds: Int32Array.from(seeds),
      mode: 'items',
      skip: Int32Array.from(skip),
      candidates: this.candidates(req.selectFrom),
      number: req.number,
      weights: this.weights,
    });
    return {
      results,
      recognisedDocuments: req.documentIds.map((id) => ({ id, recognised: this.knowsDocument(id) })),
      recognisedUser: req.userId !== undefined ? { id: req.userId, recognised: this.knowsUser(req.userId) } : undefined,
    };
  }

  /** GET /documents/popular: documents by log(1 + interactions), highest first. */
  async popular(req: Restrictions): Promise<ScoredId[]> {
    return this.run({
      seeds: new Int32Array(0),
      mode: 'user',
      skip: Int32Array.from(this.indicesOf(req.exclude)),
      candidates: this.candidates(req.selectFrom),
      number: req.number,
      weights: this.weights,
    });
  }
}
