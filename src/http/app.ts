import type { IncomingMessage, RequestListener } from 'node:http';
import os from 'node:os';
import express, { type NextFunction, type Request, type Response } from 'express';
import { AdminGuard } from './admin';
import { KindredError } from '../errors';
import type { Logger } from '../log';
import { corsMiddleware } from './cors';
import type { CorsOrigins } from '../config';
import { ApiEdge, pathOf, send, type EdgeOptions, type Middleware } from './edge';
import { errorReply, jsonError } from './error-reply';
import { mountDashboard } from './dashboard/routes';
import type { Metrics } from './metrics';
import type { DashboardData, IndexingProgress } from '../ops/operations';
import { openApiDocument } from './openapi';

/** Keys listed in /healthz's indexing progress. */
const HEALTH_KEYS = 50;

/** The API's side (services, versions, body limit) as the edge takes it, and the operator's surfaces. */
export interface AppOptions extends Omit<EdgeOptions, 'prepare'> {
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
 * The operator's surfaces, answered by Express: GET or HEAD of exactly these paths (as Express matched them: any
 * case, an optional trailing slash). Everything else is an API call of some version (src/http/edge.ts).
 */
const OPERATOR_PATHS = /^\/(healthz|openapi\.json|metrics|dashboard|dashboard\/dashboard\.js|dashboard\/dashboard\.css|dashboard\/data\.json)\/?$/i;

function isOperatorCall(req: IncomingMessage): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && OPERATOR_PATHS.test(pathOf(req.url));
}

/** The server's request listener: the API's calls through the edge, the operator's surfaces through Express. */
export function createApp(options: AppOptions): RequestListener {
  // Behind a load balancer that routes by key, this says which node answered (docs/deployment.md).
  const hostname = os.hostname();
  const nodeHeader: Middleware = (req, res, next) => {
    res.setHeader('Kindred-Node', options.nodeId ?? `${hostname}:${req.socket.localPort}`);
    next();
  };
  const logLine = requestLog(options.logger);
  const cors = corsMiddleware(options.corsOrigins ?? '*');
  const edge = new ApiEdge({
    ...options,
    prepare: (req, res, next) => nodeHeader(req, res, () => logLine(req, res, () => cors(req, res, next))),
  });
  const operator = operatorApp(options, { nodeHeader, logLine, cors });
  return (req, res) => {
    if (isOperatorCall(req)) operator(req, res);
    else edge.handle(req, res);
  };
}

/**
 * One info line per request: method, path without the query (which may carry a v1 key), status, milliseconds. A
 * plain listener costs a fraction of pino-http's per-request child loggers (bench:api).
 */
function requestLog(logger: Logger): Middleware {
  if (!logger.isLevelEnabled('info')) return (_req, _res, next) => next();
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const entry = { method: req.method, url: pathOf(req.url), status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 };
      if (res.statusCode >= 500) logger.error(entry, 'request failed');
      else logger.info(entry, 'request');
    });
    next();
  };
}

function operatorApp(options: AppOptions, common: { nodeHeader: Middleware; logLine: Middleware; cors: Middleware }): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(common.nodeHeader);

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

  app.use(common.logLine);
  app.use(common.cors);
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

  // Errors that reach here are bugs (500).
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    options.logger.error({ err: error, method: req.method, url: pathOf(req.url) }, 'unhandled error');
    send(res, errorReply(error, jsonError));
  });
  return app;
}
