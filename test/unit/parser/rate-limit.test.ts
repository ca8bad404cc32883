import assert from 'node:assert/strict';
import { SlidingWindowRateLimiter } from '../../../src/parser/rate-limit';

describe('parser: rate limiter', () => {
  it('allows one request per second per key by default', () => {
    const limiter = new SlidingWindowRateLimiter();
    const first = limiter.take('key-a', 10_000);
    assert.equal(first.allowed, true);
    assert.deepEqual(first.headers, { 'X-RateLimit-Limit': '1', 'X-RateLimit-Remaining': '0' });
    const second = limiter.take('key-a', 10_400);
    assert.equal(second.allowed, false);
    assert.equal(second.retryAfterMs, 600);
    assert.equal(limiter.take('key-b', 10_400).allowed, true, 'keys are independent');
    assert.equal(limiter.take('key-a', 11_001).allowed, true);
  });
  it('counts a configurable number of requests in the window', () => {
    const limiter = new SlidingWindowRateLimiter(3, 1000);
    assert.deepEqual([0, 100, 200, 300].map((t) => limiter.take('k', t).allowed), [true, true, true, false]);
    assert.equal(limiter.take('k', 1150).remaining, 1); // window (150, 1150] holds 200 and 1150
    assert.equal(limiter.take('k', 2300).remaining, 2);
  });
  it('prunes idle keys', () => {
    const limiter = new SlidingWindowRateLimiter();
    limiter.take('old', 0);
    limiter.prune(5000);
    assert.equal(limiter.take('old', 5001).remaining, 0);
  });
  it('rejects nonsense settings', () => assert.throws(() => new SlidingWindowRateLimiter(0, 1000), RangeError));
});
