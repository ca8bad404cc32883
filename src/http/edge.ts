import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import express from 'express';
import { KindredError } from '../errors';
import type { Logger } from '../log';
import { normaliseQuery, parseBody } from './body';
import { VersionDispatcher, type Services } from './dispatch';
import { errorReply, jsonError } from './error-reply';
import type { ApiVersion, Call, Reply } from './route';

/** Connect-style: Express mounts it, and the API's edge runs it on Node's own request and response. */
export type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

export interface EdgeOptions {
  services: Services;
  logger: Logger;
  maxBodyBytes: number;
  /** Versions served under a path prefix, e.g. `/v5`; the one with prefix '' is served at the root. */
  versions: Array<{ prefix: string; version: ApiVersion }>;
  /** Host name → version served at the root of that host (old clients select the version by host). */
  versionHosts: Map<string, ApiVersion>;
  /** What runs before every API call (the node's name, the request's log line, CORS); calls `next` unless it answered. */
  prepare: Middleware;
}

/**
 * A reply onto the wire. JSON bodies are written as one string with their length: a body written as a Buffer
 * after the headers is a second chunk, a writev per answer (bench:throughput's document reads,
 * docs/decisions/throughput.md). HEAD answers carry the headers only (Node drops the body).
 */
export function send(res: ServerResponse, reply: Reply): void {
  res.statusCode = reply.status;
  if (reply.headers) for (const name in reply.headers) res.setHeader(name, reply.headers[name]!);
  if (reply.body === undefined) {
    res.end();
    return;
  }
  const text = typeof reply.body === 'string' || Buffer.isBuffer(reply.body);
  const payload = text ? reply.body as string | Buffer : JSON.stringify(reply.body);
  if (!res.hasHeader('Content-Type')) {
    res.setHeader('Content-Type', !text ? 'application/json; charset=utf-8' : typeof payload === 'string' ? 'text/html; charset=utf-8' : 'application/octet-stream');
  }
  res.setHeader('Content-Length', Buffer.byteLength(payload));
  res.end(payload);
}

/** body-parser's refusals carry a 4xx `status`; they become Kindred errors (anything else is a bug). */
export function bodyParserError(error: unknown): KindredError | undefined {
  if (typeof error !== 'object' || error === null || !('status' in error)) return undefined;
  const { status } = error;
  if (status === 413) return new KindredError('body_too_large', 'Request body is too large');
  if (typeof status === 'number' && status >= 400 && status < 500) return new KindredError('unreadable_body', 'Request body could not be read');
  return undefined;
}

/** The path of a request's URL, without the query (an absolute-form URL, as proxies may send, gives its path). */
export function pathOf(url: string | undefined): string {
  const raw = url ?? '/';
  if (raw[0] !== '/') return URL.canParse(raw) ? new URL(raw).pathname : raw;
  const query = raw.indexOf('?');
  return query < 0 ? raw : raw.slice(0, query);
}

/** How the original's hosts and prefixes select a version: the host's, a `/vN` prefix's, else the root's. */
class VersionSelector {
  private readonly prefixed: Array<{ prefix: string; dispatcher: VersionDispatcher }> = [];
  private readonly root?: VersionDispatcher;
  private readonly byHost = new Map<string, VersionDispatcher>();

  constructor(options: EdgeOptions) {
    const dispatchers = new Map<ApiVersion, VersionDispatcher>();
    const dispatcherOf = (version: ApiVersion) => {
      let dispatcher = dispatchers.get(version);
      if (!dispatcher) {
        dispatcher = new VersionDispatcher(version, options.services);
        dispatchers.set(version, dispatcher);
      }
      return dispatcher;
    };
    for (const [host, version] of options.versionHosts) this.byHost.set(host.toLowerCase(), dispatcherOf(version));
    for (const { prefix, version } of options.versions) {
      if (prefix) this.prefixed.push({ prefix: prefix.toLowerCase(), dispatcher: dispatcherOf(version) });
      else this.root = dispatcherOf(version);
    }
  }

