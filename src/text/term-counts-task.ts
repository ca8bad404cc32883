import { analyze, countTerms } from './analyze';
import { mainLanguageOf, UNDETERMINED } from './language';

/** A text's analysis in a pool thread (`workers/term-counts.ts`): its terms and how often each occurs. */
export interface TermCountsTask {
  text: string;
  /** Language assumed for a text too short to tell its own (ISO 639-3). */
  hint?: string;
}

export interface TermCounts {
  terms: string[];
  counts: Uint32Array;
}

export function termCountsOf(task: TermCountsTask): TermCounts {
  const counted = countTerms(analyze(task.text, task.hint === undefined ? {} : { hint: task.hint }).terms);
  return { terms: [...counted.keys()], counts: Uint32Array.from(counted.values()) };
}

/** The language assumed for a text too short to tell its own, after texts of these languages: their main one. */
export function languageHintOf(languages: ReadonlyMap<string, number>): string | undefined {
  const { language } = mainLanguageOf(languages);
  return language === UNDETERMINED ? undefined : language;
}

/**
 * Texts analysed one after another in a pool thread (`workers/term-counts-many.ts`), each with the hint of the
 * languages before it: those of `languages` (counts of texts analysed earlier) and of the texts ahead of it here.
 */
export interface TermCountsManyTask {
  texts: string[];
  languages: Array<[string, number]>;
}

/** One message for many texts: every text's terms and counts one after another, `ends[i]` where text i's terms end. */
export interface ManyTermCounts {
  terms: string[];
  counts: Uint32Array;
  ends: Uint32Array;
  /** each text's language */
  languages: string[];
  /** the hint each text was analysed with */
  hints: Array<string | undefined>;
}

/** One text of a `ManyTermCounts`: its terms and counts, its language and the hint it was analysed with. */
export interface AnalysedText {
  terms: readonly string[];
  counts: ArrayLike<number>;
  language: string;
  hint: string | undefined;
}

export function termCountsOfMany(task: TermCountsManyTask): ManyTermCounts {
  const seen = new Map(task.languages);
  const terms: string[] = [];
  const counts: number[] = [];
  const ends = new Uint32Array(task.texts.length);
  const languages: string[] = [];
  const hints: Array<string | undefined> = [];
  task.texts.forEach((text, i) => {
    const hint = languageHintOf(seen);
    const analysis = analyze(text, hint === undefined ? {} : { hint });
    for (const [term, count] of countTerms(analysis.terms)) {
      terms.push(term);
      counts.push(count);
    }
    ends[i] = terms.length;
    languages.push(analysis.language);
    hints.push(hint);
    seen.set(analysis.language, (seen.get(analysis.language) ?? 0) + 1);
  });
  return { terms, counts: Uint32Array.from(counts), ends, languages, hints };
}

/** Text `i` of a `ManyTermCounts` (views, no copies of the counts). */
export function analysedText(many: ManyTermCounts, i: number): AnalysedText {
  const start = i === 0 ? 0 : many.ends[i - 1]!;
  const end = many.ends[i]!;
  return { terms: many.terms.slice(start, end), counts: many.counts.subarray(start, end), language: many.languages[i]!, hint: many.hints[i] };
}
