import { newStemmer, type Stemmer } from 'snowball-stemmers';
import { StemMemo } from './stem-memo';

/** Snowball stemmers by ISO 639-3 language code (the codes the `stopword` package uses). */
const SNOWBALL: Readonly<Record<string, string>> = {
  eng: 'english', deu: 'german', fra: 'french', spa: 'spanish', ita: 'italian', por: 'portuguese', nld: 'dutch',
  swe: 'swedish', dan: 'danish', nob: 'norwegian', fin: 'finnish', hun: 'hungarian', ron: 'romanian', tur: 'turkish',
  cat: 'catalan', eus: 'basque', gle: 'irish', slv: 'slovene', ces: 'czech', rus: 'russian', ara: 'arabic', hye: 'armenian',
};

/** Stemming costs ~7 µs a word in snowball-stemmers; words repeat, so each language keeps a bounded memo. */
const MEMO_LIMIT = 200_000;

interface MemoStemmer {
  stemmer: Stemmer;
  memo: StemMemo;
}

const stemmers = new Map<string, MemoStemmer | null>();

function stemmerFor(language: string): MemoStemmer | null {
  let s = stemmers.get(language);
  if (s === undefined) {
    const algorithm = SNOWBALL[language];
    s = algorithm ? { stemmer: newStemmer(algorithm), memo: new StemMemo(MEMO_LIMIT) } : null;
    stemmers.set(language, s);
  }
  return s;
}

/** Whether `language` has a stemmer (otherwise `stem` returns words unchanged). */
export function hasStemmer(language: string): boolean {
  return stemmerFor(language) !== null;
}

/**
 * Arabic writes "and", "with", "as" and "so" (و ب ك ف) as a letter joined to the next word, often before the
 * article: Snowball strips the article but not these, so "والملح" (and the salt) would not meet "الملح".
 */
const ARABIC_JOINED_BEFORE_ARTICLE = /^[وبكف](?=ال..)/u;

function normalise(word: string, language: string): string {
  return language === 'ara' ? word.replace(ARABIC_JOINED_BEFORE_ARTICLE, '') : word;
}

/** The Snowball stem of a lower-case word in `language`; the word itself when the language has no stemmer. */
export function stem(word: string, language: string): string {
  const s = stemmerFor(language);
  if (!s) return word;
  let out = s.memo.get(word);
  if (out === undefined) {
    out = s.stemmer.stem(normalise(word, language));
    s.memo.set(word, out);
  }
  return out;
}
