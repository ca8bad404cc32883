import assert from 'node:assert/strict';
import { StemMemo } from '../../../src/text/stem-memo';
import { stem } from '../../../src/text/stem';

describe('text/stem-memo', () => {
  it('gives back every stem it was told, in any script, whether or not the stem begins the word', () => {
    const memo = new StemMemo(100);
    const pairs: Array<[string, string]> = [
      ['libraries', 'librari'], ['connecting', 'connect'], ['happy', 'happi'], ['the', 'the'], ['программами', 'программ'],
      ['والملح', 'ملح'], ['geese', 'goose'], ['a', ''], ['🚀rockets', '🚀rocket'],
    ];
    for (const [word, stemmed] of pairs) memo.set(word, stemmed);
    for (const [word, stemmed] of pairs) assert.equal(memo.get(word), stemmed);
    for (const unknown of ['librarie', 'Libraries', 'happ', 'программа', '']) assert.equal(memo.get(unknown), undefined);
  });

  it('agrees with a Map over thousands of words while it grows, and starts over when full', () => {
    const memo = new StemMemo(5000);
    const words = Array.from({ length: 4000 }, (_, i) => `w${i.toString(36)}ing`);
    for (const w of words) memo.set(w, stem(w, 'eng'));
    assert.equal(memo.size, 4000);
    for (const w of words) assert.equal(memo.get(w), stem(w, 'eng'));
    for (let i = 0; i < 1001; i++) memo.set(`x${i}`, `x${i}`);
    assert.ok(memo.size < 5000, 'cleared when the limit was reached');
    assert.equal(memo.get('x1000'), 'x1000');
    assert.equal(memo.get(words[0]!), undefined);
  });
});
