export { analyze, countTerms, countWords, languageOf, readableWords, segmentWords, words, type Analysis, type AnalyzeOptions } from './analyze';
export { mainLanguage, mainLanguageOf, stopWordsOf, UNDETERMINED } from './language';
