import assert from 'node:assert/strict';
import { Vocabulary } from '../../../src/embedding/vocabulary';

describe('embedding/vocabulary', () => {
  const terms = ['the', 'rocket', 'ракета', 'ロケット', '火箭', 'صاروخ', '🚀launch', '', 'a'];

  it('finds every term by its id, in any script, and nothing else', () => {
    const vocabulary = Vocabulary.build(terms);
    assert.equal(vocabulary.size, terms.length);
    terms.forEach((t, i) => {
      assert.equal(vocabulary.get(t), i);
      assert.equal(vocabulary.term(i), t);
    });
    for (const unknown of ['th', 'thee', 'Rocket', 'ракеты', '🚀', ' ']) assert.equal(vocabulary.get(unknown), undefined);
  });

  it('keeps the later of duplicate terms, as a Map built in order does', () => {
    const vocabulary = Vocabulary.build(['x', 'y', 'x']);
    assert.equal(vocabulary.get('x'), new Map([['x', 0], ['y', 1], ['x', 2]]).get('x'));
  });

  it('answers like a Map over many colliding terms, from shared memory another thread can adopt', () => {
    const many = Array.from({ length: 20_000 }, (_, i) => `t${i.toString(36)}`);
    const built = Vocabulary.build(many);
    assert.ok(built.arrays.slots.buffer instanceof SharedArrayBuffer);
    const adopted = new Vocabulary(built.arrays);
    many.forEach((t, i) => assert.equal(adopted.get(t), i));
    assert.equal(adopted.get('t-1'), undefined);
  });

  it('answers "unknown" from a damaged table with no empty slot, instead of searching forever', () => {
    const { chars, starts } = Vocabulary.build(['a', 'b']).arrays;
    const damaged = new Vocabulary({ chars, starts, slots: Uint32Array.from([1, 2, 9, 1]) });
    assert.equal(damaged.get('c'), undefined);
    assert.ok(damaged.get('a') === 0 || damaged.get('a') === undefined);
  });

  it('rejects a table whose slots are not a power of two', () => {
    const { chars, starts } = Vocabulary.build(['a']).arrays;
    assert.throws(() => new Vocabulary({ chars, starts, slots: new Uint32Array(3) }), /corrupt vocabulary/);
  });
});
