import assert from 'node:assert/strict';
import { QueryError } from '../../../src/keyword/index';
import { smallIndex } from './fixtures';

const aggs = (spec: Record<string, unknown>, query?: unknown): Record<string, unknown> =>
  smallIndex().search({ size: 0, aggs: spec, ...(query ? { query } : {}) }, { now: Date.parse('2024-03-01T00:00:00Z') }).aggregations!;

describe('keyword aggregations', () => {
  it('terms on tags with counts, size and order', () => {
    assert.deepEqual(aggs({ t: { terms: { field: 'tags' } } }).t, {
      doc_count_error_upper_bound: 0, sum_other_doc_count: 0,
      buckets: [{ key: 'animals', doc_count: 2 }, { key: 'cats', doc_count: 1 }, { key: 'story', doc_count: 1 }],
    });
    const small = aggs({ t: { terms: { field: 'tags', size: 1 } } }).t as { sum_other_doc_count: number; buckets: unknown[] };
    assert.equal(small.buckets.length, 1);
    assert.equal(small.sum_other_doc_count, 2);
    const byKey = aggs({ t: { terms: { field: 'tags', order: { _key: 'desc' } } } }).t as { buckets: { key: string }[] };
    assert.deepEqual(byKey.buckets.map((b) => b.key), ['story', 'cats', 'animals']);
  });

  it('terms on meta keyword values, booleans and only over matching docs', () => {
    const t = aggs({ c: { terms: { field: 'meta.category.keyword' } } }).c as { buckets: unknown[] };
    assert.deepEqual(t.buckets, [{ key: 'Animals', doc_count: 2 }, { key: 'Pets', doc_count: 1 }]);
    const lenient = aggs({ c: { terms: { field: 'meta.category' } } }).c as { buckets: unknown[] };
    assert.deepEqual(lenient.buckets, t.buckets);
    const b = aggs({ f: { terms: { field: 'meta.flag' } } }).f as { buckets: unknown[] };
    assert.deepEqual(b.buckets, [{ key: 0, key_as_string: 'false', doc_count: 1 }, { key: 1, key_as_string: 'true', doc_count: 1 }]);
    const q = aggs({ t: { terms: { field: 'tags' } } }, { match: { text: 'cats' } }).t as { buckets: unknown[] };
    assert.deepEqual(q.buckets, [{ key: 'cats', doc_count: 1 }]);
  });

  it('date_histogram with calendar and fixed intervals, empty buckets filled', () => {
    const h = aggs({ h: { date_histogram: { field: 'published_at', calendar_interval: 'month' } } }).h;
    assert.deepEqual(h, { buckets: [
      { key_as_string: '2024-01-01T00:00:00.000Z', key: Date.UTC(2024, 0, 1), doc_count: 1 },
      { key_as_string: '2024-02-01T00:00:00.000Z', key: Date.UTC(2024, 1, 1), doc_count: 1 },
    ] });
    const d = aggs({ h: { date_histogram: { field: 'created_at', fixed_interval: '1d' } } }).h as { buckets: { doc_count: number }[] };
    assert.deepEqual(d.buckets.map((b) => b.doc_count), [1, 1, 1]);
    const w = aggs({ h: { date_histogram: { field: 'published_at', calendar_interval: '1w' } } }).h as { buckets: { key_as_string: string }[] };
    assert.equal(w.buckets[0].key_as_string, '2024-01-01T00:00:00.000Z', 'weeks start on Monday');
    assert.equal(w.buckets.length, 6, 'empty weeks between are present');
  });

  it('range buckets with ES keys; metrics min/max/avg/sum/value_count/cardinality', () => {
    assert.deepEqual(aggs({ r: { range: { field: 'meta.rating', ranges: [{ to: 5 }, { from: 5, to: 7 }, { from: 7, key: 'high' }] } } }).r, {
      buckets: [
        { key: '*-5.0', to: 5, doc_count: 1 },
        { key: '5.0-7.0', from: 5, to: 7, doc_count: 1 },
        { key: 'high', from: 7, doc_count: 1 },
      ],
    });
    const m = aggs({
      min: { min: { field: 'meta.rating' } }, max: { max: { field: 'meta.rating' } }, avg: { avg: { field: 'meta.rating' } },
      sum: { sum: { field: 'meta.rating' } }, vc: { value_count: { field: 'tags' } }, card: { cardinality: { field: 'tags' } },
      first: { min: { field: 'published_at' } }, none: { avg: { field: 'meta.missing' } },
    });
    assert.deepEqual(m.min, { value: 2 });
    assert.deepEqual(m.max, { value: 7 });
    assert.deepEqual(m.avg, { value: 14 / 3 });
    assert.deepEqual(m.sum, { value: 14 });
    assert.deepEqual(m.vc, { value: 4 });
    assert.deepEqual(m.card, { value: 3 });
    assert.deepEqual(m.first, { value: Date.parse('2024-01-05T10:00:00Z'), value_as_string: '2024-01-05T10:00:00.000Z' });
    assert.deepEqual(m.none, { value: null });
  });

  it('date range buckets carry *_as_string', () => {
    const r = aggs({ r: { range: { field: 'published_at', ranges: [{ to: '2024-02-01' }, { from: 'now-1M/M' }] } } }).r as { buckets: Record<string, unknown>[] };
    assert.equal(r.buckets[0].key, '*-2024-02-01T00:00:00.000Z');
    assert.equal(r.buckets[0].doc_count, 1);
    assert.equal(r.buckets[1].from_as_string, '2024-02-01T00:00:00.000Z');
    assert.equal(r.buckets[1].doc_count, 1);
  });

  it('sub-aggregations one level deep, and ordering terms by a metric', () => {
    const t = aggs({ t: { terms: { field: 'tags', order: { avg_rating: 'desc' } }, aggs: { avg_rating: { avg: { field: 'meta.rating' } } } } }).t as { buckets: unknown[] };
    assert.deepEqual(t.buckets, [
      { key: 'animals', doc_count: 2, avg_rating: { value: 6 } },
      { key: 'story', doc_count: 1, avg_rating: { value: 5 } },
      { key: 'cats', doc_count: 1, avg_rating: { value: 2 } },
    ]);
    const h = aggs({ h: { date_histogram: { field: 'created_at', calendar_interval: 'day' }, aggs: { tags: { terms: { field: 'tags' } } } } }).h as { buckets: { tags: { buckets: unknown[] } }[] };
    assert.deepEqual(h.buckets[2].tags.buckets, [{ key: 'cats', doc_count: 1 }]);
  });

  it('rejects malformed aggregations', () => {
    const bad: Record<string, unknown>[] = [
      { x: { nope: { field: 'tags' } } },
      { x: { terms: { field: 'tags', size: 0 } } },
      { x: { terms: { field: 'tags' }, avg: { field: 'meta.rating' } } },
      { x: { date_histogram: { field: 'published_at' } } },
      { x: { date_histogram: { field: 'published_at', fixed_interval: 'fortnight' } } },
      { x: { range: { field: 'meta.rating' } } },
      { x: { avg: { field: 'meta.rating' }, aggs: { y: { min: { field: 'meta.rating' } } } } },
      { x: { avg: { field: 'tags' } } },
      { x: 3 },
    ];
    for (const spec of bad) assert.throws(() => aggs(spec), QueryError, JSON.stringify(spec));
  });
});