  /** The version's dispatcher and the path relative to its base; undefined when no version serves the path. */
  select(req: IncomingMessage, path: string): { dispatcher: VersionDispatcher; path: string } | undefined {
    if (this.byHost.size) {
      const dispatcher = this.byHost.get(hostOf(req));
      if (dispatcher) return { dispatcher, path };
    }
    for (const { prefix, dispatcher } of this.prefixed) {
      // Matched as Express matched mount paths: case-insensitive, whole segments.
      if (path.length >= prefix.length && path.slice(0, prefix.length).toLowerCase() === prefix
        && (path.length === prefix.length || path[prefix.length] === '/')) {
        return { dispatcher, path: path.slice(prefix.length) || '/' };
      }
    }
    return this.root ? { dispatcher: this.root, path } : undefined;
  }
}

/** The Host header's name, lower case, without the port (as Express's req.hostname without a trusted proxy). */
function hostOf(req: IncomingMessage): string {
  const host = req.headers.host ?? '';
  const end = host.startsWith('[') ? host.indexOf(']') + 1 : host.indexOf(':');
  return (end > 0 ? host.slice(0, end) : host).toLowerCase();
}

/**
 * The API's calls, every version: from Node's request to the version's dispatcher and back, without Express's
 * router. Express mutates each request's and response's prototype and runs a chain of middleware closures; on
 * two cores the event loop is a recommendation's bottleneck, and that per-request work was a measured share of
 * it (docs/decisions/throughput.md, "The API's calls without Express's router").
 */
export class ApiEdge {
  private readonly versions: VersionSelector;
  private readonly readBody: express.RequestHandler;

  constructor(private readonly options: EdgeOptions) {
    this.versions = new VersionSelector(options);
    this.readBody = express.raw({ type: () => true, limit: options.maxBodyBytes });
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    this.options.prepare(req, res, () => this.route(req, res));
  }

  private route(req: IncomingMessage, res: ServerResponse): void {
    const fullPath = pathOf(req.url);
    const selected = this.versions.select(req, fullPath);
    if (!selected) {
      send(res, errorReply(new KindredError('route_not_found', 'API path not found'), jsonError));
      return;
    }
    // Reading bodies only where there is one saves most GETs the body parser's stream handling.
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
      this.answer(req, res, selected.dispatcher, selected.path, fullPath, undefined);
      return;
    }
    // body-parser reads the stream (inflating gzip and deflate), enforces the size limit and leaves a Buffer.
    this.readBody(req as express.Request, res as express.Response, (error?: unknown) => {
      if (error !== undefined) {
        this.fail(req, res, error);
        return;
      }
      const body = (req as IncomingMessage & { body?: unknown }).body;
      this.answer(req, res, selected.dispatcher, selected.path, fullPath, Buffer.isBuffer(body) ? body : undefined);
    });
  }

  private answer(req: IncomingMessage, res: ServerResponse, dispatcher: VersionDispatcher, path: string, fullPath: string, raw: Buffer | undefined): void {
    let body: unknown;
    try {
      body = parseBody(raw, req.headers['content-type']);
    } catch (error) {
      if (error instanceof KindredError) send(res, errorReply(error, dispatcher.version.renderError));
      else this.fail(req, res, error);
      return;
    }
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const call: Call = {
      // HEAD is GET without the body (Node leaves it out), as Express routed it.
      method: req.method === 'HEAD' ? 'GET' : req.method ?? 'GET',
      path,
      fullPath,
      query: queryAt < 0 ? {} : normaliseQuery(parseQueryString(url.slice(queryAt + 1))),
      headers: req.headers,
      body,
    };
    dispatcher.dispatch(call).then((reply) => send(res, reply), (error: unknown) => this.fail(req, res, error));
  }

  /** What a refused body (4xx) or a bug (500, logged) answers. */
  private fail(req: IncomingMessage, res: ServerResponse, error: unknown): void {
    const refused = bodyParserError(error);
    if (!refused) this.options.logger.error({ err: error, method: req.method, url: pathOf(req.url) }, 'unhandled error');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    send(res, errorReply(refused ?? error, jsonError));
  }
}
