import type { BatchOperation } from '../http/batch';
import { ERROR_CODE_HEADER } from '../errors';
import { setTimeout as sleep } from 'node:timers/promises';

/** One answer of the server: status, headers and the parsed JSON body (undefined when empty or not JSON). */
export interface HttpReply {
  status: number;
  headers: Headers;
  body: unknown;
}

export type { BatchOperation };

export interface BatchResult {
  status: number;
  body: unknown;
  /** The error's stable code (src/errors.ts), for errors. */
  code?: string;
}

/** The server's limit on operations per `POST /batch` (src/http/batch.ts). */
export const MAX_BATCH_OPS = 100;
/** Largest page the list endpoints serve. */
export const MAX_PER_PAGE = 100;

const RETRYABLE = new Set([429, 503]);
const MAX_ATTEMPTS = 30;

export interface ClientOptions {
  /** Told about each retry (status or network error, wait in ms). */
  onRetry?: (reason: string, waitMs: number) => void;
  /** Cap on a single wait, whatever Retry-After says (default 30 s). */
  maxWaitMs?: number;
}

/** Seconds or an HTTP date, as Retry-After allows; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
    return typeof code === 'string' ? code : error.message;
  }
  return String(error);
}

/**
 * A Kindred v6 client for the data commands: JSON in and out, the subscription key on every request,
 * 429 and 503 retried after Retry-After (or a growing back-off): 429 until admitted, 503 up to 30 times;
 * lost connections retried a few times.
 */
export class KindredClient {
  constructor(
    readonly baseUrl: string,
    private readonly key: string,
    private readonly options: ClientOptions = {},
  ) {}

  async request(method: string, path: string, body?: unknown): Promise<HttpReply> {
    const headers: Record<string, string> = { 'Subscription-Key': this.key };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const maxWait = this.options.maxWaitMs ?? 30_000;
    for (let attempt = 1; ; attempt++) {
      let reply: HttpReply | undefined;
      let reason: string;
      let wait = Math.min(maxWait, 200 * 2 ** Math.min(attempt, 8));
      try {
        const res = await fetch(this.baseUrl + path, { method, headers, body: payload });
        const text = await res.text();
        let parsed: unknown;
        if (text && (res.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
        reply = { status: res.status, headers: res.headers, body: parsed };
        if (!RETRYABLE.has(res.status)) return reply;
        reason = `HTTP ${res.status}`;
        wait = Math.min(maxWait, retryAfterMs(res.headers.get('retry-after')) ?? wait);
      } catch (error) {
        reason = describe(error);
        // A refused connection after many tries means no server: say so instead of waiting forever.
        if (attempt >= 6) throw new Error(`cannot reach ${this.baseUrl}: ${reason}`);
      }
      // 429 is retried for as long as it takes: the server says when, and admits any batch once its bucket is full.
      if (attempt >= MAX_ATTEMPTS && reply?.status !== 429) {
        if (reply) return reply;
        throw new Error(`giving up on ${method} ${path}: ${reason}`);
      }
      this.options.onRetry?.(reason, wait);
      await sleep(wait);
    }
  }

  get(path: string): Promise<HttpReply> {
    return this.request('GET', path);
  }

  post(path: string, body?: unknown): Promise<HttpReply> {
    return this.request('POST', path, body);
  }

  /** Runs up to MAX_BATCH_OPS operations in one `POST /batch` (concurrently on the server); results keep order. */
  async batch(ops: BatchOperation[]): Promise<BatchResult[]> {
    if (ops.length > MAX_BATCH_OPS) throw new Error(`a batch holds at most ${MAX_BATCH_OPS} operations`);
    const reply = await this.post('/batch', {
      sequential: false,
      ops: ops.map((op) => ({ ...op, headers: { 'Subscription-Key': this.key } })),
    });
    if (reply.status !== 200) throw new HttpError(reply, 'POST /batch');
    const results = (reply.body as { results?: unknown }).results;
    if (!Array.isArray(results) || results.length !== ops.length) throw new Error('POST /batch answered without one result per operation');
    return results.map((r: { status?: unknown; body?: unknown; headers?: Record<string, unknown> }) => {
      const code = r.headers?.[ERROR_CODE_HEADER];
      return { status: Number(r.status), body: r.body, ...(typeof code === 'string' ? { code } : {}) };
    });
  }

  /**
   * Every item of a paginated list in order, page by page (per_page 100); after the first page, which gives
   * the Total, up to `concurrency` pages are fetched at once.
   */
  async *pages<T>(path: string, concurrency = 4): AsyncGenerator<T[]> {
    const sep = path.includes('?') ? '&' : '?';
    const fetchPage = async (page: number): Promise<{ items: T[]; total: number }> => {
      const reply = await this.get(`${path}${sep}page=${page}&per_page=${MAX_PER_PAGE}`);
      if (reply.status !== 200) throw new HttpError(reply, `GET ${path}`);
      return { items: reply.body as T[], total: Number(reply.headers.get('total')) };
    };
    const first = await fetchPage(1);
    if (first.items.length) yield first.items;
    if (!Number.isFinite(first.total)) {
      // No Total header: walk on until a short page.
      for (let page = 2, last = first.items; last.length === MAX_PER_PAGE; page++) {
        last = (await fetchPage(page)).items;
        if (last.length) yield last;
      }
      return;
    }
    const pages = Math.ceil(first.total / MAX_PER_PAGE);
    const ahead: Array<Promise<{ items: T[] }>> = [];
    let next = 2;
    while (next <= pages || ahead.length) {
      while (ahead.length < concurrency && next <= pages) {
        const pending = fetchPage(next++);
        pending.catch(() => undefined); // rethrown when its turn comes; not an unhandled rejection before that
        ahead.push(pending);
      }
      const { items } = await ahead.shift()!;
      if (items.length) yield items;
    }
  }
}

/** The server's `{message}` of a failed answer, or its status. */
export function messageOf(reply: { status: number; body: unknown }): string {
  const message = typeof reply.body === 'object' && reply.body !== null ? (reply.body as { message?: unknown }).message : undefined;
  return typeof message === 'string' ? `${reply.status} ${message}` : `HTTP ${reply.status}`;
}

export class HttpError extends Error {
  constructor(readonly reply: HttpReply, what: string) {
    super(`${what}: ${messageOf(reply)}`);
  }
}

/** Path segment of an id (ids are letters, digits, dash and underscore, but records from files may hold anything). */
export const seg = (id: string): string => encodeURIComponent(id);
