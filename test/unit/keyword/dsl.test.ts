import assert from 'node:assert/strict';
import { KeywordIndex, QueryError } from '../../../src/keyword/index';
import { doc, ids, smallIndex } from './fixtures';

const sorted = (xs: string[]): string[] => [...xs].sort();
const hitIds = (ix: KeywordIndex, query: unknown, extra: Record<string, unknown> = {}): string[] =>
  sorted(ids(ix.search({ query, size: 100, ...extra }, { now: Date.parse('2024-02-10T12:00:00Z') })));

describe('keyword query DSL', () => {
  const ix = smallIndex();

  it('match: or by default, operator and, minimum_should_match', () => {
    assert.deepEqual(hitIds(ix, { match: { text: 'fox cats' } }), ['a', 'c']);
    assert.deepEqual(hitIds(ix, { match: { text: { query: 'quick lazy', operator: 'and' } } }), ['a']);
    assert.deepEqual(hitIds(ix, { match: { text: { query: 'quick brown lazy', minimum_should_match: 2 } } }), ['a', 'b']);
    assert.deepEqual(hitIds(ix, { match: { text: { query: 'quick brown lazy', minimum_should_match: '100%' } } }), ['a']);
    assert.deepEqual(hitIds(ix, { match: { text: { query: 'quick brown lazy', minimum_should_match: '-1' } } }), ['a', 'b']);
    assert.deepEqual(hitIds(ix, { match: { text: 'UPPER-case??' } }), []);
    assert.deepEqual(hitIds(ix, { match: { text: { query: '!!!', zero_terms_query: 'all' } } }), ['a', 'b', 'c']);
  });

  it('match on keyword and numeric meta fields uses exact values', () => {
    assert.deepEqual(hitIds(ix, { match: { tags: 'animals' } }), ['a', 'b']);
    assert.deepEqual(hitIds(ix, { match: { 'meta.rating': 7 } }), ['b']);
    assert.deepEqual(hitIds(ix, { match: { 'meta.author.name': 'lee' } }), ['a']);
  });

  it('match_phrase with and without slop', () => {
    assert.deepEqual(hitIds(ix, { match_phrase: { text: 'lazy dog' } }), ['a']);
    assert.deepEqual(hitIds(ix, { match_phrase: { text: 'quick dog' } }), []);
    assert.deepEqual(hitIds(ix, { match_phrase: { text: { query: 'quick dog', slop: 1 } } }), ['b']);
    assert.deepEqual(hitIds(ix, { match_phrase: { text: { query: 'dog lazy', slop: 1 } } }), []);
    assert.deepEqual(hitIds(ix, { match_phrase: { text: { query: 'dog lazy', slop: 2 } } }), ['a']);
    // a sloppier match scores lower than an exact one
    const ix2 = new KeywordIndex();
    ix2.build([doc('x', 'red big car'), doc('y', 'red car'), doc('z', 'blue bike')]);
    const res = ix2.search({ query: { match_phrase: { text: { query: 'red car', slop: 2 } } } });
    assert.deepEqual(ids(res), ['y', 'x']);
  });

  it('phrases never match across values of a multi-valued field', () => {
    const ix2 = new KeywordIndex();
    ix2.build([doc('m', 'x', { meta: { names: ['john', 'smith'] } }), doc('n', 'x', { meta: { names: ['john smith'] } })]);
    assert.deepEqual(hitIds(ix2, { match_phrase: { 'meta.names': 'john smith' } }), ['n']);
  });

  it('multi_match best_fields, most_fields, phrase, wildcards and boosts', () => {
    const best = ix.search({ query: { multi_match: { query: 'dog', fields: ['text', 'meta.title'] } } });
    const most = ix.search({ query: { multi_match: { query: 'dog', fields: ['text', 'meta.title'], type: 'most_fields' } } });
    const bScoreBest = best.hits.hits.find((h) => h.id === 'b')!._score;
    const bScoreMost = most.hits.hits.find((h) => h.id === 'b')!._score;
    assert.ok(bScoreMost > bScoreBest, 'most_fields sums field scores');
    assert.deepEqual(hitIds(ix, { multi_match: { query: 'ann', fields: ['meta.*'] } }), ['a']);
    assert.deepEqual(hitIds(ix, { multi_match: { query: 'brown dog', fields: ['text'], type: 'phrase' } }), ['b']);
    assert.equal(ids(ix.search({ query: { multi_match: { query: 'dog', fields: ['text', 'meta.title^10'] } } }))[0], 'b');
  });

  it('bool: must, should, filter, must_not, minimum_should_match', () => {
    assert.deepEqual(hitIds(ix, { bool: { must: [{ match: { text: 'dog' } }], must_not: [{ match: { text: 'fox' } }] } }), ['b', 'c']);
    assert.deepEqual(hitIds(ix, { bool: { filter: [{ term: { tags: 'animals' } }], should: [{ match: { text: 'lazy' } }] } }), ['a', 'b']);
    assert.deepEqual(hitIds(ix, { bool: { should: [{ match: { text: 'fox' } }, { match: { text: 'cats' } }, { match: { text: 'lazy' } }], minimum_should_match: 2 } }), ['a', 'c']);
    assert.deepEqual(hitIds(ix, { bool: { filter: [{ term: { tags: 'animals' } }], should: [{ match: { text: 'lazy' } }], minimum_should_match: 1 } }), ['a']);
    assert.deepEqual(hitIds(ix, { bool: { must_not: [{ term: { tags: 'cats' } }] } }), ['a', 'b']);
    assert.deepEqual(hitIds(ix, { bool: {} }), ['a', 'b', 'c']);
    const f = ix.search({ query: { bool: { filter: [{ term: { tags: 'animals' } }] } } });
    assert.ok(f.hits.hits.every((h) => h._score === 0), 'filter context does not score');
    const boosted = ix.search({ query: { bool: { must: [{ match: { text: 'fox' } }], boost: 2 } } }).hits.hits[0]._score;
    const plain = ix.search({ query: { match: { text: 'fox' } } }).hits.hits[0]._score;
    assert.ok(Math.abs(boosted - 2 * plain) < 1e-9);
  });

  it('term and terms: exact, not analyzed; ids; exists', () => {
    assert.deepEqual(hitIds(ix, { term: { text: 'quick' } }), ['a', 'b']);
    assert.deepEqual(hitIds(ix, { term: { text: 'Quick' } }), []);
    assert.deepEqual(hitIds(ix, { term: { 'meta.category.keyword': 'Animals' } }), ['a', 'b']);
    assert.deepEqual(hitIds(ix, { term: { 'meta.category.keyword': 'animals' } }), []);
    assert.deepEqual(hitIds(ix, { term: { 'meta.flag': true } }), ['a']);
    assert.deepEqual(hitIds(ix, { term: { 'meta.rating': { value: 2 } } }), ['c']);
    assert.deepEqual(hitIds(ix, { term: { id: 'b' } }), ['b']);
    assert.deepEqual(hitIds(ix, { terms: { tags: ['cats', 'story'] } }), ['a', 'c']);
    const t = ix.search({ query: { terms: { tags: ['cats', 'story'], boost: 2 } } });
    assert.ok(t.hits.hits.every((h) => h._score === 2), 'terms is constant score');
    assert.deepEqual(hitIds(ix, { ids: { values: ['c', 'a', 'zzz'] } }), ['a', 'c']);
    assert.deepEqual(hitIds(ix, { exists: { field: 'published_at' } }), ['a', 'b']);
    assert.deepEqual(hitIds(ix, { exists: { field: 'meta.flag' } }), ['a', 'c']);
    assert.deepEqual(hitIds(ix, { exists: { field: 'meta.author' } }), ['a']);
    assert.deepEqual(hitIds(ix, { exists: { field: 'meta.nothing' } }), []);
    assert.deepEqual(hitIds(ix, { match_all: {} }), ['a', 'b', 'c']);
    assert.deepEqual(hitIds(ix, { term: { unknown_field: 'x' } }), []);
  });

  it('range on numbers, dates, created_at and date math', () => {
    assert.deepEqual(hitIds(ix, { range: { 'meta.rating': { gte: 5 } } }), ['a', 'b']);
    assert.deepEqual(hitIds(ix, { range: { 'meta.rating': { gt: 2, lt: 7 } } }), ['a']);
    assert.deepEqual(hitIds(ix, { range: { published_at: { gte: '2024-02-01' } } }), ['b']);
    assert.deepEqual(hitIds(ix, { range: { published_at: { lte: '2024-01-05' } } }), ['a']);
    assert.deepEqual(hitIds(ix, { range: { published_at: { lt: '2024-01-05' } } }), []);
    assert.deepEqual(hitIds(ix, { range: { published_at: { gte: 'now-7d' } } }), ['b']);
    assert.deepEqual(hitIds(ix, { range: { published_at: { gte: 'now-1M/M' } } }), ['a', 'b']);
    assert.deepEqual(hitIds(ix, { range: { published_at: { gt: '2024-01-05T10:00:00Z' } } }), ['b']);
    assert.deepEqual(hitIds(ix, { range: { published_at: { gt: '2024-01-05||/d' } } }), ['b']);
    assert.deepEqual(hitIds(ix, { range: { created_at: { gte: '2024-01-02', lte: '2024-01-03' } } }), ['b', 'c']);
    assert.deepEqual(hitIds(ix, { range: { created_at: { gte: 1704153600000 } } }), ['b', 'c']);
    const r = ix.search({ query: { range: { 'meta.rating': { gte: 0 } } } });
    assert.ok(r.hits.hits.every((h) => h._score === 1));
  });

  it('query_string: AND/OR/NOT, quotes, field:term, groups, ranges, prefixes', () => {
    assert.deepEqual(hitIds(ix, { query_string: { query: 'fox OR cats' } }), ['a', 'c']);
    assert.deepEqual(hitIds(ix, { query_string: { query: 'dog AND NOT fox' } }), ['b', 'c']);
    assert.deepEqual(hitIds(ix, { query_string: { query: '"lazy dog"' } }), ['a']);
    assert.deepEqual(hitIds(ix, { query_string: { query: 'meta.title:cats' } }), ['c']);
    assert.deepEqual(hitIds(ix, { query_string: { query: 'tags:animals AND (lazy OR tale)' } }), ['a', 'b']);
    assert.deepEqual(hitIds(ix, { query_string: { query: '+dog -lazy' } }), ['b']);
    assert.deepEqual(hitIds(ix, { query_string: { query: 'meta.rating:[3 TO *]' } }), ['a', 'b']);
    assert.deepEqual(hitIds(ix, { query_string: { query: 'published_at:[2024-02-01 TO *]' } }), ['b']);
    assert.deepEqual(hitIds(ix, { query_string: { query: 'jum*' } }), ['a']);
    assert.deepEqual(hitIds(ix, { query_string: { query: 'quick lazy', default_operator: 'AND' } }), ['a']);
    assert.deepEqual(hitIds(ix, { query_string: { query: 'fox', fields: ['meta.title'] } }), ['a']);
    assert.deepEqual(hitIds(ix, { query_string: { query: '*' } }), ['a', 'b', 'c']);
  });

  it('simple_query_string: + | - quotes, lenient syntax', () => {
    assert.deepEqual(hitIds(ix, { simple_query_string: { query: 'fox | cats' } }), ['a', 'c']);
    assert.deepEqual(hitIds(ix, { simple_query_string: { query: 'dog +lazy' } }), ['a', 'c']);
    assert.deepEqual(hitIds(ix, { simple_query_string: { query: 'dog -fox', default_operator: 'and' } }), ['b', 'c']);
    assert.deepEqual(hitIds(ix, { simple_query_string: { query: '"brown dog"' } }), ['b']);
    assert.deepEqual(hitIds(ix, { simple_query_string: { query: '"brown dog', fields: ['text'] } }), ['b']);
    assert.doesNotThrow(() => ix.search({ query: { simple_query_string: { query: '((( |||' } } }));
  });

  it('rejects malformed clauses with a QueryError naming them', () => {
    const bad: [unknown, RegExp][] = [
      [{ nope: {} }, /unknown query \[nope\]/],
      [{ match: { text: { query: 'x', operator: 'xor' } } }, /\[match\].*operator/],
      [{ match: { text: { qery: 'x' } } }, /\[match\]/],
      [{ match: { a: 'x', b: 'y' } }, /\[match\] malformed/],
      [{ bool: { must: [{ match: {} }] } }, /\[match\]/],
      [{ bool: { must: { unknown_q: {} } } }, /unknown_q/],
      [{ bool: { shold: [] } }, /\[bool\] query does not support \[shold\]/],
      [{ range: { published_at: { gte: 'yesterday' } } }, /published_at/],
      [{ range: { 'meta.rating': { gte: 'abc' } } }, /numeric/],
      [{ terms: { tags: 'animals' } }, /\[terms\]/],
      [{ ids: { values: 'a' } }, /\[ids\]/],
      [{ exists: {} }, /exists/],
      [{ query_string: { query: 'a AND (b' } }, /query_string/],
      [{ query_string: { query: 'a AND' } }, /query_string/],
      [{ multi_match: { query: 'x', type: 'cross_fields' } }, /multi_match/],
      [{}, /\[query\] is empty/],
      ['text', /\[query\]/],
      [{ match_phrase: { text: { query: 'a b', slop: -1 } } }, /slop/],
    ];
    for (const [q, re] of bad) {
      assert.throws(() => ix.search({ query: q }), (e: unknown) => e instanceof QueryError && re.test(e.message), JSON.stringify(q));
    }
  });
});

describe('keyword query DSL: query_string on exact-value fields', () => {
  it('field:value on dates, numbers and booleans compares exact values', () => {
    const ix = smallIndex();
    assert.deepEqual(hitIds(ix, { query_string: { query: 'published_at:2024-01-05' } }), ['a']);
    assert.deepEqual(hitIds(ix, { query_string: { query: 'meta.rating:7 OR meta.flag:false' } }), ['b', 'c']);
    assert.deepEqual(hitIds(ix, { query_string: { query: 'id:c' } }), ['c']);
  });
});
