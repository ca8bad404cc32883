import { KindredError } from '../errors';
import { PrunedLimiter, rateLimitError } from '../rate-limit';
import { articleCacheKey, parseArticle, type ArticleResult, type ParseArticleDeps } from '../parser';
import type { TenantContext } from './context';

export interface ArticleSettings extends Omit<ParseArticleDeps, 'pool'> {
  /** How long an extraction is served from the key's cache. */
  cacheTtlMs: number;
  /** Requests per second per key (the original allowed 1). */
  ratePerSecond: number;
}

interface CachedArticle {
  at: number;
  result: ArticleResult;
}

/** The article-extraction service: per-key rate limit, per-key cache, then fetch and extract. */
export class ArticleService {
  private readonly limiter: PrunedLimiter;

  constructor(
    private readonly deps: ParseArticleDeps,
    private readonly settings: ArticleSettings,
  ) {
    // A bucket of one second's requests: at 1/s (the original's limit) the second request within a second is refused.
    this.limiter = new PrunedLimiter({ ratePerSecond: settings.ratePerSecond, burst: settings.ratePerSecond });
  }

  async parse(ctx: TenantContext, url: string | undefined): Promise<{ result: ArticleResult; headers: Record<string, string> }> {
    const decision = this.limiter.take(ctx.tenant);
    if (!decision.allowed) throw rateLimitError(decision);
    try {
      return { result: await this.cachedParse(ctx, url), headers: decision.headers };
    } catch (error) {
      if (error instanceof KindredError) throw error.withHeaders(decision.headers);
      throw error;
    }
  }

  private async cachedParse(ctx: TenantContext, url: string | undefined): Promise<ArticleResult> {
    const key = articleCacheKey(url);
    const cache = ctx.store.values('parser-cache');
    const cached = (await cache.get(key)) as CachedArticle | undefined;
    if (cached && Date.now() - cached.at < this.settings.cacheTtlMs) return cached.result;
    const result = await parseArticle(key, this.deps);
    await cache.put(key, { at: Date.now(), result } satisfies CachedArticle);
    return result;
  }

  close(): void {
    this.limiter.close();
  }
}
