import fs from 'node:fs';
import { SharedVectorStore } from './shared-store';
import { MAX_TERM_ID } from '../embedding/sparse';

/*
 * Snapshot file: "KVIX" | u32 version (1) | u32 header bytes | header JSON | zero pad to
 * a multiple of 4 | rows × dim float32 (little endian), one row per header id.
 * header = { dim, ids: string[], meta, extra? }. Only live rows are written.
 */
const MAGIC = 'KVIX';
const VERSION = 1;
const CHUNK_ROWS = 8192;

export interface SnapshotHeader {
  dim: number;
  ids: string[];
  meta: unknown;
  /** Extra fields (e.g. the approximate index's label state), captured with the ids. */
  extra?: Record<string, unknown>;
}

/** Items a snapshot's long loops (ids listed, terms packed, labels looked up) handle between turns of the event loop. */
export const SNAPSHOT_SLICE = 1 << 16;

/** Lets the event loop run: a snapshot of a million rows takes seconds of work, done between requests. */
export const pauseForEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Writes the store's live rows to `file` (via a temporary file and rename). The ids are listed, and `extra` works,
 * between turns of the event loop: writes may land meanwhile (a restore catches up on what changed since the
 * snapshot began), and row numbers stay valid (compaction is blocked until the file is written).
 */
export async function writeSnapshot(
  store: SharedVectorStore, file: string, meta: unknown,
  extra?: (ids: string[], rows: readonly number[]) => Promise<Record<string, unknown>>,
): Promise<void> {
  const release = store.blockCompaction(); // row numbers below stay valid while we write
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const ids: string[] = [];
    const rows: number[] = [];
    // A Map's iteration survives changes: ids added meanwhile are listed, ids removed before their turn are not.
    for (const [id, row] of store.idRows()) {
      ids.push(id);
      rows.push(row);
      if (ids.length % SNAPSHOT_SLICE === 0) await pauseForEventLoop();
    }
    const header = Buffer.from(JSON.stringify({ dim: store.dim, ids, meta, extra: await extra?.(ids, rows) }), 'utf8');
    const pad = (4 - ((12 + header.length) % 4)) % 4;
    const head = Buffer.alloc(12 + header.length + pad);
    head.write(MAGIC, 0, 'latin1');
    head.writeUInt32LE(VERSION, 4);
    head.writeUInt32LE(header.length, 8);
    header.copy(head, 12);
    const fh = await fs.promises.open(tmp, 'w');
    try {
      await fh.write(head);
      const dim = store.dim;
      for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
        const n = Math.min(CHUNK_ROWS, rows.length - start);
        const chunk = new Float32Array(n * dim);
        const f32 = store.f32();
        for (let i = 0; i < n; i++) {
          const at = store.rowOffset(rows[start + i]) >> 2;
          chunk.set(f32.subarray(at, at + dim), i * dim);
        }
        await fh.write(new Uint8Array(chunk.buffer));
      }
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.promises.rename(tmp, file);
  } catch (err) {
    await fs.promises.rm(tmp, { force: true });
    throw err;
  } finally {
    release();
  }
}

/**
 * Reads a snapshot: its header, then consecutive blocks of rows, each read into the array `rowsInto` gives for
 * it (where the rows are to stay, when the caller has such a place: no copy) and then handed to `onRows`.
 */
export async function readSnapshot(
  file: string,
  onHeader: (header: SnapshotHeader) => void,
  rowsInto: (firstIndex: number, count: number) => Float32Array,
  onRows: (firstIndex: number, rows: Float32Array) => void,
): Promise<void> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const head = Buffer.alloc(12);
    await fh.read(head, 0, 12, 0);
    if (head.toString('latin1', 0, 4) !== MAGIC) throw new Error(`${file} is not a vector index snapshot`);
    const version = head.readUInt32LE(4);
    if (version !== VERSION) throw new Error(`${file}: unsupported snapshot version ${version}`);
    const headerBytes = head.readUInt32LE(8);
    const headerBuf = Buffer.alloc(headerBytes);
    await fh.read(headerBuf, 0, headerBytes, 12);
    const parsed: unknown = JSON.parse(headerBuf.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) throw new Error(`${file}: bad snapshot header`);
    const h = parsed as Record<string, unknown>;
    if (typeof h.dim !== 'number' || !Array.isArray(h.ids) || !h.ids.every((x): x is string => typeof x === 'string')) {
      throw new Error(`${file}: bad snapshot header`);
    }
    const extra = typeof h.extra === 'object' && h.extra !== null ? (h.extra as Record<string, unknown>) : undefined;
    const header: SnapshotHeader = { dim: h.dim, ids: h.ids, meta: h.meta, extra };
    onHeader(header);
    let pos = 12 + headerBytes + ((4 - ((12 + headerBytes) % 4)) % 4);
    const rowBytes = header.dim * 4;
    for (let start = 0; start < header.ids.length; start += CHUNK_ROWS) {
      const n = Math.min(CHUNK_ROWS, header.ids.length - start);
      const buf = rowsInto(start, n);
      if (buf.length !== n * header.dim) throw new RangeError(`room for ${buf.length} floats, ${n} rows need ${n * header.dim}`);
      const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
      let got = 0;
      while (got < bytes.length) {
        const { bytesRead } = await fh.read(bytes, got, bytes.length - got, pos + got);
        if (bytesRead === 0) throw new Error(`${file}: snapshot truncated`);
        got += bytesRead;
      }
      pos += n * rowBytes;
      onRows(start, buf);
    }
  } finally {
    await fh.close();
  }
}

