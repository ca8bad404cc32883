import assert from 'node:assert/strict';
import { answersKept } from '../../../src/vector/answers-kept';

const answers = (...pairs: Array<[string, number]>) => pairs.map(([id, score]) => ({ id, score }));

describe('answersKept (the share of an exact answer another search keeps)', () => {
  it('counts the exact answers found, whatever their order', () => {
    const exact = answers(['a', 0.9], ['b', 0.8], ['c', 0.7]);
    assert.equal(answersKept(exact, answers(['c', 0.7], ['a', 0.9], ['x', 0.75])), 2);
    assert.equal(answersKept(exact, []), 0);
    assert.equal(answersKept([], answers(['a', 1])), 0);
  });

  it('counts another member of a tie at the exact answer\'s last score as kept, never more than the exact answer holds', () => {
    // duplicates: the exact answer kept d1, d2 of five tied documents (by id), another search d4, d5
    const exact = answers(['a', 0.95], ['d1', 0.9], ['d2', 0.9]);
    assert.equal(answersKept(exact, answers(['a', 0.95], ['d4', 0.9], ['d5', 0.9])), 3);
    assert.equal(answersKept(exact, answers(['a', 0.95], ['d4', 0.9], ['d5', 0.9], ['d1', 0.9])), 3);
    // a higher or lower score than the last is no tie
    assert.equal(answersKept(exact, answers(['a', 0.95], ['x', 0.92], ['y', 0.89])), 1);
  });
});
