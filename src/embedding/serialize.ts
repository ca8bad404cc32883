import crypto from 'node:crypto';
import { MODEL_FORMAT_VERSION, shapeBySize, type EmbeddingModel, type LsaModel, type ModelShape } from './model';
import { Vocabulary } from './vocabulary';

/**
 * A model as bytes: what is persisted and shipped to workers. Built on a SharedArrayBuffer, so posting it to a
 * worker shares the memory instead of copying tens of MB per task.
 *
 * Layout: "KEMB" | u32 format version | u32 header length | header JSON (utf8) | pad to 8 | typed arrays in header order.
 * Version 3 holds the vocabulary as arrays (`Vocabulary`: read in place by every thread); version 2, still read,
 * held its terms as UTF-8 joined by '\n', from which each thread decoding it builds a vocabulary of its own.
 */
export type SerializedModel = Uint8Array;

const MAGIC = 'KEMB';

type ArrayType = 'f32' | 'u32' | 'u16';
type ModelArray = Float32Array<ArrayBufferLike> | Uint32Array<ArrayBufferLike> | Uint16Array<ArrayBufferLike>;

function arrayOn(type: ArrayType, buffer: ArrayBufferLike, byteOffset: number, length: number): ModelArray {
  switch (type) {
    case 'f32': return new Float32Array(buffer, byteOffset, length);
    case 'u32': return new Uint32Array(buffer, byteOffset, length);
    case 'u16': return new Uint16Array(buffer, byteOffset, length);
  }
}

const BYTES_PER_ELEMENT: Record<ArrayType, number> = { f32: 4, u32: 4, u16: 2 };

interface ArrayEntry {
  name: 'idf' | 'projection' | 'singularValues' | 'termChars' | 'termStarts' | 'termSlots';
  length: number;
  /** absent: f32 (version 2) */
  type?: ArrayType;
}

/** Versions this build reads. */
const READABLE_VERSIONS = new Set([2, MODEL_FORMAT_VERSION]);

interface Header {
  kind: EmbeddingModel['kind'];
  id: string;
  dim: number;
  sifA?: number;
  fittedDocs?: number;
  language?: string;
  /** issue 32: the shape chosen at fit time (absent: the size rule) */
  shape?: ModelShape;
  terms?: number;
  termsBytes?: number;
  arrays: ArrayEntry[];
}

const align8 = (n: number): number => Math.ceil(n / 8) * 8;

/** Content hash used as the model id: same fitted numbers → same id, so caches can key on it. */
export function contentId(kind: string, parts: ReadonlyArray<ArrayBufferView | string>): string {
  const h = crypto.createHash('sha256');
  h.update(`${kind}/${MODEL_FORMAT_VERSION}`);
  for (const p of parts) h.update(typeof p === 'string' ? p : new Uint8Array(p.buffer, p.byteOffset, p.byteLength));
  return `${kind}-v${MODEL_FORMAT_VERSION}-${h.digest('hex').slice(0, 16)}`;
}

export function serializeModel(model: EmbeddingModel): SerializedModel {
  const header: Header = { kind: model.kind, id: model.id, dim: model.dim, arrays: [] };
  const arrays: ModelArray[] = [];
  if (model.kind === 'word-vectors') {
    header.sifA = model.sifA;
  } else {
    header.fittedDocs = model.fittedDocs;
    header.language = model.language;
    if (model.shape) header.shape = model.shape;
    header.terms = model.vocabulary.size;
    const { chars, starts, slots } = model.vocabulary.arrays;
    const named = [['idf', model.idf, 'f32'], ['projection', model.projection, 'f32'], ['singularValues', model.singularValues, 'f32'],
      ['termChars', chars, 'u16'], ['termStarts', starts, 'u32'], ['termSlots', slots, 'u32']] as const;
    for (const [name, array, type] of named) {
      header.arrays.push({ name, length: array.length, type });
      arrays.push(array);
    }
  }
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  let size = align8(12 + headerBytes.length);
  const arrayOffsets = arrays.map((a) => {
    const at = size;
    size = align8(size + a.byteLength);
    return at;
  });
  const out = new Uint8Array(new SharedArrayBuffer(size));
  const view = new DataView(out.buffer);
  out.set(Buffer.from(MAGIC, 'latin1'), 0);
  view.setUint32(4, MODEL_FORMAT_VERSION, true);
  view.setUint32(8, headerBytes.length, true);
  out.set(headerBytes, 12);
  arrays.forEach((a, i) => out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), arrayOffsets[i]!));
  return out;
}

/**
 * Model bytes on shared memory, copying only if needed. Call once on bytes read back from storage (a plain Buffer):
 * bytes that are not shared would be copied into every worker task (tens of MB each).
 */
export function sharedModelBytes(bytes: Uint8Array): SerializedModel {
  if (bytes.buffer instanceof SharedArrayBuffer) return bytes;
  const out = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  out.set(bytes);
  return out;
}

