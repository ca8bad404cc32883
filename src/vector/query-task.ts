import type { SerializedModel } from '../embedding/serialize';
import type { SparseSpans } from '../embedding/rerank';
import { denseCentroid, sparseCentroid } from '../embedding/centroid';
import { unpackSparse, type SparseVector } from '../embedding/sparse';
import { descendingBits, POSITION_RANGE } from './rank';
import type { SharedApproximate } from './approximate';
import type { FaissSearchResult, StoreRows } from './faiss-addon';
import { i32View } from './views';
import { scoreRowsInto } from './dense-kernel';
import type { KernelExports } from './kernel';
import { packTermsOf, termSpansOf, type SharedTerms } from './sparse-rows';

/**
 * One content query, answered whole by a pool thread (docs/decisions/throughput.md): the search over the key's
 * shared vectors (a scan, or the re-scoring of a shortlist the approximate index gave), then, with a second stage,
 * the candidates' terms and vectors read where they are and reranked. The event loop sends the query and gets the
 * best rows back.
 */
export interface QueryTask {
  /** Process-unique number of the vector store: a thread keeps its kernel instance over the memory under it. */
  store: number;
  memory: WebAssembly.Memory;
  dim: number;
  stride: number;
  vectorsBase: number;
  aliveBase: number;
  /** The scratch slot the caller holds for this query: where the query is written and results land. */
  queryAt: number;
  outAt: number;
  /** (score, row) pairs the output area holds. */
  outPairs: number;
  /** Rows [0, count) are scanned. */
  count: number;
  /**
   * The query, L2-normalised (dim floats); or texts the thread embeds with the model (see `Embed`); or rows whose
   * normalised mean is the query.
   */
  vector?: Float32Array;
  embed?: { model: SerializedModel; texts: string[] };
  centroidOf?: Int32Array;
  /** Rows never returned. */
  excludeRows: Int32Array;
  /** Byte offset of a row bitmap restricting the scan (0: none). */
  mask: number;
  /** Rows to score instead of scanning (an approximate index's shortlist, a short allow-list). */
  shortlist?: Int32Array;
  /** Or the approximate index this thread searches for the shortlist. */
  approximate?: ApproximateSearch;
  /** Results wanted. */
  k: number;
  /** Largest k the scan's output area holds. */
  kMax: number;
  second?: SecondStage;
}

/**
 * The TF-IDF second stage: `candidates` best dense hits rescored against the query's terms: the normalised sum of
 * the stored terms of `queryRows` (stored documents), or of the terms of `texts`.
 */
export interface SecondStage {
  /** The key's model (shared bytes). */
  model: SerializedModel;
  texts?: string[];
  queryRows?: Int32Array;
  terms: SharedTerms;
  candidates: number;
}

/** Rows, best first, and their scores. */
export interface QueryResult {
  rows: Int32Array;
  scores: Float32Array;
}

/** What the second stage needs of the model, supplied by the thread (its model cache, the analysis chain). */
export type Rerank = (
  second: SecondStage,
  candidates: { terms: SparseSpans; dense: Float32Array; denseFeedbackOf: (positions: readonly number[]) => Float32Array },
  queryTerms?: SparseVector,
) => Float32Array;

/** The thread's embedding of query texts: their normalised centroid and, for a second stage, their terms. */
export type Embed = (model: SerializedModel, texts: string[]) => { vector: Float32Array; terms?: SparseVector };

/** What the thread supplies: the model-dependent stages, and its way into the approximate index (the FAISS addon). */
export interface QueryStages {
  rerank: Rerank;
  embed: Embed;
  searchShared: (handle: number, query: Float32Array, k: number, nprobe: number, rows: StoreRows) => FaissSearchResult | null;
}

/** An approximate index searched by the pool thread: `fetch` labels at `nprobe`, scored exactly (by the search itself when `index.scoresRows`). */
export interface ApproximateSearch {
  index: SharedApproximate;
  fetch: number;
  nprobe: number;
  /** Rows of documents written since the index last took changes: scored whatever it says. */
  extraRows: Int32Array;
  /** Rows the query may return: fewer results than min(k, eligible) means a scan instead. */
  eligible: number;
}

