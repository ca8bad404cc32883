import assert from 'node:assert/strict';
import { KeywordIndex, QueryError, SearchHit } from '../../../src/keyword/index';
import { MISSING_HIGH, MISSING_LOW } from '../../../src/keyword/sort';
import { doc, ids, smallCorpus, smallIndex, sourcesOf } from './fixtures';

/** 200 docs with repeated dates and scores, so ties must be broken consistently. */
function pagingIndex(): KeywordIndex {
  const ix = new KeywordIndex();
  const docs = Array.from({ length: 200 }, (_, i) => doc(`p${String(i).padStart(3, '0')}`, `common ${i % 3 === 0 ? 'extra' : 'plain'} word${i % 5}`, {
    published_at: i % 10 === 9 ? undefined : new Date(Date.UTC(2024, 0, 1 + (i % 17))).toISOString(),
    created_at: new Date(Date.UTC(2023, 5, 1 + (i % 23))).toISOString(),
  }));
  ix.build(docs);
  return ix;
}

describe('keyword search: paging, sorting, search_after, min_score, highlight', () => {
  it('defaults to from 0 size 10 and counts totals', () => {
    const ix = pagingIndex();
    const res = ix.search({ query: { match: { text: 'common' } } });
    assert.equal(res.hits.hits.length, 10);
    assert.deepEqual(res.hits.total, { value: 200, relation: 'eq' });
    assert.equal(res.hits.hits[0].sort, undefined, 'no sort values unless sorted');
  });

  it('pages with from/size without overlap and rejects windows beyond 10000', () => {
    const ix = pagingIndex();
    const q = { query: { match: { text: 'extra word1' } } };
    const all = ids(ix.search({ ...q, size: 200 }));
    const paged: string[] = [];
    for (let from = 0; from < all.length; from += 7) paged.push(...ids(ix.search({ ...q, from, size: 7 })));
    assert.deepEqual(paged, all);
    assert.throws(() => ix.search({ from: 9995, size: 10 }), (e: unknown) => e instanceof QueryError && /Result window is too large/.test(e.message));
    assert.throws(() => ix.search({ size: -1 }), QueryError);
    assert.throws(() => ix.search({ from: 'x' }), QueryError);
    assert.equal(ix.search({ size: 0 }).hits.hits.length, 0);
  });

  it('sorts on published_at, created_at, id and _score, mixed, with epoch-millis sort values', () => {
    const ix = smallIndex();
    const byPub = ix.search({ sort: [{ published_at: 'desc' }] });
    assert.deepEqual(ids(byPub), ['b', 'a', 'c']);
    assert.deepEqual(byPub.hits.hits[0].sort, [Date.parse('2024-02-05T10:00:00Z'), 'b']);
    assert.deepEqual(byPub.hits.hits[2].sort, [MISSING_LOW, 'c'], 'missing date sorts last with Long.MIN_VALUE on desc');
    const asc = ix.search({ sort: [{ published_at: { order: 'asc' } }] });
    assert.deepEqual(ids(asc), ['a', 'b', 'c']);
    assert.equal(asc.hits.hits[2].sort?.[0], MISSING_HIGH);
    assert.deepEqual(ids(ix.search({ sort: [{ published_at: { order: 'asc', missing: '_first' } }] })), ['c', 'a', 'b']);
    assert.deepEqual(ids(ix.search({ sort: ['created_at'] })), ['a', 'b', 'c']);
    assert.deepEqual(ids(ix.search({ sort: { id: 'desc' } })), ['c', 'b', 'a']);
    const mixed = ix.search({ query: { match: { text: 'dog' } }, sort: ['_score', { created_at: 'desc' }] });
    assert.equal(mixed.hits.hits[0].sort?.length, 3);
    assert.equal(mixed.hits.hits[0].sort?.[0], mixed.hits.hits[0]._score);
    assert.throws(() => ix.search({ sort: ['text'] }), (e: unknown) => e instanceof QueryError && /sort/.test(e.message));
    assert.throws(() => ix.search({ sort: [{ published_at: 'up' }] }), QueryError);
  });

  for (const sort of [
    [{ published_at: 'desc' }],
    [{ created_at: 'asc' }, { published_at: 'desc' }],
    ['_score', { published_at: 'asc' }],
    [{ id: 'desc' }],
  ]) {
    it(`search_after visits every hit exactly once (sort ${JSON.stringify(sort)})`, () => {
      const ix = pagingIndex();
      const base = { query: { match: { text: 'extra word2 common' } }, sort };
      const expected = ids(ix.search({ ...base, size: 500 }));
      const seen: string[] = [];
      let after: unknown[] | undefined;
      for (let guard = 0; guard < 100; guard++) {
        const res = ix.search({ ...base, size: 9, ...(after ? { search_after: after } : {}) });
        if (res.hits.hits.length === 0) break;
        seen.push(...ids(res));
        after = res.hits.hits[res.hits.hits.length - 1].sort;
        assert.ok(after, 'hits carry sort values');
      }
      assert.equal(new Set(seen).size, seen.length, 'no repeats');
      assert.deepEqual(seen, expected);
    });
  }

  it('search_after survives a JSON round trip of its sort values and rejects bad ones', () => {
    const ix = pagingIndex();
    const first = ix.search({ sort: [{ published_at: 'asc' }], size: 195 });
    const last = JSON.parse(JSON.stringify(first.hits.hits[first.hits.hits.length - 1].sort)) as unknown[];
    const rest = ix.search({ sort: [{ published_at: 'asc' }], size: 100, search_after: last });
    assert.equal(first.hits.hits.length + rest.hits.hits.length, 200);
    assert.throws(() => ix.search({ sort: [{ published_at: 'asc' }], search_after: 'x' }), QueryError);
    assert.throws(() => ix.search({ sort: [{ published_at: 'asc' }], search_after: [1, 'a', 3] }), QueryError);
    assert.throws(() => ix.search({ sort: [{ published_at: 'asc' }], search_after: [{}] }), QueryError);
  });

  it('min_score drops weaker hits from hits and total', () => {
    const ix = smallIndex();
    const all = ix.search({ query: { match: { text: 'quick dog' } } });
    const min = all.hits.hits[1]._score;
    const res = ix.search({ query: { match: { text: 'quick dog' } }, min_score: min });
    assert.deepEqual(ids(res), ['b', 'a']);
    assert.equal(res.hits.total.value, 2);
  });

  it('ignores top-level keys it does not honour', () => {
    const ix = smallIndex();
    const res = ix.search({ query: { match: { text: 'fox' } }, track_total_hits: false, _source: false, post_filter: { nonsense: 1 } });
    assert.deepEqual(ids(res), ['a']);
  });

  it('copies requested document fields into hits', () => {
    const ix = smallIndex();
    const hit = ix.search({ query: { ids: { values: ['a'] } } }, { fields: ['text', 'meta', 'tags', 'published_at'] }, sourcesOf(smallCorpus())).hits.hits[0] as SearchHit;
    assert.equal(hit.text, 'The quick brown fox jumps over the lazy dog');
    assert.deepEqual(hit.tags, ['animals', 'story']);
    assert.equal((hit.meta as Record<string, unknown>).title, 'Fox story');
    assert.equal(hit.published_at, '2024-01-05T10:00:00Z');
    assert.equal(hit._score, 1);
  });

  it('highlights matching terms with default and custom tags', () => {
    const ix = smallIndex();
    const res = ix.search({ query: { match: { text: 'lazy dog' } }, highlight: { fields: { text: {} } } }, {}, sourcesOf(smallCorpus()));
    const a = res.hits.hits.find((h) => h.id === 'a')!;
    assert.deepEqual(a.highlight, { text: ['The quick brown fox jumps over the <em>lazy</em> <em>dog</em>'] });
    const custom = ix.search({ query: { match: { 'meta.title': 'fox' } }, highlight: { pre_tags: ['<b>'], post_tags: ['</b>'], fields: { 'meta.title': {}, text: {} } } }, {}, sourcesOf(smallCorpus()));
    assert.deepEqual(custom.hits.hits[0].highlight, { 'meta.title': ['<b>Fox</b> story'] }, 'only fields the query targets');
  });

  it('cuts highlight fragments by fragment_size and number_of_fragments', () => {
    const ix = new KeywordIndex();
    const words = Array.from({ length: 60 }, (_, i) => (i % 20 === 5 ? 'needle' : `w${i}`));
    const docs = [doc('long', words.join(' '))];
    ix.build(docs);
    const res = ix.search({ query: { match: { text: 'needle' } }, highlight: { fields: { text: { fragment_size: 30, number_of_fragments: 2 } } } }, {}, sourcesOf(docs));
    const frags = res.hits.hits[0].highlight!.text;
    assert.equal(frags.length, 2);
    for (const f of frags) {
      assert.ok(f.includes('<em>needle</em>'), f);
      assert.ok(f.replace(/<\/?em>/g, '').length <= 30, f);
    }
    assert.ok(frags[0].includes('w4'), 'fragments in text order');
    const whole = ix.search({ query: { match: { text: 'needle' } }, highlight: { fields: { text: { number_of_fragments: 0 } } } }, {}, sourcesOf(docs));
    assert.equal(whole.hits.hits[0].highlight!.text.length, 1);
    assert.equal(whole.hits.hits[0].highlight!.text[0].match(/<em>/g)?.length, 3);
    assert.throws(() => ix.search({ highlight: { fields: 'text' } }), QueryError);
    assert.throws(() => ix.search({ highlight: { fields: { text: { fragment_size: 'big' } } } }), QueryError);
  });

  it('throws only QueryError on garbage requests', () => {
    const ix = smallIndex();
    const garbage: unknown[] = [null, 'x', 3, [], { query: null }, { query: [] }, { sort: 5 }, { aggs: [] }, { highlight: 1 }, { min_score: 'x' },
      { query: { bool: { must: 'x' } } }, { query: { range: { published_at: 5 } } }, { query: { multi_match: { query: {} } } }];
    for (const g of garbage) assert.throws(() => ix.search(g), QueryError, JSON.stringify(g));
  });
});
