import type { WorkerPool } from '../pool';
import { fetchArticlePage, parseArticleUrl, type FetchOptions, type HostLookup, type ResolvedAddress } from './fetch';
import type { ArticleResult, ExtractPayload } from './types';

export type { ArticleResult } from './types';
export { ParserError, PARSER_MESSAGES } from './errors';
export { parseArticleUrl } from './fetch';
export type { HostLookup, ResolvedAddress } from './fetch';

export interface ParseArticleDeps {
  pool: WorkerPool;
  /** KINDRED_PARSER_ALLOW_PRIVATE=1: let the fetcher reach loopback/private addresses (tests, local use). */
  allowPrivate?: boolean;
  lookup?: HostLookup;
  /** Test seam, see FetchOptions.dialAddress. */
  dialAddress?: (checked: ResolvedAddress) => ResolvedAddress;
  timeoutMs?: number;
  maxBytes?: number;
}

/** Reads the parser's settings from the environment (the lead's config may call this or set the deps itself). */
export function parserSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): Pick<ParseArticleDeps, 'allowPrivate' | 'timeoutMs' | 'maxBytes'> {
  const positive = (raw: string | undefined): number | undefined => {
    const value = Number(raw);
    return raw !== undefined && raw !== '' && Number.isFinite(value) && value > 0 ? value : undefined;
  };
  return {
    allowPrivate: env.KINDRED_PARSER_ALLOW_PRIVATE === '1' || env.KINDRED_PARSER_ALLOW_PRIVATE === 'true',
    timeoutMs: positive(env.KINDRED_PARSER_TIMEOUT_MS),
    maxBytes: positive(env.KINDRED_PARSER_MAX_BYTES),
  };
}

/**
 * The cache key for an article URL: the validated URL without fragment (throws the same
 * ParserError as parseArticle for a missing or unparsable URL, so it can run before a cache lookup).
 */
export function articleCacheKey(rawUrl: unknown): string {
  return parseArticleUrl(rawUrl).href;
}

/**
 * URL → extracted article. Fetches on the calling thread (I/O) with every safety check, then runs
 * jsdom + Readability in the `extract` worker. Throws ParserError (status 400) for the user-facing failures.
 */
export async function parseArticle(url: string, deps: ParseArticleDeps): Promise<ArticleResult> {
  const options: FetchOptions = {
    allowPrivate: deps.allowPrivate,
    lookup: deps.lookup,
    dialAddress: deps.dialAddress,
    timeoutMs: deps.timeoutMs,
    maxBytes: deps.maxBytes,
  };
  const page = await fetchArticlePage(url, options);
  const payload: ExtractPayload = { html: page.html, url: page.url };
  return deps.pool.run<ArticleResult>('extract', payload);
}
