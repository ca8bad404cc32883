import assert from 'node:assert/strict';
import { analyze, analyzeWithOffsets } from '../../../src/keyword/analyzer';
import { parseDate, resolveDateMath } from '../../../src/keyword/datemath';
import { QueryError } from '../../../src/keyword/errors';
import { resolveMinimumShouldMatch } from '../../../src/keyword/msm';

describe('keyword analyzer', () => {
  it('lowercases and splits on Unicode word boundaries like the standard tokenizer', () => {
    assert.deepEqual(analyze('The Quick-Brown fox_tail, e.g. U.S.A. costs 1,000.50 — don\'t!'),
      ['the', 'quick', 'brown', 'fox_tail', 'e.g', 'u.s.a', 'costs', '1,000.50', "don't"]);
    assert.deepEqual(analyze('Straße Café naïve ÉCOLE'), ['straße', 'café', 'naïve', 'école']);
    assert.deepEqual(analyze('日本語 text'), ['日', '本', '語', 'text']);
    assert.deepEqual(analyze('a,b 3,x example.com'), ['a', 'b', '3', 'x', 'example.com']);
    assert.deepEqual(analyze('  ...  '), []);
  });

  it('reports offsets into the original text', () => {
    const text = 'Hello, Wörld';
    const toks = analyzeWithOffsets(text);
    assert.deepEqual(toks.map((t) => text.slice(t.start, t.end)), ['Hello', 'Wörld']);
    assert.deepEqual(toks.map((t) => t.position), [0, 1]);
  });
});

describe('keyword date math and minimum_should_match', () => {
  const now = Date.parse('2024-03-15T13:45:30.123Z');
  it('parses dates and epoch millis', () => {
    assert.equal(parseDate('2024-03-15'), Date.UTC(2024, 2, 15));
    assert.equal(parseDate('2024-03-15T10:00:00+02:00'), Date.UTC(2024, 2, 15, 8));
    assert.equal(parseDate('1710460800000'), 1710460800000);
    assert.equal(parseDate('2024-02-30'), undefined);
    assert.equal(parseDate('soon'), undefined);
  });

  it('resolves now, offsets and rounding (down for gte/lt, up for gt/lte)', () => {
    assert.equal(resolveDateMath('now', now, false, 'x'), now);
    assert.equal(resolveDateMath('now-7d', now, false, 'x'), now - 7 * 86_400_000);
    assert.equal(resolveDateMath('now/d', now, false, 'x'), Date.UTC(2024, 2, 15));
    assert.equal(resolveDateMath('now/d', now, true, 'x'), Date.UTC(2024, 2, 16) - 1);
    assert.equal(resolveDateMath('now-1M/M', now, false, 'x'), Date.UTC(2024, 1, 1));
    assert.equal(resolveDateMath('now/w', now, false, 'x'), Date.UTC(2024, 2, 11), 'Monday');
    assert.equal(resolveDateMath('2024-01-31||+1M', now, false, 'x'), Date.UTC(2024, 1, 29), 'clamped like java.time');
    assert.equal(resolveDateMath('2024-02-29||+1y', now, false, 'x'), Date.UTC(2025, 1, 28));
    assert.equal(resolveDateMath('2024-01-05', now, true, 'x'), Date.UTC(2024, 0, 6) - 1);
    assert.throws(() => resolveDateMath('now-7x', now, false, 'range.published_at'), (e: unknown) => e instanceof QueryError && /range.published_at/.test(e.message));
  });

  it('computes minimum_should_match like Elasticsearch', () => {
    assert.equal(resolveMinimumShouldMatch(2, 5), 2);
    assert.equal(resolveMinimumShouldMatch(-2, 5), 3);
    assert.equal(resolveMinimumShouldMatch('75%', 3), 2);
    assert.equal(resolveMinimumShouldMatch('-25%', 3), 3);
    assert.equal(resolveMinimumShouldMatch('3<90%', 3), 3);
    assert.equal(resolveMinimumShouldMatch('3<90%', 10), 9);
    assert.equal(resolveMinimumShouldMatch('2<-25% 9<-3', 12), 9);
    assert.equal(resolveMinimumShouldMatch(7, 3), 3);
    assert.throws(() => resolveMinimumShouldMatch('lots', 3), QueryError);
  });
});
