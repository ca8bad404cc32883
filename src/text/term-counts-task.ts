import { analyze, countTerms } from './analyze';

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