/** An empty answer of its own (answers' buffers are transferred, which detaches them). */
function nothing(): QueryResult {
  return { rows: new Int32Array(0), scores: new Float32Array(0) };
}

const NONE: ReadonlySet<number> = new Set();

/** Returned beyond k at most, for ties at the k-th score (the caller orders ties by id). */
const TIE_MARGIN = 32;

export function answerQuery(task: QueryTask, kernel: KernelExports, stages: QueryStages): QueryResult {
  const f32 = new Float32Array(task.memory.buffer);
  let vector = task.vector;
  let textTerms: SparseVector | undefined;
  if (!vector) {
    if (task.centroidOf) {
      const at = (row: number): number => (task.vectorsBase >> 2) + row * task.stride;
      vector = denseCentroid(Array.from(task.centroidOf, (row) => f32.subarray(at(row), at(row) + task.dim)), task.dim);
    } else {
      const embedded = stages.embed(task.embed!.model, task.embed!.texts);
      vector = embedded.vector;
      textTerms = embedded.terms;
    }
    // No known word, documents that cancel out: every score would tie.
    if (vector.every((x) => x === 0)) return nothing();
  }
  f32.set(vector, task.queryAt >> 2);
  if (task.stride > task.dim) f32.fill(0, (task.queryAt >> 2) + task.dim, (task.queryAt >> 2) + task.stride);
  const wanted = task.second ? Math.max(task.k, task.second.candidates) : task.k;
  const excluded = new Set<number>(task.excludeRows);
  const found = task.shortlist ? scoreRows(task, task.shortlist) : task.approximate && approximateShortlist(task, task.approximate, vector, stages);
  // Without a second stage the best k (and ties) in order; with one its candidates, in no order (it ranks them).
  const choose = (rows: Int32Array, scores: Float32Array): Uint32Array =>
    task.second ? bestOf(rows, scores, excluded, wanted) : bestFirst(rows, scores, excluded, task.k + TIE_MARGIN);
  let { rows, scores } = found || scan(task, kernel, wanted, excluded.size);
  let top = choose(rows, scores);
  if (task.approximate && top.length < Math.min(task.k, task.approximate.eligible)) {
    // Too few results (lists the probes barely cover, a key mostly excluded): answer exactly instead.
    ({ rows, scores } = scan(task, kernel, wanted, excluded.size));
    top = choose(rows, scores);
  }
  if (!task.second) return withTies(rows, scores, top, task.k);
  const candidateRows = pick(rows, top, new Int32Array(top.length));
  const { spans, present } = termSpansOf(task.second.terms, candidateRows);
  const presentRows = pick(candidateRows, present, new Int32Array(present.length));
  const dense = new Float32Array(present.length);
  for (let i = 0; i < present.length; i++) dense[i] = scores[top[present[i]!]!]!;
  // Dense feedback where the vectors are: the feedback documents' mean written as the slot's query, every candidate
  // scored against it by the kernel (no candidate vector copied).
  const denseFeedbackOf = (positions: readonly number[]): Float32Array => {
    const at = task.queryAt >> 2;
    f32.fill(0, at, at + task.stride);
    for (const p of positions) {
      const from = (task.vectorsBase >> 2) + presentRows[p]! * task.stride;
      for (let j = 0; j < task.dim; j++) f32[at + j]! += f32[from + j]! / positions.length;
    }
    return scoreRows(task, presentRows).scores;
  };
  const queryTerms = task.second.queryRows ? storedQueryTerms(task.second.terms, task.second.queryRows) : textTerms;
  const reranked = stages.rerank(task.second, { terms: spans, dense, denseFeedbackOf }, queryTerms);
  return withTies(presentRows, reranked, bestFirst(presentRows, reranked, NONE, task.k + TIE_MARGIN), task.k);
}

/** out[i] = values[positions[i]] (a loop: TypedArray.from with a mapping function was a tenth of a pool thread). */
function pick<T extends Int32Array | Float32Array>(values: T, positions: ArrayLike<number>, out: T): T {
  for (let i = 0; i < positions.length; i++) out[i] = values[positions[i]!]!;
  return out;
}

