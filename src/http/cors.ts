import cors from 'cors';
import type { CorsOrigins } from '../config';
import { pathOf, type Middleware } from './edge';

/** Paths behind the admin token: same-origin only (a bearer token is never offered to other origins). */
const ADMIN_PATHS = /^\/(metrics|dashboard)(\/|$)/;

/** Pagination, rate limits and the balancer's node name, readable by scripts. */
const EXPOSED_HEADERS = ['Link', 'Total', 'Per-Page', 'Retry-After', 'Kindred-Node'];

/**
 * Browser clients called the original service directly. Preflights are answered here, before
 * authentication and routing (a preflight carries no key); every other answer, errors included,
 * carries Access-Control-Allow-Origin because these headers are set before the request is handled.
 */
export function corsMiddleware(origins: CorsOrigins): Middleware {
  const handle = cors({
    origin: origins === '*' ? '*' : origins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ['Content-Type', 'Subscription-Key', 'X-Requested-With'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
  if (origins !== '*') return (req, res, next) => (ADMIN_PATHS.test(pathOf(req.url)) ? next() : handle(req, res, next));
  // Every origin: a request that is not a preflight gets the same two headers, set here without the library's
  // per-request option handling, which allocates its header lists on every request.
  const exposed = EXPOSED_HEADERS.join(',');
  return (req, res, next) => {
    if (ADMIN_PATHS.test(pathOf(req.url))) return next();
    if (req.method === 'OPTIONS') return handle(req, res, next);
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', exposed);
    return next();
  };
}