/*
 * Terms file (beside a snapshot whose rows carry sparse vectors), row i of it for row i of the snapshot:
 * "KTRM" | u32 version (2) | u32 rows | u32 terms | offsets (rows + 1 × u32) | term ids (u16) | weights (f32) |
 * present (rows × u8: 0 for a row that had no vector). Version 1 held the ids as u32; it is still read.
 */
const TERMS_MAGIC = 'KTRM';
const TERMS_VERSION = 2;
const ID_BYTES: Record<number, number> = { 1: 4, 2: 2 };

/** Sparse rows as the key's term arrays hold them: 16-bit term ids (sparse-rows.ts). */
export interface PackedTerms {
  readonly offsets: Uint32Array;
  readonly ids: Uint16Array;
  readonly weights: Float32Array;
}

export interface TermsFile {
  packed: PackedTerms;
  present: Uint8Array;
}

export async function writeTermsFile(file: string, { packed, present }: TermsFile): Promise<void> {
  const rows = packed.offsets.length - 1;
  const head = Buffer.alloc(16);
  head.write(TERMS_MAGIC, 0, 'latin1');
  head.writeUInt32LE(TERMS_VERSION, 4);
  head.writeUInt32LE(rows, 8);
  head.writeUInt32LE(packed.ids.length, 12);
  const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const tmp = `${file}.${process.pid}.tmp`;
  const fh = await fs.promises.open(tmp, 'w');
  try {
    for (const part of [head, bytes(packed.offsets), bytes(packed.ids), bytes(packed.weights), present]) await fh.write(part);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fs.promises.rename(tmp, file);
}

/** Reads `length` bytes at `position` of an open file into `into`, all of them. */
async function readFully(fh: fs.promises.FileHandle, into: Uint8Array, position: number, file: string): Promise<void> {
  let got = 0;
  while (got < into.length) {
    const { bytesRead } = await fh.read(into, got, into.length - got, position + got);
    if (bytesRead === 0) throw new Error(`${file}: truncated terms file`);
    got += bytesRead;
  }
}

/**
 * A terms file whose ids and weights are read straight into arrays `allocate` gives for that many terms (a
 * SparseRows' shared buffers): a restored key does not hold its terms twice, once read and once copied.
 */
export async function readTermsFileInto(
  file: string, allocate: (terms: number) => { ids: Uint16Array; weights: Float32Array },
): Promise<TermsFile> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const { size } = await fh.stat();
    const head = Buffer.alloc(16);
    if (size < 16) throw new Error(`${file} is not a terms file`);
    await readFully(fh, head, 0, file);
    if (head.toString('latin1', 0, 4) !== TERMS_MAGIC) throw new Error(`${file} is not a terms file`);
    const version = head.readUInt32LE(4);
    const idBytes = ID_BYTES[version];
    if (idBytes === undefined) throw new Error(`${file}: unsupported terms file version ${version}`);
    const rows = head.readUInt32LE(8);
    const terms = head.readUInt32LE(12);
    if (size !== 16 + (rows + 1) * 4 + terms * (idBytes + 4) + rows) throw new Error(`${file}: truncated terms file`);
    const offsets = new Uint32Array(rows + 1);
    const { ids, weights } = allocate(terms);
    const present = new Uint8Array(rows);
    const bytes = (part: ArrayBufferView) => new Uint8Array(part.buffer, part.byteOffset, part.byteLength);
    let at = 16;
    await readFully(fh, bytes(offsets), at, file);
    at += offsets.byteLength;
    if (idBytes === 2) await readFully(fh, bytes(ids.subarray(0, terms)), at, file);
    else await readWideIds(fh, ids.subarray(0, terms), at, file);
    at += terms * idBytes;
    for (const part of [weights.subarray(0, terms), present]) {
      await readFully(fh, bytes(part), at, file);
      at += part.byteLength;
    }
    return { packed: { offsets, ids: ids.subarray(0, terms), weights: weights.subarray(0, terms) }, present };
  } finally {
    await fh.close();
  }
}

/** A version 1 file's 32-bit ids read into 16-bit ones, a slice at a time (never the whole file's ids twice). */
async function readWideIds(fh: fs.promises.FileHandle, into: Uint16Array, position: number, file: string): Promise<void> {
  const slice = new Uint32Array(1 << 16);
  for (let done = 0; done < into.length; done += slice.length) {
    const part = slice.subarray(0, Math.min(slice.length, into.length - done));
    await readFully(fh, new Uint8Array(part.buffer, 0, part.byteLength), position + done * 4, file);
    for (let i = 0; i < part.length; i++) {
      if (part[i]! > MAX_TERM_ID) throw new Error(`${file}: term id ${part[i]} does not fit 16 bits`);
      into[done + i] = part[i]!;
    }
  }
}