function isHeader(value: unknown): value is Header {
  if (typeof value !== 'object' || value === null) return false;
  const h = value as Record<string, unknown>;
  return (h.kind === 'lsa' || h.kind === 'word-vectors') && typeof h.id === 'string' && typeof h.dim === 'number' && Array.isArray(h.arrays);
}

/** What a model's header tells without decoding its arrays. */
export interface ModelInfo {
  kind: EmbeddingModel['kind'];
  id: string;
  dim: number;
  version: number;
  fittedDocs: number;
  /** how queries use it: chosen by the key's check at fit time, or the size rule for older models */
  shape: ModelShape;
}

/** Reads a model header without decoding the vocabulary (cheap: for ids, dims, logs). */
export function modelInfo(bytes: SerializedModel): ModelInfo {
  const { header, version } = readHeader(bytes);
  const fittedDocs = header.fittedDocs ?? 0;
  return { kind: header.kind, id: header.id, dim: header.dim, version, fittedDocs, shape: header.shape ?? shapeBySize(header.kind, header.dim, fittedDocs) };
}

/**
 * The bytes that identify a model (its format and header: id, dimensions, shape), read in place: comparing them
 * tells a model already decoded without parsing its header (a pool thread sees the same model on every query).
 */
export function identityBytes(bytes: SerializedModel): Buffer {
  const headerLength = bytes.byteLength >= 12 ? new DataView(bytes.buffer, bytes.byteOffset, 12).getUint32(8, true) : 0;
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 12 + headerLength));
}

function readHeader(bytes: SerializedModel): { header: Header; version: number; headerEnd: number } {
  if (bytes.byteLength < 12 || Buffer.from(bytes.buffer, bytes.byteOffset, 4).toString('latin1') !== MAGIC) {
    throw new Error('not a serialized embedding model');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(4, true);
  if (!READABLE_VERSIONS.has(version)) throw new Error(`embedding model format ${version} is not supported (expected ${MODEL_FORMAT_VERSION})`);
  const headerLength = view.getUint32(8, true);
  const parsed: unknown = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + 12, headerLength).toString('utf8'));
  if (!isHeader(parsed)) throw new Error('corrupt embedding model header');
  return { header: parsed, version, headerEnd: 12 + headerLength };
}

/** Decodes a model; typed arrays are views on `bytes` when they are aligned (no copy), copies otherwise. */
export function deserializeModel(bytes: SerializedModel): EmbeddingModel {
  const { header, headerEnd } = readHeader(bytes);
  if (header.kind === 'word-vectors') {
    return { kind: 'word-vectors', id: header.id, dim: header.dim, sifA: header.sifA ?? 1e-3 };
  }
  let at = align8(headerEnd);
  // Version 2: the terms as UTF-8 before the arrays (its header always names their length, 0 for none).
  const termsBytes = header.termsBytes ?? 0;
  const terms = header.termsBytes === undefined ? undefined
    : termsBytes > 0 ? Buffer.from(bytes.buffer, bytes.byteOffset + at, termsBytes).toString('utf8').split('\n') : [];
  at = align8(at + termsBytes);
  const arrays = new Map<ArrayEntry['name'], ModelArray>();
  for (const entry of header.arrays) {
    const type = entry.type ?? 'f32';
    const byteLength = entry.length * BYTES_PER_ELEMENT[type];
    if (at + byteLength > bytes.byteLength) throw new Error('truncated embedding model');
    const offset = bytes.byteOffset + at;
    arrays.set(entry.name, offset % BYTES_PER_ELEMENT[type] === 0
      ? arrayOn(type, bytes.buffer, offset, entry.length)
      : arrayOn(type, new Uint8Array(bytes.subarray(at, at + byteLength)).buffer, 0, entry.length)); // copy (Buffer#slice would not)
    at = align8(at + byteLength);
  }
  const idf = arrays.get('idf');
  const projection = arrays.get('projection');
  const singularValues = arrays.get('singularValues');
  const chars = arrays.get('termChars');
  const starts = arrays.get('termStarts');
  const slots = arrays.get('termSlots');
  const vocabulary = terms ? Vocabulary.build(terms, false)
    : chars instanceof Uint16Array && starts instanceof Uint32Array && slots instanceof Uint32Array ? new Vocabulary({ chars, starts, slots }) : undefined;
  const size = header.terms ?? 0;
  if (!(idf instanceof Float32Array) || !(projection instanceof Float32Array) || !(singularValues instanceof Float32Array) || !vocabulary
    || vocabulary.size !== size || idf.length !== size || projection.length !== size * header.dim) {
    throw new Error('corrupt embedding model arrays');
  }
  const model: LsaModel = {
    kind: 'lsa', id: header.id, dim: header.dim, vocabulary, idf, projection, singularValues,
    fittedDocs: header.fittedDocs ?? 0, language: header.language ?? 'und', shape: header.shape ?? shapeBySize('lsa', header.dim, header.fittedDocs ?? 0),
  };
  return model;
}
