import { addRowsInto, dotsInto } from './scoring-kernel';
import { topK } from './topk';

/** Weights of the blended components; each component is standardised per query before weighting. */
export interface BlendWeights {
  /** ALS factor score (user . item), or factor cosine for item-to-item. */
  factor: number;
  /** EASE item-item score (sum of B rows of the seed items). */
  itemItem: number;
  /** Cosine between the seeds' mean content vector and the candidate's. */
  content: number;
  /** log(1 + interaction count). */
  popularity: number;
}

/** Index-level arrays the scorer reads; SharedArrayBuffer-backed in a server so workers can score without copies. */
export interface ServingArrays {
  k: number;
  /** Items the factor model was trained on: indices [0, nTrained). Cold items follow. */
  nTrained: number;
  nItems: number;
  /** nItems x k (cold items' factors mapped from content). */
  itemFactors: Float32Array;
  /** L2 norm of each item factor row. */
  itemNorms: Float32Array;
  /** log(1 + interactions) per item; 0 for cold items. */
  popularity: Float32Array;
  /** EASE weights, nTrained x nTrained, or empty when not built. */
  itemItem: Float32Array;
  /** nItems x contentDim content vectors (L2-normalised), or empty. */
  content: Float32Array;
  contentDim: number;
  /** 1 where the item has a content vector. */
  hasContent: Uint8Array;
}

export interface RankQuery {
  /** Personalising user vector (trained or folded in), length k. */
  userVector?: Float32Array;
  /** Items the query is built from: the user's interactions (user mode) or the query documents (items mode). */
  seeds: Int32Array;
  mode: 'user' | 'items';
  /** Items never returned (seen items, the exclude list, query documents). */
  skip: Int32Array;
  /** When given, only these items are ranked (select_from). */
  candidates?: Int32Array;
  number: number;
  weights: BlendWeights;
}

export interface RankResult {
  indices: Int32Array;
  scores: Float32Array;
}

/** Adds w * standardised(values) into out over the candidate positions; NaN values count as average (0). */
function addStandardised(out: Float64Array, values: Float64Array, w: number, count: number): void {
  if (w === 0) return;
  let n = 0;
  let sum = 0;
  let sq = 0;
  for (let q = 0; q < count; q++) {
    const v = values[q];
    if (v !== v) continue;
    n++;
    sum += v;
    sq += v * v;
  }
  if (n < 2) return;
  const mean = sum / n;
  const sd = Math.sqrt(Math.max(0, sq / n - mean * mean));
  if (!(sd > 1e-12)) return;
  const f = w / sd;
  for (let q = 0; q < count; q++) {
    const v = values[q];
    if (v === v) out[q] += (v - mean) * f;
  }
}

/** Scores candidates with the blend and returns the best `number`, best first. */
export function rank(s: ServingArrays, query: RankQuery): RankResult {
  const cand = query.candidates ?? identity(s.nItems);
  const count = cand.length;
  const skipMask = new Uint8Array(count);
  if (query.skip.length > 0) {
    const skipSet = new Uint8Array(s.nItems);
    for (const i of query.skip) if (i >= 0 && i < s.nItems) skipSet[i] = 1;
    for (let q = 0; q < count; q++) skipMask[q] = skipSet[cand[q]];
  }
  const total = new Float64Array(count);
  const buf = new Float64Array(count);
  const k = s.k;
  const w = query.weights;
  const seeds = query.seeds;

  if (query.userVector && w.factor !== 0) {
    dotsInto(buf, Float64Array.from(query.userVector), s.itemFactors, k, cand, count);
    addStandardised(total, buf, w.factor, count);
  }

  if (query.mode === 'items' && seeds.length > 0 && w.factor !== 0) {
    // cosine to the mean of the seeds' normalised factors
    const centre = new Float64Array(k);
    for (const sd of seeds) {
      const norm = s.itemNorms[sd] || 1;
      for (let a = 0; a < k; a++) centre[a] += s.itemFactors[sd * k + a] / norm;
    }
    let cn = 0;
    for (let a = 0; a < k; a++) cn += centre[a] * centre[a];
    cn = Math.sqrt(cn) || 1;
    dotsInto(buf, centre, s.itemFactors, k, cand, count);
    for (let q = 0; q < count; q++) buf[q] = buf[q] / (cn * (s.itemNorms[cand[q]] || 1));
    addStandardised(total, buf, w.factor, count);
  }

  const nt = s.nTrained;
  const itemItem = s.itemItem;
  if (itemItem.length > 0 && w.itemItem !== 0 && seeds.length > 0) {
    if (seeds.some((sd) => sd < nt)) {
      buf.fill(0);
      addRowsInto(buf, itemItem, nt, seeds, cand, count);
      for (let q = 0; q < count; q++) if (cand[q] >= nt) buf[q] = NaN;
      addStandardised(total, buf, w.itemItem, count);
    }
  }

  if (s.content.length > 0 && w.content !== 0 && seeds.length > 0) {
    const dim = s.contentDim;
    const profile = new Float64Array(dim);
    let used = 0;
    for (const sd of seeds) {
      if (!s.hasContent[sd]) continue;
      used++;
      for (let a = 0; a < dim; a++) profile[a] += s.content[sd * dim + a];
    }
    if (used > 0) {
      let pn = 0;
      for (let a = 0; a < dim; a++) pn += profile[a] * profile[a];
      pn = Math.sqrt(pn) || 1;
      dotsInto(buf, profile, s.content, dim, cand, count);
      for (let q = 0; q < count; q++) buf[q] = s.hasContent[cand[q]] ? buf[q] / pn : NaN;
      addStandardised(total, buf, w.content, count);
    }
  }

  const personalised = Boolean(query.userVector) || seeds.length > 0;
  if (!personalised) {
    // nothing known about the query: plain popularity (raw log-count as the score)
    for (let q = 0; q < count; q++) total[q] = s.popularity[cand[q]];
  } else if (w.popularity !== 0) {
    for (let q = 0; q < count; q++) buf[q] = s.popularity[cand[q]];
    addStandardised(total, buf, w.popularity, count);
  }

  const best = topK(total, query.number, skipMask);
  const indices = new Int32Array(best.length);
  const scores = new Float32Array(best.length);
  for (let j = 0; j < best.length; j++) {
    indices[j] = cand[best[j]];
    scores[j] = total[best[j]];
  }
  return { indices, scores };
}

function identity(n: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}
