import assert from 'node:assert/strict';
import { FreshAnswers } from '../../../src/vector/fresh-answers';

describe('answers reused while the index is unchanged (FreshAnswers)', () => {
  it('computes once per query until the index changes, and again after', async () => {
    const index = { mutations: 0 };
    const computed: string[] = [];
    const answers = new FreshAnswers(index, async (q: string) => {
      computed.push(q);
      return `${q}@${index.mutations}`;
    });
    assert.equal(await answers.of('a', 'a'), 'a@0');
    assert.equal(await answers.of('b', 'b'), 'b@0');
    assert.equal(await answers.of('a', 'a'), 'a@0');
    assert.deepEqual(computed, ['a', 'b']);
    index.mutations++;
    assert.equal(await answers.of('a', 'a'), 'a@1');
    assert.deepEqual(computed, ['a', 'b', 'a']);
  });

  it('does not trust an answer the index changed under while it was computed', async () => {
    const index = { mutations: 0 };
    let calls = 0;
    const answers = new FreshAnswers(index, async (q: string) => {
      calls++;
      if (calls === 1) index.mutations++; // a write lands while the first answer is being computed
      return q;
    });
    await answers.of('a', 'a');
    await answers.of('a', 'a');
    assert.equal(calls, 2);
    await answers.of('a', 'a');
    assert.equal(calls, 2);
  });
});
