/**
 * Per-key request limit for the extraction route (the original allowed 1 request per second).
 * A sliding window over the last `windowMs`; the caller turns a refusal into 429
 * `API rate limit exceeded` with the X-RateLimit-* headers it returns.
 */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the next request would be allowed (0 when allowed). */
  retryAfterMs: number;
  headers: Record<string, string>;
}

export class SlidingWindowRateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    readonly limit = 1,
    readonly windowMs = 1000,
  ) {
    if (!(limit >= 1) || !(windowMs > 0)) throw new RangeError('limit must be >= 1 and windowMs > 0');
  }

  /** Records a request for `key` if it is allowed now. */
  take(key: string, now: number = Date.now()): RateDecision {
    const recent = (this.hits.get(key) ?? []).filter((t) => t > now - this.windowMs);
    const allowed = recent.length < this.limit;
    if (allowed) recent.push(now);
    this.hits.set(key, recent);
    const remaining = Math.max(0, this.limit - recent.length);
    const retryAfterMs = allowed ? 0 : Math.max(0, recent[0] + this.windowMs - now);
    return {
      allowed,
      limit: this.limit,
      remaining,
      retryAfterMs,
      headers: { 'X-RateLimit-Limit': String(this.limit), 'X-RateLimit-Remaining': String(remaining) },
    };
  }

  /** Forgets keys with no request inside the window; call now and then to bound memory. */
  prune(now: number = Date.now()): void {
    for (const [key, times] of this.hits) if (!times.some((t) => t > now - this.windowMs)) this.hits.delete(key);
  }
}
