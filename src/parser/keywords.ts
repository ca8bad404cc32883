import { languageOf, segmentWords, stopWordsOf, UNDETERMINED } from '../text';
import { BACKGROUND_WORDS_BY_FREQUENCY } from './background-words';
import { STOPWORDS } from './stopwords';
import { normaliseSpace, sentencesOf } from './text';

/**
 * Keywords that appear in the article and characterise it: declared keywords that occur in the
 * text first, then the most salient words and phrases by tf × background rarity. The article's
 * language is detected (src/text); its stop words never count. In English a word's rarity comes from
 * its rank in a built-in English frequency list (Zipf: -log p ≈ log rank), words the list lacks
 * counting as rare; other languages have no background list here, so every other word is equally
 * rare and frequency and position decide. Chinese, Japanese and Thai are split into words by ICU.
 */

let backgroundRank: Map<string, number> | null = null;
function rankOf(word: string): number {
  if (!backgroundRank) {
    backgroundRank = new Map();
    BACKGROUND_WORDS_BY_FREQUENCY.split(' ').forEach((w, i) => backgroundRank?.set(w, i + 1));
  }
  return backgroundRank.get(word) ?? 30_000;
}

const CONTRACTION = /['’](?:t|re|m|ve|ll|d)$/;
/** French/Italian elided articles: l’État, d’un, qu’il, dell’anno. */
const ELISION = /^(?:l|d|j|m|n|s|t|c|qu|dell|all|nell|sull)['’]/;
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/** Folds a token to its key: lower case, possessive 's dropped. */
export function wordKey(surface: string): string {
  return surface.toLowerCase().replace(/['’]s$/, '').replace(ELISION, '');
}

const RARE = Math.log(30_000 / 150);
const SEGMENTED = new Set(['zho', 'jpn', 'tha']);

/** Rarity weight of a lower-case word in `language`: 0 for stop words, growing with log of its background rank. */
export function rarity(word: string, language = 'eng'): number {
  const english = language === 'eng' || language === UNDETERMINED;
  if ((english && STOPWORDS.has(word)) || stopWordsOf(language).has(word) || /^\d+$/.test(word) || CONTRACTION.test(word)) return 0;
  if (word.length < 2 && !UNSPACED_SCRIPT.test(word)) return 0;
  // scripts written without spaces come out as whole clauses when not segmented
  if (UNSPACED_SCRIPT.test(word) && word.length > 8) return 0;
  if (!english) return RARE;
  const rank = rankOf(word);
  if (rank <= 150) return 0;
  return Math.log(rank / 150);
}

const TOKEN = /[\p{L}\p{N}]+(?:[-'’][\p{L}\p{N}]+)*/gu;

interface Candidate {
  key: string;
  score: number;
  surfaces: Map<string, number>;
  count: number;
  firstAt: number;
}

export interface KeywordOptions {
  title?: string;
  declared?: string[];
  limit?: number;
}

export interface ScoredKeywords {
  keywords: string[];
  /** Salience per lower-case word, used to score sentences for the summary. */
  wordWeights: Map<string, number>;
}

function occursIn(textLower: string, phrase: string): boolean {
  const escaped = phrase.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?:^|[^\\p{L}\\p{N}])${escaped}(?:$|[^\\p{L}\\p{N}])`, 'u').test(textLower);
}

export function extractKeywords(text: string, options: KeywordOptions = {}): ScoredKeywords {
  const limit = options.limit ?? 10;
  const language = languageOf(text);
  const tokens = (chunk: string): string[] => (SEGMENTED.has(language) ? segmentWords(chunk, language) : chunk.match(TOKEN) ?? []);
  const weightOf = (word: string): number => rarity(word, language);
  // Segmented scripts are written without spaces: a phrase of their words reads joined.
  const joiner = SEGMENTED.has(language) ? '' : ' ';
  const shortest = SEGMENTED.has(language) ? 2 : 3;
  const titleWords = new Set(tokens((options.title ?? '').toLowerCase()));
  const candidates = new Map<string, Candidate>();
  const wordCounts = new Map<string, number>();
  let position = 0;

  const note = (words: string[], surface: string): void => {
    const key = words.join(' ');
    let candidate = candidates.get(key);
    if (!candidate) {
      candidate = { key, score: 0, surfaces: new Map(), count: 0, firstAt: position };
      candidates.set(key, candidate);
    }
    candidate.count++;
    candidate.surfaces.set(surface, (candidate.surfaces.get(surface) ?? 0) + 1);
  };

  for (const paragraph of text.split('\n')) {
    for (const sentence of sentencesOf(paragraph)) {
      // runs of content words between stopwords/punctuation are the phrase candidates
      const chunks = sentence.split(/[,;:()"“”!?.\u2014\u2013、，。；：！？「」]+|\s[-–]\s/);
      for (const chunk of chunks) {
        const surfaces = tokens(chunk);
        let run: string[] = [];
        let runSurfaces: string[] = [];
        const closeRun = (): void => {
          for (let n = 1; n <= Math.min(3, run.length); n++) {
            for (let i = 0; i + n <= run.length; i++) note(run.slice(i, i + n), runSurfaces.slice(i, i + n).join(joiner));
          }
          run = [];
          runSurfaces = [];
        };
        for (const surface of surfaces) {
          position++;
          const word = wordKey(surface);
          if (weightOf(word) === 0) {
            closeRun();
            continue;
          }
          wordCounts.set(word, (wordCounts.get(word) ?? 0) + 1);
          run.push(word);
          runSurfaces.push(surface.replace(/['’]s$/, '').replace(/^(?:[LlDdJjMmNnSsTtCc]|[Qq]u|[Dd]ell|[Aa]ll|[Nn]ell|[Ss]ull)['’]/, ''));
        }
        closeRun();
      }
    }
  }

  const totalWords = Math.max(1, position);
  const wordWeights = new Map<string, number>();
  for (const [word, count] of wordCounts) {
    wordWeights.set(word, (1 + Math.log(count)) * weightOf(word) * (titleWords.has(word) ? 1.5 : 1));
  }

  for (const candidate of candidates.values()) {
    const words = candidate.key.split(' ');
    const meanWeight = words.reduce((sum, w) => sum + weightOf(w) * (titleWords.has(w) ? 1.5 : 1), 0) / words.length;
    const repeated = candidate.count >= 2 || words.length === 1;
    if (!repeated) continue;
    // phrases must recur to count; longer recurring phrases are better keywords than their parts
    const lengthBonus = words.length === 1 ? 1 : 1 + 0.35 * words.length;
    const earlyBonus = 1 + 0.3 * (1 - candidate.firstAt / totalWords);
    candidate.score = (1 + Math.log(candidate.count)) * meanWeight * lengthBonus * earlyBonus;
  }

  const ranked = Array.from(candidates.values())
    .filter((c) => c.score > 0 && c.key.length >= shortest)
    .sort((a, b) => b.score - a.score || a.firstAt - b.firstAt);

  const lowerText = text.toLowerCase();
  const chosen: string[] = [];
  const chosenKeys: string[] = [];
  const covered = (key: string): boolean =>
    chosenKeys.some((k) => k === key || ` ${k} `.includes(` ${key} `) || ` ${key} `.includes(` ${k} `));

  for (const declared of options.declared ?? []) {
    const phrase = normaliseSpace(declared);
    const key = phrase.toLowerCase();
    if (phrase.length < 2 || chosen.length >= limit || covered(key) || !occursIn(lowerText, phrase)) continue;
    chosen.push(phrase);
    chosenKeys.push(key);
  }
  for (const candidate of ranked) {
    if (chosen.length >= limit) break;
    if (covered(candidate.key)) continue;
    const surface = Array.from(candidate.surfaces.entries()).sort((a, b) => b[1] - a[1])[0][0];
    chosen.push(surface);
    chosenKeys.push(candidate.key);
  }
  return { keywords: chosen, wordWeights };
}
