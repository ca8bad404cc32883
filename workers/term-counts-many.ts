import { termCountsOfMany, type ManyTermCounts, type TermCountsManyTask } from '../src/text/term-counts-task';

/** Many texts' terms and their counts in one message (the tag model's documents, analysed off the event loop). */
export default function termCountsMany(task: TermCountsManyTask): ManyTermCounts {
  return termCountsOfMany(task);
}
