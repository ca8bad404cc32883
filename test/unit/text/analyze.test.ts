import assert from 'node:assert/strict';
import { analyze, countWords, languageOf, readableWords, words } from '../../../src/text';
import { scan } from '../../../src/text/scan';

describe('text analysis: one chain for every script', () => {
  it('tells the language of a text by its stop words, or by its script', () => {
    assert.equal(languageOf('The library is used by the programs that need it'), 'eng');
    assert.equal(languageOf('Die Bibliothek wird von den Programmen benutzt, die sie brauchen'), 'deu');
    assert.equal(languageOf('La bibliothèque est utilisée par les programmes qui en ont besoin'), 'fra');
    assert.equal(languageOf('Библиотека используется программами, которым она нужна'), 'rus');
    assert.equal(languageOf('这个库被需要它的程序使用'), 'zho');
    assert.equal(languageOf('このライブラリは必要とするプログラムによって使われます'), 'jpn');
    assert.equal(languageOf('تستخدم البرامج التي تحتاج إليها هذه المكتبة'), 'ara');
  });

  it('falls back to the hint for texts too short to tell, and says "und" without one', () => {
    assert.equal(languageOf('space shuttle launch'), 'und');
    assert.equal(languageOf('space shuttle launch', 'eng'), 'eng');
    // a hint never overrides what the text says
    assert.equal(languageOf('Die Bibliothek und die Programme', 'eng'), 'deu');
  });

  it('stems with the language\'s Snowball stemmer and drops its stop words', () => {
    assert.deepEqual(analyze('The libraries were connecting').terms, ['librari', 'connect']);
    assert.deepEqual(analyze('Die Bibliotheken und die Programme').terms, ['bibliothek', 'programm']);
    assert.deepEqual(analyze('Библиотеки и программы').terms, ['библиотек', 'программ']);
    // the same word in two inflections meets in one term
    assert.equal(analyze('программами', { hint: 'rus' }).terms[0], analyze('программы', { hint: 'rus' }).terms[0]);
  });

  it('turns Han runs into overlapping character bigrams, keeps katakana words whole and drops hiragana', () => {
    assert.deepEqual(analyze('图书馆').terms, ['图书', '书馆']);
    assert.deepEqual(analyze('犬').terms, ['犬']);
    const ja = analyze('データベースを管理する');
    assert.equal(ja.language, 'jpn');
    assert.deepEqual(ja.terms, ['データベース', '管理']);
    assert.deepEqual(analyze('犬がパンを食べた').terms, ['犬', 'パン', '食']);
  });

  it('keeps e-mail addresses whole, and drops numbers and one-letter words', () => {
    const terms = analyze('Write to jane.doe@example.org about 1995 and x').terms;
    assert.ok(terms.includes('jane.doe@example.org'));
    assert.ok(!terms.includes('1995'));
    assert.ok(!terms.includes('x'));
  });

  it('counts words of every script, Chinese and Japanese by dictionary segmentation, up to a limit', () => {
    assert.equal(countWords('one two three'), 3);
    assert.equal(countWords('Быстрые коричневые лисы прыгали'), 4);
    assert.equal(countWords('敏捷的棕色狐狸跳过了懒狗'), 9);
    assert.equal(countWords('word '.repeat(10_000), 25), 25);
    assert.equal(countWords(''), 0);
    assert.equal(countWords('12 345'), 0);
  });

  it('gives readable words (not stems, no stop words) for labels', () => {
    assert.deepEqual(readableWords('The libraries were connecting').words, ['libraries', 'connecting']);
    assert.deepEqual(readableWords('敏捷的棕色狐狸').words.slice(0, 3), ['敏捷', '棕色', '狐狸']);
  });

  it('gives the words as written, lower-cased, for word-vector lookups', () => {
    assert.deepEqual(words('Hockey PUCK über 42'), ['hockey', 'puck', 'über']);
  });

  it('scans the same tokens for the keyword analyzer as before: joiners, Han one character each', () => {
    const tokens: string[] = [];
    const text = "U.S.A. don't 1,000 3.14 漢字 snake_case";
    scan(text, (s, e) => tokens.push(text.slice(s, e)));
    assert.deepEqual(tokens, ['U.S.A', "don't", '1,000', '3.14', '漢', '字', 'snake_case']);
  });
});