/** Rows and their scores for the query. */
interface Scored {
  rows: Int32Array;
  scores: Float32Array;
}

/** Exact scores of `rows` for the query in the task's slot. */
function scoreRows(task: QueryTask, rows: Int32Array): Scored {
  const f32 = new Float32Array(task.memory.buffer);
  const vectors = f32.subarray(task.vectorsBase >> 2, (task.vectorsBase >> 2) + task.count * task.stride);
  const scores = new Float32Array(rows.length);
  scoreRowsInto(vectors, task.stride, rows, f32.subarray(task.queryAt >> 2, (task.queryAt >> 2) + task.stride), scores);
  return { rows, scores };
}

/** The top `wanted` (plus the excluded, which the scan cannot skip without a mask) of every live row. */
function scan(task: QueryTask, kernel: KernelExports, wanted: number, excluded: number): { rows: Int32Array; scores: Float32Array } {
  const kScan = Math.min(task.kMax, wanted + (task.mask ? 0 : excluded));
  const scoresAt = task.outAt;
  const rowsAt = task.outAt + task.outPairs * 4;
  const n = kernel.kv_topk(task.vectorsBase, task.stride, 0, task.count, task.queryAt, task.aliveBase, task.mask, kScan, task.outPairs, scoresAt, rowsAt);
  return { rows: new Int32Array(task.memory.buffer, rowsAt, n).slice(), scores: new Float32Array(task.memory.buffer, scoresAt, n).slice() };
}

/**
 * Rows seen by this thread's current query, as that query's stamp by row: a row listed twice (under a stale label
 * and a fresh one, or once more among the rows written since) is kept once, without a Set per query.
 */
const seen = { stamps: new Uint32Array(0), stamp: 0 };

function startSightings(rows: number): void {
  if (seen.stamps.length < rows) seen.stamps = new Uint32Array(Math.max(rows, Math.ceil(seen.stamps.length * 1.5)));
  if (++seen.stamp === 2 ** 32) {
    seen.stamps.fill(0);
    seen.stamp = 1;
  }
}

/** Whether `row` is seen for the first time by the current query (and marks it seen). */
function firstSighting(row: number): boolean {
  if (seen.stamps[row] === seen.stamp) return false;
  seen.stamps[row] = seen.stamp;
  return true;
}

/**
 * The approximate index's shortlist, searched on this thread, scored: its labels as live rows, with the rows it does
 * not reflect yet (read your writes). The index's own scores are kept when they are the rows' exact ones.
 * Undefined when the index was closed meanwhile (the caller scans).
 */
function approximateShortlist(task: QueryTask, search: ApproximateSearch, vector: Float32Array, stages: QueryStages): Scored | undefined {
  const labelRow = i32View(search.index.labelRows);
  const vectors = new Float32Array(task.memory.buffer, task.vectorsBase, task.count * task.stride);
  const found = stages.searchShared(search.index.handle, vector, search.fetch, search.nprobe, { vectors, stride: task.stride, labelRows: labelRow });
  if (!found) return undefined;
  const alive = new Uint32Array(task.memory.buffer, task.aliveBase, Math.ceil(task.count / 32));
  startSightings(task.count);
  const written = scoreRows(task, search.extraRows.filter(firstSighting));
  const listed = written.rows.length + found.labels.length;
  const rows = new Int32Array(listed);
  const scores = new Float32Array(listed);
  rows.set(written.rows);
  scores.set(written.scores);
  let n = written.rows.length;
  // Labels read as two 32-bit words (little endian): reading the int64s would make a BigInt each.
  const words = new Int32Array(found.labels.buffer, found.labels.byteOffset, found.labels.length * 2);
  for (let i = 0; i < found.labels.length; i++) {
    const high = words[2 * i + 1]!;
    const label = high === 0 ? words[2 * i]! >>> 0 : high < 0 ? -1 : (words[2 * i]! >>> 0) + high * 2 ** 32;
    const row = label > 0 && label < labelRow.length ? labelRow[label]! - 1 : -1;
    if (row < 0 || row >= task.count || (alive[row >> 5]! & (1 << (row & 31))) === 0 || !firstSighting(row)) continue;
    rows[n] = row;
    scores[n++] = found.distances[i]!;
  }
  // FAISS's own scores (an index that is not IVF): the listed rows scored here, the written ones already are
  if (!search.index.scoresRows) scores.set(scoreRows(task, rows.subarray(written.rows.length, n)).scores, written.rows.length);
  return { rows: rows.subarray(0, n), scores: scores.subarray(0, n) };
}

