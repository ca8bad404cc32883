import { STOPWORDS } from '../parser/stopwords';
import { readableWords } from '../text';

export interface WeightedWord {
  word: string;
  importance: number;
}

export const WORDS_PER_CLUSTER = 20;

/** Scripts whose words are often one or two characters long. */
const DENSE_SCRIPT = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]/u;

/**
 * The distinct words of a text that can characterise a cluster: readable words (any language, its stop
 * words out; English also without the parser's longer list), at least 3 letters (2 in Chinese, Japanese
 * and Korean), no model numbers such as "x11".
 */
export function documentWords(text: string): Set<string> {
  const out = new Set<string>();
  const { language, words } = readableWords(text);
  const english = language === 'eng';
  for (const w of words) {
    if (w.length < 3 && !(w.length === 2 && DENSE_SCRIPT.test(w))) continue;
    if ((english && STOPWORDS.has(w)) || /^\p{L}\p{N}+$/u.test(w)) continue;
    out.add(w);
  }
  return out;
}

/**
 * The words that tell each cluster apart from the rest. A word's score in cluster c is its contribution to
 * the KL divergence of the cluster's document frequencies from the corpus's: p_c · ln(p_c / p), where p_c is
 * the share of c's documents that contain it and p the share of all documents. Words frequent everywhere
 * score near 0, words frequent in c and rare elsewhere score high. A word must occur in at least two of the
 * cluster's documents (one when the cluster has one), so one long document cannot fill the list.
 * Importance is the score divided by the cluster's best score: in (0, 1], the first word 1.
 */
export function clusterWords(documents: ReadonlyArray<ReadonlySet<string>>, assignments: ArrayLike<number>, k: number, top = WORDS_PER_CLUSTER): WeightedWord[][] {
  const total = documents.length;
  const corpusDf = new Map<string, number>();
  const clusterDf = Array.from({ length: k }, () => new Map<string, number>());
  const clusterSize = new Array<number>(k).fill(0);
  documents.forEach((doc, i) => {
    const c = assignments[i]!;
    if (c < 0 || c >= k) return;
    clusterSize[c]++;
    const df = clusterDf[c]!;
    for (const w of doc) {
      corpusDf.set(w, (corpusDf.get(w) ?? 0) + 1);
      df.set(w, (df.get(w) ?? 0) + 1);
    }
  });
  return clusterDf.map((df, c) => {
    const size = clusterSize[c]!;
    if (size === 0) return [];
    const minDf = Math.min(2, size);
    const scored: WeightedWord[] = [];
    for (const [word, count] of df) {
      if (count < minDf) continue;
      const pc = count / size;
      const p = corpusDf.get(word)! / total;
      const score = pc * Math.log(pc / p);
      if (score > 0) scored.push({ word, importance: score });
    }
    scored.sort((a, b) => b.importance - a.importance || (a.word < b.word ? -1 : 1));
    const best = scored[0]?.importance ?? 1;
    return scored.slice(0, top).map((w) => ({ word: w.word, importance: Math.round((w.importance / best) * 1e4) / 1e4 }));
  });
}
