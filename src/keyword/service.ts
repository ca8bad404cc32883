import v8 from 'node:v8';
import { KeywordIndex } from './index';
import { KeywordReply, KeywordRequest } from './protocol';
import { QueryError } from './errors';
import { decorateHits } from './hits';

/** A key whose writes have paused this long gives back the room its postings kept for growth. */
const TRIM_AFTER_MS = 2000;

/** Per-key indexes and the request dispatcher; runs inside the keyword worker (or in-process in tests). */
export class KeywordIndexes {
  private readonly live = new Map<string, KeywordIndex>();
  private readonly building = new Map<string, KeywordIndex>();
  private readonly trims = new Map<string, NodeJS.Timeout>();

  /** Trims the key's index once its writes pause (a trim copies the postings: not after every write). */
  private trimLater(key: string): void {
    clearTimeout(this.trims.get(key));
    const timer = setTimeout(() => {
      this.trims.delete(key);
      this.live.get(key)?.trim();
    }, TRIM_AFTER_MS);
    timer.unref();
    this.trims.set(key, timer);
  }

  index(key: string): KeywordIndex {
    let ix = this.live.get(key);
    if (!ix) {
      ix = new KeywordIndex();
      this.live.set(key, ix);
    }
    return ix;
  }

  handle(req: KeywordRequest): unknown {
    switch (req.op) {
      case 'buildStart': {
        const ix = new KeywordIndex();
        ix.build([]);
        this.building.set(req.key, ix);
        return null;
      }
      case 'buildChunk': {
        const ix = this.building.get(req.key);
        if (!ix) throw new Error(`no build in progress for key ${req.key}`);
        for (const d of req.docs) ix.upsert(d);
        return null;
      }
      case 'buildEnd': {
        const ix = this.building.get(req.key);
        if (!ix) throw new Error(`no build in progress for key ${req.key}`);
        this.building.delete(req.key);
        ix.trim();
        this.live.set(req.key, ix);
        return ix.size;
      }
      case 'upsert': {
        const ix = this.index(req.key);
        for (const d of req.docs) ix.upsert(d);
        // Writes that arrive during a rebuild go to both, so the swap loses nothing.
        const b = this.building.get(req.key);
        if (b) for (const d of req.docs) b.upsert(d);
        this.trimLater(req.key);
        return null;
      }
      case 'remove': {
        const ix = this.index(req.key);
        let n = 0;
        for (const id of req.ids) if (ix.remove(id)) n++;
        const b = this.building.get(req.key);
        if (b) for (const id of req.ids) b.remove(id);
        return n;
      }
      case 'drop':
        this.live.delete(req.key);
        this.building.delete(req.key);
        return null;
      case 'search': return this.index(req.key).run(req.esQuery, req.opts);
      case 'decorate': return decorateHits(req.result, req.docs, req.fields);
      case 'topByKeywords': return this.index(req.key).topByKeywords(req.text, req.fields, req.n);
      case 'size': return this.index(req.key).size;
      case 'heapUsed': return heapUsed();
      case 'snapshot': return this.index(req.key).snapshot();
      case 'restore': {
        const ix = new KeywordIndex();
        if (!ix.restore(req.bytes)) return false;
        this.live.set(req.key, ix);
        return true;
      }
      case 'reconcile': return this.index(req.key).reconcile(req.current);
    }
  }

  reply(id: number, req: KeywordRequest): KeywordReply {
    try {
      return { id, ok: true, result: this.handle(req) };
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      return { id, ok: false, error: { name: e instanceof QueryError ? 'QueryError' : err.name, message: err.message } };
    }
  }
}

/** This thread's JS heap in use, after a full collection when the process runs with --expose-gc (bench:scale does). */
function heapUsed(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return v8.getHeapStatistics().used_heap_size;
}
