import type { EventLoopUtilization } from 'node:perf_hooks';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { KeywordDocument } from './document';
import { QueryError } from './errors';
import type { KeywordHit, KeywordSearch, SearchOptions, SearchResponse } from './types';
import { KEYWORD_WORKER_TAG, KeywordReply, KeywordRequest, transferOf, type StoredVersions } from './protocol';

const WORKER_FILE = path.join(__dirname, 'thread.js');
const BUILD_CHUNK = 5000;

/**
 * The keyword indexes of every key, living in one dedicated worker thread so no query or
 * indexing work runs on the event loop. Methods resolve in the order they were called.
 * search/topByKeywords reject with QueryError for bad requests (answer 400), other errors are bugs.
 */
export class KeywordWorkerHost {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private closed = false;

  /** The keyword thread's event-loop utilisation (the dashboard's busy share). */
  utilization(previous?: EventLoopUtilization): EventLoopUtilization {
    return this.worker.performance.eventLoopUtilization(previous);
  }

  constructor(workerFile: string = WORKER_FILE) {
    this.worker = new Worker(workerFile, { workerData: { tag: KEYWORD_WORKER_TAG } });
    this.worker.on('message', (r: KeywordReply) => {
      const p = this.pending.get(r.id);
      if (!p) return;
      this.pending.delete(r.id);
      if (r.ok) p.resolve(r.result);
      else p.reject(r.error.name === 'QueryError' ? new QueryError(r.error.message) : new Error(`keyword worker: ${r.error.message}`));
    });
    const failAll = (e: Error): void => {
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    this.worker.on('error', failAll);
    this.worker.on('exit', (code) => { if (!this.closed) failAll(new Error(`keyword worker exited with code ${code}`)); });
  }

  private call<T>(req: KeywordRequest, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.closed) return Promise.reject(new Error('keyword worker host is closed'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ id, req }, transfer);
    });
  }

  /** Rebuilds a key's index from documents (built aside; the old one answers until the swap). */
  async build(key: string, docs: Iterable<KeywordDocument> | AsyncIterable<KeywordDocument>): Promise<number> {
    await this.call({ op: 'buildStart', key });
    let chunk: KeywordDocument[] = [];
    for await (const d of docs) {
      chunk.push(d);
      if (chunk.length >= BUILD_CHUNK) {
        await this.call({ op: 'buildChunk', key, docs: chunk });
        chunk = [];
      }
    }
    if (chunk.length > 0) await this.call({ op: 'buildChunk', key, docs: chunk });
    return this.call<number>({ op: 'buildEnd', key });
  }

  upsert(key: string, docs: KeywordDocument | KeywordDocument[]): Promise<void> {
    return this.call({ op: 'upsert', key, docs: Array.isArray(docs) ? docs : [docs] });
  }

  /** Resolves to how many of the ids were indexed. */
  remove(key: string, ids: string | string[]): Promise<number> {
    return this.call({ op: 'remove', key, ids: Array.isArray(ids) ? ids : [ids] });
  }

  /** Forgets a key's index (e.g. its tenant was deleted). */
  drop(key: string): Promise<void> {
    return this.call({ op: 'drop', key });
  }

  /** Runs a search on a key's index: hits with ids, scores and sort values (see `decorate`). */
  search(key: string, esQuery: unknown, opts: Pick<SearchOptions, 'now'> = {}): Promise<KeywordSearch> {
    return this.call({ op: 'search', key, esQuery, opts: { now: opts.now ?? Date.now() } });
  }

  /** A search's response with its hits' fields and highlights, from their documents (decorateHits, on the worker). */
  decorate(result: KeywordSearch, docs: (KeywordDocument | undefined)[], fields: string[]): Promise<SearchResponse> {
    return this.call({ op: 'decorate', result, docs, fields });
  }

  topByKeywords(key: string, text: string, fields: string[] = ['text', 'meta.title'], n = 25): Promise<KeywordHit[]> {
    return this.call({ op: 'topByKeywords', key, text, fields, n });
  }

  size(key: string): Promise<number> {
    return this.call({ op: 'size', key });
  }

  /** A key's whole index as bytes, for `restore` after a restart (every write sent before is in it). */
  snapshot(key: string): Promise<Uint8Array> {
    return this.call({ op: 'snapshot', key });
  }

  /** Serves a key from a `snapshot`'s bytes (handed over, not copied); false when they are of another format. */
  restore(key: string, bytes: Uint8Array): Promise<boolean> {
    return this.call({ op: 'restore', key, bytes }, transferOf(bytes));
  }

  /** Brings a restored index to what storage holds: drops what storage no longer has; resolves to the ids to upsert. */
  reconcile(key: string, current: StoredVersions): Promise<string[]> {
    return this.call({ op: 'reconcile', key, current });
  }

  /** The worker's JS heap in use (every key's keyword index). */
  heapUsed(): Promise<number> {
    return this.call({ op: 'heapUsed' });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.worker.terminate();
  }
}
