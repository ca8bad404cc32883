import { Type } from 'typebox';
import type { Reply, RequestContext } from './route';

export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 25;

export const paginationQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE })),
};

export interface PageRequest {
  page: number;
  perPage: number;
  offset: number;
  limit: number;
}

export function pageOf(query: { page?: number; per_page?: number }): PageRequest {
  const page = query.page ?? 1;
  const perPage = query.per_page ?? DEFAULT_PER_PAGE;
  return { page, perPage, offset: (page - 1) * perPage, limit: perPage };
}

function linkTo(req: RequestContext, page: number, perPage: number): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(req.rawQuery)) {
    if (key === 'page' || key === 'per_page') continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  }
  params.set('page', String(page));
  params.set('per_page', String(perPage));
  return `<${req.path}?${params.toString()}>`;
}

/** A page of a list with the headers the original service sent: Per-Page, Total and an RFC 5988 Link. */
export function pagedReply(req: RequestContext, body: unknown[], total: number, page: PageRequest): Reply {
  const last = Math.max(1, Math.ceil(total / page.perPage));
  const links: string[] = [];
  if (page.page > 1) {
    links.push(`${linkTo(req, 1, page.perPage)}; rel="first"`);
    links.push(`${linkTo(req, Math.min(page.page - 1, last), page.perPage)}; rel="prev"`);
  }
  if (page.page < last) {
    links.push(`${linkTo(req, page.page + 1, page.perPage)}; rel="next"`);
    links.push(`${linkTo(req, last, page.perPage)}; rel="last"`);
  }
  const headers: Record<string, string> = { 'Per-Page': String(page.perPage), Total: String(total) };
  if (links.length) headers.Link = links.join(', ');
  return { status: 200, body, headers };
}
