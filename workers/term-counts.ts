import { termCountsOf, type TermCounts, type TermCountsTask } from '../src/text/term-counts-task';

/** One text's terms and their counts (the language detection and stemming off the event loop). */
export default function termCounts(task: TermCountsTask): TermCounts {
  return termCountsOf(task);
}
