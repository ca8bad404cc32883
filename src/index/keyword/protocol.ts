import { KeywordDocument } from './document';
import { SearchOptions } from './index';

/** Messages between KeywordWorkerHost and workers/keyword.ts. */
export type KeywordRequest =
  | { op: 'buildStart'; key: string }
  | { op: 'buildChunk'; key: string; docs: KeywordDocument[] }
  | { op: 'buildEnd'; key: string }
  | { op: 'upsert'; key: string; docs: KeywordDocument[] }
  | { op: 'remove'; key: string; ids: string[] }
  | { op: 'drop'; key: string }
  | { op: 'search'; key: string; esQuery: unknown; opts: SearchOptions }
  | { op: 'topByKeywords'; key: string; text: string; fields: string[]; n: number }
  | { op: 'size'; key: string }
  | { op: 'heapUsed' };

export interface KeywordEnvelope {
  id: number;
  req: KeywordRequest;
}

export type KeywordReply =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: { name: string; message: string } };

/** workerData that makes workers/keyword.ts serve an index (and not act when loaded otherwise). */
export const KEYWORD_WORKER_TAG = 'kindred-keyword-index';