/** The query's terms from stored documents: one's terms as stored, several's normalised sum (as their texts' would be). */
function storedQueryTerms(terms: SharedTerms, rows: Int32Array): SparseVector {
  const { packed } = packTermsOf(terms, rows);
  if (rows.length === 1) return { ids: packed.ids, weights: packed.weights };
  return sparseCentroid(unpackSparse(packed));
}

/**
 * Positions of `rows` not excluded, the `limit` best (all when fewer), by score descending, ties by position (the
 * caller orders ties by id): numbers sorted without a comparator (score bits above position), as rankDescending does.
 */
function bestFirst(rows: Int32Array, scores: Float32Array, excluded: ReadonlySet<number>, limit: number): Uint32Array {
  const keys = sortKeys(rows, scores, excluded);
  const n = Math.min(keys.length, limit);
  if (n < keys.length) smallestFirst(keys, keys.length, n);
  const sorted = keys.subarray(0, n).sort();
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = sorted[i]! % POSITION_RANGE;
  return order;
}

/**
 * Positions of `rows` not excluded, the `limit` best (all when fewer) in no order: a second stage's candidates, which
 * it ranks itself (sorting 800 of them was 7–8 % of a pool thread's time: docs/decisions/throughput.md).
 */
function bestOf(rows: Int32Array, scores: Float32Array, excluded: ReadonlySet<number>, limit: number): Uint32Array {
  const positions = new Uint32Array(rows.length);
  let n = 0;
  for (let i = 0; i < rows.length; i++) if (excluded.size === 0 || !excluded.has(rows[i]!)) positions[n++] = i;
  if (n <= limit) return positions.subarray(0, n);
  const keys = sortKeys(rows, scores, excluded);
  smallestFirst(keys, keys.length, limit);
  for (let i = 0; i < limit; i++) positions[i] = keys[i]! % POSITION_RANGE;
  return positions.subarray(0, limit);
}

/** A key per position not excluded: the score's bits above the position (the best score: the smallest key). */
function sortKeys(rows: Int32Array, scores: Float32Array, excluded: ReadonlySet<number>): Float64Array {
  const keys = new Float64Array(rows.length);
  let n = 0;
  for (let i = 0; i < rows.length; i++) if (excluded.size === 0 || !excluded.has(rows[i]!)) keys[n++] = descendingBits(scores[i]!) * POSITION_RANGE + i;
  return keys.subarray(0, n);
}

/**
 * Moves the `limit` smallest of keys[0, n) (distinct numbers) to the front, in no order (quickselect): sorting 800
 * reranked candidates to keep ten was a twentieth of a pool thread.
 */
function smallestFirst(keys: Float64Array, n: number, limit: number): void {
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const pivot = keys[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (keys[i]! < pivot) i++;
      while (keys[j]! > pivot) j--;
      if (i <= j) {
        const t = keys[i]!;
        keys[i++] = keys[j]!;
        keys[j--] = t;
      }
    }
    if (limit - 1 <= j) hi = j;
    else if (limit - 1 >= i) lo = i;
    else break;
  }
}

/** The first k of `order`, and those after it that tie with the k-th (up to TIE_MARGIN). */
function withTies(rows: Int32Array, scores: Float32Array, order: Uint32Array, k: number): QueryResult {
  let n = Math.min(k, order.length);
  if (n > 0) {
    const last = scores[order[n - 1]!]!;
    while (n < order.length && n < k + TIE_MARGIN && scores[order[n]!] === last) n++;
  }
  return {
    rows: Int32Array.from(order.subarray(0, n), (i) => rows[i]!),
    scores: Float32Array.from(order.subarray(0, n), (i) => scores[i]!),
  };
}
