import assert from 'node:assert/strict';
import { newStemmer } from 'snowball-stemmers';
import { stem } from '../../../src/text/stem';

describe('text/stem', () => {
  it('gives Snowball\'s stem for every word, also once its memo has turned over several times', () => {
    const snowball = newStemmer('english');
    const words = Array.from({ length: 130_000 }, (_, i) => `${['connect', 'run', 'happi', 'nation'][i % 4]}${i.toString(36)}ing`);
    // a frequent word asked between the rare ones stays remembered; each answer is Snowball's
    for (let i = 0; i < words.length; i++) {
      assert.equal(stem(words[i]!, 'eng'), snowball.stem(words[i]!));
      if (i % 1000 === 0) assert.equal(stem('connections', 'eng'), 'connect');
    }
    for (const w of words.slice(0, 100)) assert.equal(stem(w, 'eng'), snowball.stem(w));
  });
});
