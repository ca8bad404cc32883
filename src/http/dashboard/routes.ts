import type express from 'express';
import type { Request } from 'express';
import { adminTokenRequired, type AdminGuard } from '../admin';
import { errorReply, jsonError } from '../error-reply';
import type { DashboardData } from '../../ops/operations';
import { DASHBOARD_HTML } from './page';
import { DASHBOARD_JS } from './script';
import { DASHBOARD_CSS } from './style';

export interface DashboardOptions {
  /** Without a token every dashboard path answers 404, like /metrics. */
  guard: AdminGuard;
  data(): Promise<DashboardData>;
}

// The page loads nothing but its own script and stylesheet, and fetches only from this origin.
const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
};

function wantsHtml(req: Request): boolean {
  return (req.headers.accept ?? '').includes('text/html');
}

/**
 * GET /dashboard (the page), /dashboard/dashboard.js and .css (its code, no figures) and
 * /dashboard/data.json (the figures, admin token required). See docs/decisions/dashboard.md.
 */
export function mountDashboard(app: express.Express, options: DashboardOptions): void {
  const { guard } = options;

  app.get('/dashboard', (req, res) => {
    if (!guard.exists(res)) return;
    if (guard.authorised(req)) return res.status(200).set(PAGE_HEADERS).type('html').send(DASHBOARD_HTML);
    // A browser cannot send the bearer header on a page load: it gets the page (which holds no figures)
    // with the 401, and the page asks for the token. Every other client gets the JSON error.
    if (wantsHtml(req)) {
      const refusal = errorReply(adminTokenRequired(), jsonError);
      return res.status(refusal.status).set({ ...PAGE_HEADERS, ...refusal.headers }).type('html').send(DASHBOARD_HTML);
    }
    guard.admits(req, res);
  });
  app.get('/dashboard/dashboard.js', (_req, res) => {
    if (!guard.exists(res)) return;
    res.set({ 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache' }).type('text/javascript').send(DASHBOARD_JS);
  });
  app.get('/dashboard/dashboard.css', (_req, res) => {
    if (!guard.exists(res)) return;
    res.set({ 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache' }).type('text/css').send(DASHBOARD_CSS);
  });
  app.get('/dashboard/data.json', async (req, res, next) => {
    if (!guard.admits(req, res)) return;
    try {
      res.set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' }).json(await options.data());
    } catch (error) {
      next(error);
    }
  });
}
