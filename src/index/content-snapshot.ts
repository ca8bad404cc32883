import fs from 'node:fs';
import path from 'node:path';
import type { PackedSparse, SerializedModel } from '../embedding';
import { readWholeFile } from './whole-file';
import { VectorIndex, type VectorIndexOptions } from '../vector';

/** What a content snapshot records besides the vectors: which model made them, and when. */
export interface SnapshotMeta {
  modelId: string;
  fittedDocs: number;
  /** Writes before this instant are in the snapshot; later ones are caught up from storage. */
  savedAt: string;
}

export interface ContentSnapshot {
  model: Uint8Array;
  index: VectorIndex;
  meta: SnapshotMeta;
  /** Read from an older layout: worth writing again in the current one. */
  olderFormat?: boolean;
}

/** Terms of a snapshot written before they moved beside the vectors (a file of their own, by id). */
async function readTermsById(file: string): Promise<{ ids: string[]; packed: PackedSparse }> {
  const buf = await readWholeFile(file);
  const headerLength = buf.readUInt32LE(0);
  const header = JSON.parse(buf.subarray(4, 4 + headerLength).toString('utf8')) as { ids: string[]; rows: number; nnz: number };
  let at = 4 + headerLength;
  at += (4 - (at % 4)) % 4;
  const view = <T>(make: (buffer: ArrayBufferLike, offset: number, length: number) => T, length: number): T => {
    const out = make(buf.buffer, buf.byteOffset + at, length);
    at += length * 4;
    return out;
  };
  const offsets = view((b, o, n) => new Uint32Array(b, o, n), header.rows + 1);
  const ids = view((b, o, n) => new Uint32Array(b, o, n), header.nnz);
  const weights = view((b, o, n) => new Float32Array(b, o, n), header.nnz);
  return { ids: header.ids, packed: { offsets, ids, weights } };
}

const isComplete = (dir: string) => fs.existsSync(path.join(dir, 'vectors.snapshot'));

/**
 * Writes a tenant's content index (model, vectors with any FAISS index, TF-IDF terms) into a fresh
 * directory, then swaps it in by renames: the previous snapshot is moved aside (`.old`) before the new
 * one takes its place and removed only after, so a crash at any moment leaves a complete snapshot
 * (the new one, or the previous one in place or aside) for the next start.
 */
export async function saveContentSnapshot(dir: string, snapshot: ContentSnapshot): Promise<void> {
  const next = `${dir}.next`;
  const old = `${dir}.old`;
  await fs.promises.rm(next, { recursive: true, force: true });
  await fs.promises.mkdir(next, { recursive: true });
  await fs.promises.writeFile(path.join(next, 'model.bin'), snapshot.model);
  await snapshot.index.snapshot(path.join(next, 'vectors.snapshot'), snapshot.meta);
  if (isComplete(dir)) {
    await fs.promises.rm(old, { recursive: true, force: true });
    await fs.promises.rename(dir, old);
  } else {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
  await fs.promises.rename(next, dir);
  await fs.promises.rm(old, { recursive: true, force: true });
}

/** The last complete snapshot: in place, or moved aside by a save that a crash interrupted. */
export async function loadContentSnapshot(dir: string, options: VectorIndexOptions): Promise<ContentSnapshot | undefined> {
  if (!isComplete(dir)) {
    if (!isComplete(`${dir}.old`)) return undefined;
    dir = `${dir}.old`;
  }
  const modelBytes = await readWholeFile(path.join(dir, 'model.bin'));
  const model: SerializedModel = new Uint8Array(new SharedArrayBuffer(modelBytes.byteLength));
  model.set(modelBytes);
  const { index, meta } = await VectorIndex.load(path.join(dir, 'vectors.snapshot'), options);
  const older = path.join(dir, 'terms.bin');
  if (fs.existsSync(older)) {
    const { ids, packed } = await readTermsById(older);
    index.adoptTerms(ids, packed);
    return { model, index, meta: meta as SnapshotMeta, olderFormat: true };
  }
  return { model, index, meta: meta as SnapshotMeta };
}
