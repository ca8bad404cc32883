import { KeywordDocument } from './document';
import type { KeywordSearch, SearchOptions } from './types';

/** Messages between KeywordWorkerHost and its thread (thread.ts). */
export type KeywordRequest =
  | { op: 'buildStart'; key: string }
  | { op: 'buildChunk'; key: string; docs: KeywordDocument[] }
  | { op: 'buildEnd'; key: string }
  | { op: 'upsert'; key: string; docs: KeywordDocument[] }
  | { op: 'remove'; key: string; ids: string[] }
  | { op: 'drop'; key: string }
  | { op: 'search'; key: string; esQuery: unknown; opts: Pick<SearchOptions, 'now'> }
  | { op: 'decorate'; result: KeywordSearch; docs: (KeywordDocument | undefined)[]; fields: string[] }
  | { op: 'topByKeywords'; key: string; text: string; fields: string[]; n: number }
  | { op: 'size'; key: string }
  | { op: 'heapUsed' }
  | { op: 'snapshot'; key: string }
  | { op: 'restore'; key: string; bytes: Uint8Array }
  | { op: 'reconcile'; key: string; current: StoredVersions };

/**
 * What storage holds of its documents, enough to tell whether the indexed versions are current, in columns (one
 * entry per document): a million tuples took seconds to clone to the worker.
 */
export interface StoredVersions {
  ids: string[];
  /** updated_at, epoch milliseconds. */
  updatedAt: Float64Array;
  /** Each document's tags; the untagged share one empty array (cloned once). */
  tags: ReadonlyArray<readonly string[]>;
}

export interface KeywordEnvelope {
  id: number;
  req: KeywordRequest;
}

export type KeywordReply =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: { name: string; message: string } };

/** The buffer to hand over with a message carrying `bytes`, when they span all of it (else they are copied). */
export function transferOf(bytes: unknown): ArrayBuffer[] {
  if (!(bytes instanceof Uint8Array) || !(bytes.buffer instanceof ArrayBuffer)) return [];
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? [bytes.buffer] : [];
}

/** workerData that makes thread.ts serve an index (and not act when loaded otherwise). */
export const KEYWORD_WORKER_TAG = 'kindred-keyword-index';
