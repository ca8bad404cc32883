import type { HybridModel } from './model';
import { isRecord } from '../../domain';
import { HYBRID_MODEL_FORMAT } from './model';

/**
 * Binary layout: "KNDHYB01" | u32 header length | JSON header | padding to 8 | arrays (each 8-byte aligned).
 * Arrays come back in SharedArrayBuffers so worker threads can read a loaded model without copies.
 */
const MAGIC = Buffer.from('KNDHYB01', 'ascii');

type Dtype = 'f32' | 'f64' | 'i32';
type AnyArray = Float32Array | Float64Array | Int32Array;

interface ArrayEntry {
  name: string;
  dtype: Dtype;
  offset: number;
  length: number;
}

function dtypeOf(a: AnyArray): Dtype {
  if (a instanceof Float32Array) return 'f32';
  if (a instanceof Float64Array) return 'f64';
  return 'i32';
}

function align8(n: number): number {
  return (n + 7) & ~7;
}

export function serialiseModel(model: HybridModel): Buffer {
  const arrays: Array<[string, AnyArray]> = [
    ['userFactors', model.userFactors],
    ['itemFactors', model.itemFactors],
    ['itemGram', model.itemGram],
    ['userItems.indptr', model.userItems.indptr],
    ['userItems.indices', model.userItems.indices],
    ['userItems.data', model.userItems.data],
    ['itemCounts', model.itemCounts],
    ['itemItem', model.itemItem],
  ];
  if (model.contentMap) arrays.push(['contentMap.weights', model.contentMap.weights]);
  const entries: ArrayEntry[] = [];
  let offset = 0;
  for (const [name, a] of arrays) {
    entries.push({ name, dtype: dtypeOf(a), offset, length: a.length });
    offset = align8(offset + a.byteLength);
  }
  const header = {
    format: model.format,
    trainedAt: model.trainedAt,
    params: model.params,
    userIds: model.userIds,
    itemIds: model.itemIds,
    k: model.k,
    userItems: { rows: model.userItems.rows, cols: model.userItems.cols },
    contentMap: model.contentMap ? { dim: model.contentMap.dim, k: model.contentMap.k } : null,
    metrics: model.metrics,
    arrays: entries,
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const dataStart = align8(MAGIC.length + 4 + json.length);
  const out = Buffer.alloc(dataStart + offset);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(json.length, MAGIC.length);
  json.copy(out, MAGIC.length + 4);
  arrays.forEach(([, a], j) => {
    Buffer.from(a.buffer, a.byteOffset, a.byteLength).copy(out, dataStart + entries[j].offset);
  });
  return out;
}

function readArray(buf: Buffer, base: number, e: ArrayEntry): AnyArray {
  const bytes = e.length * (e.dtype === 'f64' ? 8 : 4);
  const sab = new SharedArrayBuffer(bytes);
  new Uint8Array(sab).set(buf.subarray(base + e.offset, base + e.offset + bytes));
  if (e.dtype === 'f32') return new Float32Array(sab);
  if (e.dtype === 'f64') return new Float64Array(sab);
  return new Int32Array(sab);
}

export function deserialiseModel(buf: Buffer): HybridModel {
  if (buf.length < MAGIC.length + 4 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error('not a Kindred hybrid model');
  const len = buf.readUInt32LE(MAGIC.length);
  const parsed: unknown = JSON.parse(buf.subarray(MAGIC.length + 4, MAGIC.length + 4 + len).toString('utf8'));
  if (!isRecord(parsed) || parsed.format !== HYBRID_MODEL_FORMAT || !Array.isArray(parsed.arrays)) {
    throw new Error('unsupported hybrid model format');
  }
  const h = parsed as unknown as {
    format: number;
    trainedAt: string;
    params: HybridModel['params'];
    userIds: string[];
    itemIds: string[];
    k: number;
    userItems: { rows: number; cols: number };
    contentMap: { dim: number; k: number } | null;
    metrics: Record<string, number>;
    arrays: ArrayEntry[];
  };
  const base = align8(MAGIC.length + 4 + len);
  const get = <T extends AnyArray>(name: string, ctor: new (...args: never[]) => T): T => {
    const e = h.arrays.find((a) => a.name === name);
    if (!e) throw new Error(`model array ${name} missing`);
    const a = readArray(buf, base, e);
    if (!(a instanceof ctor)) throw new Error(`model array ${name} has the wrong type`);
    return a;
  };
  // models written before frequency-scaled regularisation existed used the plain penalty
  const params = { ...h.params, als: { ...h.params.als, regExponent: h.params.als.regExponent ?? 0 } };
  return {
    format: h.format,
    trainedAt: h.trainedAt,
    params,
    userIds: h.userIds,
    itemIds: h.itemIds,
    k: h.k,
    userFactors: get('userFactors', Float32Array),
    itemFactors: get('itemFactors', Float32Array),
    itemGram: get('itemGram', Float64Array),
    userItems: {
      rows: h.userItems.rows,
      cols: h.userItems.cols,
      indptr: get('userItems.indptr', Int32Array),
      indices: get('userItems.indices', Int32Array),
      data: get('userItems.data', Float32Array),
    },
    itemCounts: get('itemCounts', Float32Array),
    itemItem: get('itemItem', Float32Array),
    contentMap: h.contentMap ? { dim: h.contentMap.dim, k: h.contentMap.k, weights: get('contentMap.weights', Float32Array) } : null,
    metrics: h.metrics,
  };
}
