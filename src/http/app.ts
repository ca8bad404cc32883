import os from 'node:os';
import express, { type NextFunction, type Request, type Response } from 'express';
import { AdminGuard } from './admin';
import { KindredError } from '../errors';
import type { Logger } from '../log';
import { normaliseQuery, parseBody } from './body';
import { corsMiddleware } from './cors';
import type { CorsOrigins } from '../config';
import { VersionDispatcher, type Services } from './dispatch';
import { errorReply, jsonError } from './error-reply';
import { mountDashboard } from './dashboard/routes';
import type { Metrics } from './metrics';
import type { DashboardData, IndexingProgress } from '../ops/operations';
import { openApiDocument } from './openapi';
import type { ApiVersion, Call, Reply } from './route';

/** Keys listed in /healthz's indexing progress. */
const HEALTH_KEYS = 50;

export interface AppOptions {
  services: Services;
  logger: Logger;
  maxBodyBytes: number;
  /** Versions served under a path prefix, e.g. `/v5`; the one with prefix '' is served at the root. */
  versions: Array<{ prefix: string; version: ApiVersion }>;
  /** Host name → version served at the root of that host (old clients select the version by host). */
  versionHosts: Map<string, ApiVersion>;
  isReady(): boolean;
  /** Each loaded key's content index against its stored documents, for /healthz. */
  indexing?: () => Promise<IndexingProgress[]>;
  metrics: Metrics;
  /** Bearer token of the admin surfaces (/metrics, /dashboard); unset disables them. */
  adminToken?: string;
  /** Origins whose browser scripts may call the API (default every origin); preflights need no key. */
  corsOrigins?: CorsOrigins;
  /** Sent as the Kindred-Node header of every response; default `<host name>:<local port>`. */
  nodeId?: string;
  /** Figures of the operator dashboard (src/ops Operations.data); without it /dashboard answers 404. */
  dashboard?: () => Promise<DashboardData>;
}

/**
 * A reply onto the wire. JSON bodies are written as one string with their length, not through Express's res.json:
 * res.send turns a body of 1,000 characters or more into a Buffer, which Node then writes as a second chunk
 * (a writev per answer; bench:throughput's document reads, docs/decisions/throughput.md). HEAD answers carry the
 * headers only (Node drops the body).
 */
function send(res: Response, reply: Reply): void {
  res.statusCode = reply.status;
  if (reply.headers) res.set(reply.headers);
  if (reply.body === undefined) res.end();
  else if (typeof reply.body === 'string' || Buffer.isBuffer(reply.body)) res.send(reply.body);
  else {
    const json = JSON.stringify(reply.body);
    if (!res.hasHeader('Content-Type')) res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(json));
    res.end(json);
  }
}

/** body-parser's refusals carry a 4xx `status`; they become Kindred errors (anything else is a bug). */
function bodyParserError(error: unknown): KindredError | undefined {
  if (typeof error !== 'object' || error === null || !('status' in error)) return undefined;
  const { status } = error;
  if (status === 413) return new KindredError('body_too_large', 'Request body is too large');
  if (typeof status === 'number' && status >= 400 && status < 500) return new KindredError('unreadable_body', 'Request body could not be read');
  return undefined;
}

