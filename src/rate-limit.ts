import { KindredError } from './errors';

/**
 * Per-key token buckets: each key earns `ratePerSecond` tokens a second up to `burst`, and a request
 * spends `cost` tokens (a batch spends one per operation). Shared by the whole API (per tenant, in
 * the dispatcher) and by the article-extraction route (its own, stricter limit).
 */
export interface RateLimitSettings {
  /** Tokens earned per second per key; > 0. */
  ratePerSecond: number;
  /** Most tokens a key can hold, i.e. the largest burst after a quiet spell; >= 1. */
  burst: number;
  /** Upper bound on buckets held at once; beyond it the least recently used are dropped. */
  maxKeys?: number;
}

export interface RateDecision {
  allowed: boolean;
  /** The bucket size (X-RateLimit-Limit). */
  limit: number;
  /** Whole tokens left after this request (X-RateLimit-Remaining). */
  remaining: number;
  /** Milliseconds until this request's cost would be available (0 when allowed). */
  retryAfterMs: number;
  headers: Record<string, string>;
}

interface Bucket {
  tokens: number;
  at: number;
}

const DEFAULT_MAX_KEYS = 100_000;

export class TokenBucketLimiter {
  readonly ratePerSecond: number;
  readonly burst: number;
  private readonly maxKeys: number;
  /** Insertion order is recency order: a touched bucket is moved to the end. */
  private readonly buckets = new Map<string, Bucket>();

  constructor(settings: RateLimitSettings) {
    const { ratePerSecond, burst, maxKeys = DEFAULT_MAX_KEYS } = settings;
    if (!(ratePerSecond > 0) || !Number.isFinite(ratePerSecond)) throw new RangeError('ratePerSecond must be a positive number');
    if (!(burst >= 1) || !Number.isFinite(burst)) throw new RangeError('burst must be >= 1');
    if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError('maxKeys must be a positive integer');
    this.ratePerSecond = ratePerSecond;
    this.burst = burst;
    this.maxKeys = maxKeys;
  }

  /** Buckets currently held (keys seen recently whose bucket is not yet full again). */
  get size(): number {
    return this.buckets.size;
  }

  /**
   * Spends `cost` tokens of `key` if it has them. A cost above the burst is charged as the burst
   * (a full bucket always admits one request), so no request is refused forever.
   */
  take(key: string, cost = 1, now: number = Date.now()): RateDecision {
    const charge = Math.min(Math.max(cost, 0), this.burst);
    const bucket = this.refilled(key, now);
    const allowed = bucket.tokens >= charge;
    if (allowed) bucket.tokens -= charge;
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxKeys) this.evict(now);
    const retryAfterMs = allowed ? 0 : Math.ceil(((charge - bucket.tokens) / this.ratePerSecond) * 1000);
    const remaining = Math.floor(bucket.tokens);
    return {
      allowed,
      limit: this.burst,
      remaining,
      retryAfterMs,
      headers: { 'X-RateLimit-Limit': String(this.burst), 'X-RateLimit-Remaining': String(remaining) },
    };
  }

  /** Forgets buckets that have refilled completely (they behave exactly like absent ones). */
  prune(now: number = Date.now()): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.ratePerSecond >= this.burst) this.buckets.delete(key);
    }
  }

  private refilled(key: string, now: number): Bucket {
    const bucket = this.buckets.get(key);
    if (!bucket) return { tokens: this.burst, at: now };
    const elapsed = Math.max(0, now - bucket.at);
    return { tokens: Math.min(this.burst, bucket.tokens + (elapsed / 1000) * this.ratePerSecond), at: now };
  }

  private evict(now: number): void {
    this.prune(now);
    // Still too many busy keys: drop the least recently used (they restart with a full bucket).
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= this.maxKeys) break;
      this.buckets.delete(key);
    }
  }
}

/** `Retry-After` in whole seconds, at least 1 (RFC 9110 delay-seconds). */
export function retryAfterSeconds(decision: RateDecision): number {
  return Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
}

export const RATE_LIMIT_MESSAGE = 'API rate limit exceeded';

/** A refused decision (429 at the HTTP edge); each version renders it in its own error shape. */
export function rateLimitError(decision: RateDecision, extraHeaders: Record<string, string> = {}): KindredError {
  return new KindredError('rate_limited', RATE_LIMIT_MESSAGE, { headers: { ...extraHeaders, ...decision.headers, 'Retry-After': String(retryAfterSeconds(decision)) } });
}

/** A limiter with a timer that prunes idle buckets, for long-lived services; close() stops the timer. */
export class PrunedLimiter extends TokenBucketLimiter {
  private readonly pruner: NodeJS.Timeout;

  constructor(settings: RateLimitSettings, pruneEveryMs = 60_000) {
    super(settings);
    this.pruner = setInterval(() => this.prune(), pruneEveryMs);
    this.pruner.unref();
  }

  close(): void {
    clearInterval(this.pruner);
  }
}
