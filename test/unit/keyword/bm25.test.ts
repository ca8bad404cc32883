import assert from 'node:assert/strict';
import { KeywordIndex, type KeywordDocument } from '../../../src/keyword/index';
import { seededRandom } from '../../../src/random';
import { luceneLength } from '../../../src/keyword/norms';
import { bm25, doc, smallIndex } from './fixtures';

const close = (a: number, b: number): void => assert.ok(Math.abs(a - b) < 1e-4, `${a} != ${b}`);

describe('keyword BM25 scores', () => {
  it('matches a value worked out by hand (match "quick dog", doc b)', () => {
    // text lengths a=9, b=4, c=9 -> avgdl 22/3; N=3; df(quick)=2, df(dog)=3.
    // idf(quick)=ln(1+1.5/2.5)=0.470004, idf(dog)=ln(1+0.5/3.5)=0.133531
    // K(b)=1.2*(0.25+0.75*4/7.3333)=0.790909; tf part=2.2/1.790909=1.228426
    // score = (0.470004+0.133531)*1.228426 = 0.741398
    const res = smallIndex().search({ query: { match: { text: 'quick dog' } } });
    const b = res.hits.hits.find((h) => h.id === 'b');
    close(b!._score, 0.741398);
    close(res.hits.max_score!, 0.741398);
  });

  it('scores every hit of a multi-term match as the sum of per-term BM25', () => {
    const res = smallIndex().search({ query: { match: { text: 'quick dog' } } });
    const avg = 22 / 3;
    const expected: Record<string, number> = {
      a: bm25(1, 2, 3, 9, avg) + bm25(1, 3, 3, 9, avg),
      b: bm25(1, 2, 3, 4, avg) + bm25(1, 3, 3, 4, avg),
      c: bm25(1, 3, 3, 9, avg),
    };
    assert.deepEqual(res.hits.hits.map((h) => h.id), ['b', 'a', 'c']);
    for (const h of res.hits.hits) close(h._score, expected[h.id]);
  });

  it('counts term frequency ("the" twice in a)', () => {
    const res = smallIndex().search({ query: { match: { text: 'the' } } });
    const a = res.hits.hits.find((h) => h.id === 'a')!;
    const c = res.hits.hits.find((h) => h.id === 'c')!;
    close(a._score, bm25(2, 2, 3, 9, 22 / 3));
    close(c._score, bm25(1, 2, 3, 9, 22 / 3));
  });

  it('uses per-field statistics for meta sub-fields (N = docs with the field)', () => {
    const ix = smallIndex();
    ix.upsert(doc('d', 'no meta here'));
    // meta.title lengths: 2, 2, 1 -> avgdl 5/3, N = 3 (d has no title)
    const res = ix.search({ query: { match: { 'meta.title': 'dog' } } });
    assert.equal(res.hits.hits.length, 1);
    close(res.hits.hits[0]._score, bm25(1, 1, 3, 2, 5 / 3));
  });

  it('applies boost, and multi_match field boosts', () => {
    const ix = smallIndex();
    const plain = ix.search({ query: { match: { text: 'fox' } } }).hits.hits[0]._score;
    const boosted = ix.search({ query: { match: { text: { query: 'fox', boost: 3 } } } }).hits.hits[0]._score;
    close(boosted, plain * 3);
    const mm = ix.search({ query: { multi_match: { query: 'fox', fields: ['text', 'meta.title^2'] } } }).hits.hits[0];
    close(mm._score, Math.max(plain, 2 * bm25(1, 1, 3, 2, 5 / 3)));
  });

  it("reproduces Lucene's lossy one-byte length norm for long fields", () => {
    assert.equal(luceneLength(23), 23);
    assert.equal(luceneLength(39), 39);
    assert.equal(luceneLength(41), 40);
    assert.equal(luceneLength(100), 96); // 100 - 24 = 76 = 0b1001100 keeps 4 bits: 0b1001000 = 72
    const ix = new KeywordIndex();
    const long = ['target', ...Array.from({ length: 40 }, (_, i) => `w${i}`)].join(' ');
    ix.build([doc('long', long), doc('short', 'target here'), doc('other', 'nothing')]);
    const res = ix.search({ query: { match: { text: 'target' } } });
    const avg = (41 + 2 + 1) / 3;
    close(res.hits.hits.find((h) => h.id === 'long')!._score, bm25(1, 2, 3, 40, avg));
    close(res.hits.hits.find((h) => h.id === 'short')!._score, bm25(1, 2, 3, 2, avg));
  });

  it('scores a phrase with the sum of its terms idf and the phrase frequency', () => {
    const res = smallIndex().search({ query: { match_phrase: { text: 'brown dog' } } });
    assert.deepEqual(res.hits.hits.map((h) => h.id), ['b']);
    const avg = 22 / 3;
    const idf = (df: number): number => Math.log(1 + (3 - df + 0.5) / (df + 0.5));
    const expected = (idf(2) + idf(3)) * 2.2 * 1 / (1 + 1.2 * (0.25 + 0.75 * 4 / avg));
    close(res.hits.hits[0]._score, expected);
  });

  it('scores a term on a keyword field as Lucene does without norms', () => {
    // tags: a has 2 values, b 1, c 1 -> avgdl = 4/3; df(animals) = 2, N = 3
    const res = smallIndex().search({ query: { term: { tags: 'animals' } } });
    const idf = Math.log(1 + (3 - 2 + 0.5) / 2.5);
    const expected = idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 / (4 / 3)));
    for (const h of res.hits.hits) close(h._score, expected);
    assert.equal(res.hits.hits.length, 2);
  });

  it('reflects updates and deletes in the statistics immediately', () => {
    const ix = smallIndex();
    ix.remove('c');
    ix.upsert(doc('b', 'quick quick'));
    // text: a (9 tokens), b (2 tokens); avgdl 5.5; df(quick) = 2
    const res = ix.search({ query: { match: { text: 'quick' } } });
    close(res.hits.hits.find((h) => h.id === 'b')!._score, bm25(2, 2, 2, 2, 5.5));
    close(res.hits.hits.find((h) => h.id === 'a')!._score, bm25(1, 2, 2, 9, 5.5));
    assert.equal(ix.search({ query: { match: { text: 'cats' } } }).hits.total.value, 0);
  });

  it('answers the same whether postings grew write by write (terms moved, pool compacted) or were built at once', () => {
    const next = seededRandom(21);
    const words = Array.from({ length: 60 }, (_, i) => `w${i}`);
    const text = (): string => Array.from({ length: 3 + Math.floor(next() * 30) }, () => words[Math.floor(next() ** 2 * words.length)]).join(' ');
    const grown = new KeywordIndex();
    const latest = new Map<string, KeywordDocument>();
    for (let i = 0; i < 4000; i++) {
      const id = `d${Math.floor(next() * 1500)}`;
      if (next() < 0.1) {
        grown.remove(id);
        latest.delete(id);
      } else {
        const d = doc(id, text());
        grown.upsert(d);
        latest.set(id, d);
      }
    }
    const built = new KeywordIndex();
    built.build(latest.values());
    const queries = [
      { match: { text: 'w0 w1 w7' } }, { match: { text: { query: 'w2 w3', operator: 'and' } } },
      { match_phrase: { text: 'w0 w1' } }, { match_phrase: { text: { query: 'w3 w0', slop: 2 } } }, { prefix: { text: 'w5' } },
    ];
    for (const query of queries) {
      const q = { query, size: 50, sort: ['_score', { id: 'asc' }] };
      const a = grown.search(q);
      const b = built.search(q);
      assert.deepEqual(a.hits.hits.map((h) => h.id), b.hits.hits.map((h) => h.id), JSON.stringify(query));
      a.hits.hits.forEach((h, i) => close(h._score, b.hits.hits[i]!._score));
      assert.equal(a.hits.total.value, b.hits.total.value);
    }
    grown.trim();
    for (const query of queries) assert.deepEqual(grown.search({ query, size: 50 }).hits.hits.map((h) => h.id), built.search({ query, size: 50 }).hits.hits.map((h) => h.id));
  });

  it('renumbers on compaction without the documents: every field, aggregation and sort as a fresh build', () => {
    const next = seededRandom(5);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
    const make = (id: string, round: number): KeywordDocument => doc(id, `${pick(['alpha', 'beta', 'gamma'])} ${pick(['red', 'green'])} w${round % 11}`, {
      meta: { kind: pick(['cat', 'dog', 'owl']), size: Math.floor(next() * 10), title: `${pick(['big', 'small'])} ${id}`, seen: next() < 0.5 },
      tags: next() < 0.3 ? [] : [pick(['t1', 't2', 't3']), `only-${id}`],
      published_at: next() < 0.2 ? undefined : new Date(Date.UTC(2024, 0, 1 + Math.floor(next() * 60))).toISOString(),
      updated_at: new Date(Date.UTC(2025, 0, 1, 0, 0, round)).toISOString(),
    });
    const grown = new KeywordIndex();
    const latest = new Map<string, KeywordDocument>();
    let compactions = 0;
    for (let round = 0; round < 12_000; round++) {
      const id = `d${Math.floor(next() * 2500)}`;
      const before = grown.internals.maxDoc;
      if (next() < 0.35) {
        grown.remove(id);
        latest.delete(id);
      } else {
        const d = make(id, round);
        grown.upsert(d);
        latest.set(id, d);
      }
      if (grown.internals.maxDoc < before) compactions++;
    }
    assert.ok(compactions >= 2, `${compactions} compactions`);
    const built = new KeywordIndex();
    built.build(latest.values());
    const requests = [
      { query: { match: { text: 'alpha w3' } }, size: 30, aggs: { kinds: { terms: { field: 'meta.kind.keyword' } }, tags: { terms: { field: 'tags', size: 50 } } } },
      { query: { bool: { filter: [{ term: { 'meta.kind.keyword': 'owl' } }, { range: { 'meta.size': { gte: 4 } } }, { term: { 'meta.seen': true } }] } }, size: 40, sort: [{ published_at: 'desc' }, { id: 'asc' }] },
      { query: { terms: { tags: ['t2', 'only-d7', 'only-d1200'] } }, size: 100, sort: ['id'] },
      { query: { match_phrase: { 'meta.title': 'small d1' } }, size: 20 },
      { query: { exists: { field: 'published_at' } }, size: 0, aggs: { sizes: { avg: { field: 'meta.size' } }, seen: { cardinality: { field: 'meta.kind.keyword' } }, days: { date_histogram: { field: 'published_at', calendar_interval: 'week' } } } },
    ];
    for (const request of requests) assert.deepEqual(grown.search(request), built.search(request), JSON.stringify(request));
    // What a restart reconciles by: each live document's indexed version.
    const docs = [...latest.values()];
    const versions = { ids: docs.map((d) => d.id), updatedAt: Float64Array.from(docs, (d) => Date.parse(d.updated_at!)), tags: docs.map((d) => d.tags ?? []) };
    assert.deepEqual(grown.reconcile(versions), []);
    const newer = Float64Array.from(versions.updatedAt);
    newer[0] = Date.parse('2030-01-01T00:00:00.000Z');
    const retagged = [['t9'], ...versions.tags.slice(1)];
    assert.deepEqual(grown.reconcile({ ...versions, updatedAt: newer }), [docs[0].id]);
    assert.deepEqual(grown.reconcile({ ...versions, tags: retagged }), [docs[0].id]);
  });

  it('keeps scores identical across compaction', () => {
    const ix = new KeywordIndex();
    const docs = Array.from({ length: 3000 }, (_, i) => doc(`d${i}`, `alpha beta ${i % 7 === 0 ? 'gamma' : 'delta'} w${i % 13}`));
    ix.build(docs);
    for (let i = 0; i < 1500; i++) ix.remove(`d${i}`);
    assert.equal(ix.size, 1500);
    assert.ok(ix.internals.maxDoc < 3000, 'compacted');
    const fresh = new KeywordIndex();
    fresh.build(docs.slice(1500));
    const q = { query: { match: { text: 'gamma w3' } }, size: 20 };
    assert.deepEqual(ix.search(q), fresh.search(q));
  });
});

describe('keyword sloppy phrase frequency (Lucene SloppyPhraseScorer)', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { sloppyPhraseFreq, exactPhraseFreq } = require('../../../src/keyword/exec') as typeof import('../../../src/keyword/exec');
  const u = (...xs: number[]): Uint32Array => Uint32Array.from(xs);
  it('counts minimal windows with 1/(1+distance)', () => {
    assert.equal(sloppyPhraseFreq([u(0), u(1)], 2), 1, 'exact match');
    assert.equal(sloppyPhraseFreq([u(0), u(2)], 2), 0.5, 'one word between');
    assert.equal(sloppyPhraseFreq([u(1), u(0)], 2), 1 / 3, 'reversed costs 2');
    assert.equal(sloppyPhraseFreq([u(1), u(0)], 1), 0);
    assert.equal(sloppyPhraseFreq([u(1), u(0, 2)], 2), 1, 'b a b: the window is minimized before counting');
    assert.equal(sloppyPhraseFreq([u(0, 10), u(1, 11)], 0), 2);
    assert.equal(exactPhraseFreq([u(0, 10), u(1, 12)]), 1);
  });
});
