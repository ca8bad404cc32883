import cors from 'cors';
import type { RequestHandler } from 'express';
import type { CorsOrigins } from '../config';

/** Paths behind the admin token: same-origin only (a bearer token is never offered to other origins). */
const ADMIN_PATHS = /^\/(metrics|dashboard)(\/|$)/;

/**
 * Browser clients called the original service directly. Preflights are answered here, before
 * authentication and routing (a preflight carries no key); every other answer, errors included,
 * carries Access-Control-Allow-Origin because these headers are set before the request is handled.
 */
export function corsMiddleware(origins: CorsOrigins): RequestHandler {
  const handle = cors({
    origin: origins === '*' ? '*' : origins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ['Content-Type', 'Subscription-Key', 'X-Requested-With'],
    // Pagination, rate limits and the balancer's node name, readable by scripts.
    exposedHeaders: ['Link', 'Total', 'Per-Page', 'Retry-After', 'Kindred-Node'],
    maxAge: 600,
  });
  return (req, res, next) => (ADMIN_PATHS.test(req.path) ? next() : handle(req, res, next));
}
