import assert from 'node:assert/strict';
import { candidateIds, Filter, FilterError, filterToEsQuery, matches, parseFilter } from '../../../src/index/filter/index';
import { KeywordIndex } from '../../../src/keyword/index';

const docs = {
  a: { tags: ['news', 'tech'], published_at: '2024-03-10T12:00:00Z' },
  b: { tags: ['news'], published_at: '2024-03-11T08:00:00+02:00' },
  c: { tags: ["it's"], published_at: undefined },
  d: { tags: [] as string[], published_at: '2023-12-31T23:59:59Z' },
};
type Id = keyof typeof docs;
const ids = Object.keys(docs) as Id[];
const run = (src: string): Id[] => {
  const f = parseFilter(src);
  return ids.filter((id) => matches(f, docs[id]));
};

describe('filter grammar', () => {
  it('tagged with / not tagged with', () => {
    assert.deepEqual(run("tagged with 'news'"), ['a', 'b']);
    assert.deepEqual(run("not tagged with 'news'"), ['c', 'd']);
    assert.deepEqual(run('TAGGED   WITH "tech"'), ['a']);
  });

  it('published after / before, RFC 3339 and plain dates', () => {
    assert.deepEqual(run("published after '2024-03-10T12:00:00Z'"), ['b'], 'strictly after');
    assert.deepEqual(run("published after '2024-03-09'"), ['a', 'b']);
    assert.deepEqual(run("published after '2024-03-10'"), ['b'], 'a plain date means after that whole day');
    assert.deepEqual(run("published before '2024-03-10'"), ['d']);
    assert.deepEqual(run("published before '2024-03-11T07:30:00Z'"), ['a', 'b', 'd'], 'offsets respected (b is 06:00Z)');
    assert.deepEqual(run("published before '2024-03-11T05:30:00Z'"), ['a', 'd']);
  });

  it('and, or, not, parentheses, precedence (not > and > or)', () => {
    assert.deepEqual(run("tagged with 'news' and not tagged with 'tech'"), ['b']);
    assert.deepEqual(run("tagged with 'tech' or tagged with 'it''s'"), ['a', 'c']);
    assert.deepEqual(run("tagged with 'tech' or tagged with 'news' and published before '2024-03-10'"), ['a']);
    assert.deepEqual(run("(tagged with 'tech' or tagged with 'news') and published after '2024-03-10'"), ['b']);
    assert.deepEqual(run("not (tagged with 'news' or tagged with 'it\\'s')"), ['d']);
    assert.deepEqual(run("not not tagged with 'tech'"), ['a']);
  });

  it('errors name the position and the problem', () => {
    const cases: [string, RegExp][] = [
      ['', /empty filter/],
      ["tagged 'x'", /expected 'with' at position 7/],
      ['tagged with x', /expected a quoted tag id at position 12/],
      ["tagged with 'x", /unterminated quoted string starting at position 12/],
      ["tagged with 'x' and", /expected 'tagged with'.* at position 19, found end of filter/],
      ["(tagged with 'x'", /expected '\)' at position 16/],
      ["tagged with 'x')", /unexpected '\)' at position 15/],
      ["published on '2024-01-01'", /expected 'after' or 'before' at position 10/],
      ["published after 'yesterday'", /invalid date 'yesterday' at position 16/],
      ["published after '2024-02-30'", /invalid date/],
      ["tagged with 'x' & tagged with 'y'", /unexpected character '&' at position 16/],
      ["tagged with 'x' tagged with 'y'", /unexpected 'tagged' at position 16/],
    ];
    for (const [src, re] of cases) {
      assert.throws(() => parseFilter(src), (e: unknown) => e instanceof FilterError && re.test(e.message), src);
    }
  });

  it('turns filters into candidate sets from tag postings when it can', () => {
    const postings = new Map<string, string[]>([['news', ['a', 'b']], ['tech', ['a']]]);
    const lookup = (t: string): string[] | undefined => postings.get(t);
    const cand = (src: string): string[] | undefined => {
      const c = candidateIds(parseFilter(src), lookup);
      return c && [...c].sort();
    };
    assert.deepEqual(cand("tagged with 'news'"), ['a', 'b']);
    assert.deepEqual(cand("tagged with 'news' and tagged with 'tech'"), ['a']);
    assert.deepEqual(cand("tagged with 'tech' or tagged with 'none'"), ['a']);
    assert.deepEqual(cand("tagged with 'news' and published after '2024-01-01'"), ['a', 'b'], 'superset; dates checked by matches');
    assert.equal(cand("not tagged with 'news'"), undefined);
    assert.equal(cand("published after '2024-01-01'"), undefined);
    assert.equal(cand("tagged with 'news' or published after '2024-01-01'"), undefined);
    // every candidate set is a superset of the true matches
    for (const src of ["tagged with 'news' and not tagged with 'tech'", "tagged with 'news' and published before '2024-03-10'"]) {
      const f: Filter = parseFilter(src);
      const c = candidateIds(f, lookup)!;
      for (const id of ids) if (matches(f, docs[id])) assert.ok(c.has(id), `${src}: ${id}`);
    }
  });

  it('runs on the keyword index through filterToEsQuery with the same answers', () => {
    const ix = new KeywordIndex();
    ix.build(ids.map((id) => ({ id, text: id, created_at: '2024-01-01T00:00:00.000Z', updated_at: '2024-01-01T00:00:00.000Z', ...docs[id] })));
    for (const src of ["tagged with 'news'", "not tagged with 'news'", "published after '2024-03-10'", "published before '2024-03-10T22:30:00Z'",
      "(tagged with 'tech' or tagged with 'news') and published after '2024-03-10'", "not (tagged with 'news' or tagged with 'it''s')"]) {
      const viaIndex = ix.search({ query: filterToEsQuery(parseFilter(src)), size: 100, sort: ['id'] }).hits.hits.map((h) => h.id);
      assert.deepEqual(viaIndex, run(src), src);
    }
  });
});