export function createApp(options: AppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  // Behind a load balancer that routes by key, this says which node answered (docs/deployment.md).
  const hostname = os.hostname();
  app.use((req, res, next) => {
    res.setHeader('Kindred-Node', options.nodeId ?? `${hostname}:${req.socket.localPort}`);
    next();
  });

  app.get('/healthz', async (req, res) => {
    if (!options.isReady()) {
      send(res, errorReply(new KindredError('starting', 'Starting'), jsonError));
      return;
    }
    // Keys whose content index is behind their stored documents first (at most HEALTH_KEYS of them); `?tenant=`
    // lists that key only (`kindred eval` reads its model's shape there).
    const tenant = typeof req.query.tenant === 'string' ? req.query.tenant : undefined;
    const progress = (options.indexing ? await options.indexing().catch(() => []) : []).filter((p) => tenant === undefined || p.tenant === tenant);
    const indexing = progress.sort((a, b) => (b.stored - b.indexed) - (a.stored - a.indexed) || (a.tenant < b.tenant ? -1 : 1)).slice(0, HEALTH_KEYS);
    res.json({ status: 'ok', indexing });
  });

  // One info line per request: method, path without the query (which may carry a v1 key), status,
  // milliseconds. A plain listener costs a fraction of pino-http's per-request child loggers (bench:api).
  if (options.logger.isLevelEnabled('info')) {
    const { logger } = options;
    app.use((req, res, next) => {
      const started = process.hrtime.bigint();
      res.once('finish', () => {
        const entry = { method: req.method, url: req.originalUrl.split('?')[0], status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 };
        if (res.statusCode >= 500) logger.error(entry, 'request failed');
        else logger.info(entry, 'request');
      });
      next();
    });
  }
  app.use(corsMiddleware(options.corsOrigins ?? '*'));
  const openapi = JSON.stringify(openApiDocument(options.versions));
  app.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(openapi);
  });
  const metricsGuard = new AdminGuard(options.adminToken);
  app.get('/metrics', async (req, res) => {
    if (!metricsGuard.admits(req, res)) return;
    res.type(options.metrics.registry.contentType).send(await options.metrics.registry.metrics());
  });
  const dashboard = options.dashboard;
  mountDashboard(app, {
    guard: new AdminGuard(dashboard ? options.adminToken : undefined),
    data: () => (dashboard ? dashboard() : Promise.reject(new Error('no dashboard'))),
  });

  const readBody = express.raw({ type: () => true, limit: options.maxBodyBytes });
  // Reading bodies only where there is one saves most GETs the body parser's stream handling.
  app.use((req, res, next) => (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined ? next() : readBody(req, res, next)));

  const mount = (version: ApiVersion) => {
    const dispatcher = new VersionDispatcher(version, options.services);
    return async (req: Request, res: Response, next: NextFunction) => {
      try {
        const raw = Buffer.isBuffer(req.body) ? req.body : undefined;
        let body: unknown;
        try {
          body = parseBody(raw, req.headers['content-type']);
        } catch (error) {
          if (error instanceof KindredError) return send(res, errorReply(error, version.renderError));
          throw error;
        }
        const call: Call = {
          method: req.method,
          path: req.path,
          fullPath: req.originalUrl.split('?')[0],
          query: normaliseQuery(req.query as Record<string, unknown>),
          headers: req.headers,
          body,
        };
        send(res, await dispatcher.dispatch(call));
      } catch (error) {
        next(error);
      }
    };
  };

  const handlers = new Map<ApiVersion, ReturnType<typeof mount>>();
  const handlerOf = (version: ApiVersion) => {
    let handler = handlers.get(version);
    if (!handler) {
      handler = mount(version);
      handlers.set(version, handler);
    }
    return handler;
  };
  if (options.versionHosts.size) {
    app.use((req, res, next) => {
      const version = options.versionHosts.get(req.hostname.toLowerCase());
      if (!version) return next();
      return handlerOf(version)(req, res, next);
    });
  }
  const root = options.versions.find((v) => v.prefix === '');
  for (const { prefix, version } of options.versions) {
    if (prefix) app.use(prefix, handlerOf(version));
  }
  if (root) app.use(handlerOf(root.version));

  // Errors that reach here were not the API's own: body-parser refusals (4xx) or bugs (500).
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const refused = bodyParserError(error);
    if (!refused) options.logger.error({ err: error, method: req.method, url: req.originalUrl.split('?')[0] }, 'unhandled error');
    send(res, errorReply(refused ?? error, jsonError));
  });
  return app;
}
