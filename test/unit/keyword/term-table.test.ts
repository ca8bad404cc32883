import assert from 'node:assert/strict';
import { TermTable } from '../../../src/keyword/term-table';

describe('keyword term table', () => {
  it('gives ids in the order terms were added, finds them in any script, and nothing else', () => {
    const table = new TermTable();
    const terms = ['rocket', 'ракета', 'ロケット', '火箭', 'صاروخ', '🚀', 'rockets', 'a'];
    terms.forEach((t, i) => assert.equal(table.add(t), i));
    terms.forEach((t, i) => {
      assert.equal(table.get(t), i);
      assert.equal(table.term(i), t);
    });
    for (const unknown of ['rock', 'Rocket', 'ракеты', '', ' ']) assert.equal(table.get(unknown), undefined);
    assert.deepEqual([...table.terms()], terms);
  });

  it('grows past its first arrays like a Map, a term longer than a spread call takes among them, and lists terms by prefix', () => {
    const many = Array.from({ length: 50_000 }, (_, i) => `t${(i * 7919).toString(36)}`);
    const long = 'x'.repeat(200_000);
    const table = TermTable.of([...many, long]);
    assert.equal(table.size, many.length + 1);
    many.forEach((t, i) => assert.equal(table.get(t), i));
    assert.equal(table.term(many.length), long);
    assert.deepEqual(table.withPrefix('t1z'), many.filter((t) => t.startsWith('t1z')));
    assert.deepEqual(table.withPrefix('xx'), [long]);
    // what a snapshot writes and reads back
    assert.deepEqual([...TermTable.of([...table.terms()]).terms()], [...table.terms()]);
  });
});
