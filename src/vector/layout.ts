import { KERNEL_RESERVED_BYTES } from './kernel';

export const PAGE_BYTES = 65536;
export const MAX_PAGES = 65536; // wasm32: 4 GiB
const ALIGN = 64;
/** Bitmaps are sized for the row cap up front, so a lower default keeps small indexes small. */
const DEFAULT_MAX_ROWS = 1 << 22;

const align = (n: number, to: number): number => Math.ceil(n / to) * to;

export interface LayoutOptions {
  dim: number;
  /** Largest k a search may ask for. */
  kMax: number;
  /** Most shards one search is split into. */
  shardsMax: number;
  /** Searches that may hold a scratch slot at once; more wait for a free slot. */
  slots: number;
  /** Searches with a per-query row mask that may run at once. */
  maskSlots: number;
  /** Largest allow-list computed directly (no scan). */
  directMax: number;
  /** Most queries one batched scan serves. */
  batchMax: number;
  /** Upper bound on rows (default 4,194,304; lowered to what fits in 4 GiB). */
  maxRows?: number;
}

/**
 * Byte layout of the shared memory, bottom up:
 * kernel stack | search slots (query + per-shard top-k outputs) | alive bitmap |
 * mask slots (per-query row bitmaps) | vector rows (grow at the end of memory).
 */
export interface Layout {
  dim: number;
  /** Floats between row starts (dim rounded up to a multiple of 4, zero padded). */
  stride: number;
  kMax: number;
  shardsMax: number;
  directMax: number;
  slotsBase: number;
  slotBytes: number;
  slotCount: number;
  batchMax: number;
  /** Offsets inside a slot. */
  slotQuery: number;
  slotOut: number;
  /** (score, row) pairs the slot's output area holds. */
  outPairs: number;
  /** Batch descriptors: per shard, batchMax records of 4 int32 then batchMax int32 sizes. */
  slotDesc: number;
  descBytesPerShard: number;
  aliveBase: number;
  maskBase: number;
  maskBytes: number;
  maskCount: number;
  vectorsBase: number;
  maxRows: number;
}

export function computeLayout(o: LayoutOptions): Layout {
  if (!Number.isInteger(o.dim) || o.dim <= 0) throw new RangeError('dim must be a positive integer');
  const stride = align(o.dim, 4);
  const slotQuery = 0;
  const slotOut = align(stride * 4, ALIGN);
  const outBytes = Math.max(o.shardsMax * o.kMax * 8, o.directMax * 8);
  const slotDesc = align(slotOut + outBytes, ALIGN);
  const descBytesPerShard = align(o.batchMax * 20, ALIGN);
  const slotBytes = align(slotDesc + o.shardsMax * descBytesPerShard, ALIGN);
  const slotsBase = KERNEL_RESERVED_BYTES;
  const fixed = slotsBase + o.slots * slotBytes;
  const rowBytes = stride * 4;
  const total = MAX_PAGES * PAGE_BYTES;
  // bitmaps (alive + masks) need (1 + maskSlots) bits per row
  let maxRows = Math.floor((total - fixed - 2 * PAGE_BYTES) / (rowBytes + (1 + o.maskSlots) / 8));
  maxRows = Math.min(maxRows, o.maxRows ?? DEFAULT_MAX_ROWS);
  maxRows = Math.floor(maxRows / 32) * 32;
  const maskBytes = align((maxRows / 32) * 4, ALIGN);
  const aliveBase = fixed;
  const maskBase = aliveBase + maskBytes;
  const vectorsBase = align(maskBase + o.maskSlots * maskBytes, PAGE_BYTES);
  return {
    dim: o.dim, stride, kMax: o.kMax, shardsMax: o.shardsMax, directMax: o.directMax, batchMax: o.batchMax,
    slotsBase, slotBytes, slotCount: o.slots, slotQuery, slotOut, outPairs: outBytes / 8, slotDesc, descBytesPerShard,
    aliveBase, maskBase, maskBytes, maskCount: o.maskSlots,
    vectorsBase, maxRows,
  };
}

/** Pages needed to hold `rows` rows. */
export function pagesFor(layout: Layout, rows: number): number {
  return Math.ceil((layout.vectorsBase + rows * layout.stride * 4) / PAGE_BYTES);
}
