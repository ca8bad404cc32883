import assert from 'node:assert/strict';
import { countTerms, emailAddresses, stem, terms, words } from '../../../src/embedding/tokenize';

describe('embedding/tokenize', () => {
  it('lower-cases and splits words on non-alphanumerics, dropping 1-letter tokens and leading digits', () => {
    assert.deepEqual(words("The Shuttle's 2nd launch: NASA-approved x 42 b52"), ['the', 'shuttle', 'nd', 'launch', 'nasa', 'approved', 'b52']);
  });

  it('returns nothing for empty or symbol-only text', () => {
    assert.deepEqual(words(''), []);
    assert.deepEqual(words('  -- !! 123 ..'), []);
    assert.deepEqual(terms(''), []);
  });

  it('stems plurals lightly and leaves -ss, -us, -is words alone', () => {
    assert.equal(stem('rockets'), 'rocket');
    assert.equal(stem('batteries'), 'battery');
    assert.equal(stem('class'), 'class');
    assert.equal(stem('virus'), 'virus');
    assert.equal(stem('analysis'), 'analysis');
    assert.equal(stem('gas'), 'gas');
    assert.equal(stem('ties'), 'tie');
  });

  it('adds whole e-mail addresses to the stemmed words', () => {
    const text = 'Mail Kent.Sandvik@Apple.COM about rockets';
    assert.deepEqual(emailAddresses(text), ['kent.sandvik@apple.com']);
    assert.deepEqual(terms(text), ['mail', 'kent', 'sandvik', 'apple', 'com', 'about', 'rocket', 'kent.sandvik@apple.com']);
  });

  it('counts terms', () => {
    assert.deepEqual([...countTerms(['a', 'b', 'a'])], [['a', 2], ['b', 1]]);
  });
});
