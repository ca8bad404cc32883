import * as stopword from 'stopword';
import type { Script } from './scripts';

/** ISO 639-3 code for "no language could be told" (too short, or no known stop words). */
export const UNDETERMINED = 'und';

/**
 * Languages told apart by their stop words, per script. Detection counts how many of a text's words are
 * stop words of each candidate: measured on debian-translations and 20NG, 96–100 % right per language at
 * ~0.04 ms a document, where tinyld (a maintained n-gram detector) was 92–95 % right at 1–3 ms
 * (docs/decisions/embedding.md). Scripts used by one language need no vote.
 */
const CANDIDATES: Readonly<Partial<Record<Script, readonly string[]>>> = {
  latin: ['eng', 'deu', 'fra', 'spa', 'ita', 'por', 'nld', 'swe', 'dan', 'nob', 'fin', 'hun', 'ron', 'tur', 'cat', 'pol', 'ces', 'slv', 'ind', 'vie'],
  cyrillic: ['rus', 'ukr', 'bul'],
  arabic: ['ara', 'fas', 'urd'],
  devanagari: ['hin', 'mar'],
};

/** The language of a script written by one language (or read as one, as Han without kana is read as Chinese). */
const SCRIPT_LANGUAGE: Readonly<Partial<Record<Script, string>>> = {
  greek: 'ell', hebrew: 'heb', hangul: 'kor', han: 'zho', kana: 'jpn', 'southeast-asian': 'tha',
  cyrillic: 'rus', arabic: 'ara', devanagari: 'hin',
};

const lists = stopword as unknown as Readonly<Record<string, unknown>>;
const stopSets = new Map<string, ReadonlySet<string>>();
const EMPTY: ReadonlySet<string> = new Set();

/** The stop words of a language (lower case; empty when none are known). */
export function stopWordsOf(language: string): ReadonlySet<string> {
  let set = stopSets.get(language);
  if (!set) {
    const list = lists[language];
    set = Array.isArray(list) ? new Set(list.filter((w): w is string => typeof w === 'string').map((w) => w.toLowerCase())) : EMPTY;
    stopSets.set(language, set);
  }
  return set;
}

/** What detection needs to see of a text: the words of each script, counted once per occurrence. */
export class LanguageEvidence {
  private readonly scripts = new Map<Script, number>();
  private readonly words = new Map<Script, string[]>();

  add(word: string, script: Script): void {
    this.scripts.set(script, (this.scripts.get(script) ?? 0) + 1);
    if (CANDIDATES[script]) {
      let list = this.words.get(script);
      if (!list) this.words.set(script, (list = []));
      if (list.length < 400) list.push(word);
    }
  }

  /** The text's language: its main script's, then the stop-word vote; `hint` breaks ties and fills silence. */
  language(hint?: string): string {
    let main: Script | undefined;
    let most = 0;
    for (const [script, n] of this.scripts) {
      if (script === 'other') continue;
      if (n > most) { main = script; most = n; }
    }
    if (main === undefined) return hint ?? UNDETERMINED;
    if (main === 'han' || main === 'kana') {
      // Japanese mixes Han with kana: any real share of kana makes a Han text Japanese.
      const kana = this.scripts.get('kana') ?? 0;
      return kana * 10 >= (this.scripts.get('han') ?? 0) ? 'jpn' : 'zho';
    }
    const candidates = CANDIDATES[main];
    if (!candidates) return SCRIPT_LANGUAGE[main] ?? hint ?? UNDETERMINED;
    const votes = votesOf(main, candidates, this.words.get(main) ?? []);
    let best = hint !== undefined && candidates.includes(hint) ? hint : undefined;
    let bestVotes = best ? votes[candidates.indexOf(best)]! : 0;
    for (let c = 0; c < candidates.length; c++) {
      if (votes[c]! > bestVotes) { best = candidates[c]; bestVotes = votes[c]!; }
    }
    return best ?? SCRIPT_LANGUAGE[main] ?? hint ?? UNDETERMINED;
  }
}

/** Per script: each stop word of its candidates → the positions (in CANDIDATES order) of the languages listing it. */
const stopIndexes = new Map<Script, ReadonlyMap<string, readonly number[]>>();

/**
 * How many of `words` are stop words of each candidate (same order): one lookup per word in an index of every
 * candidate's stop words, not one per word and language (20 languages share the Latin script; the vote was a
 * twentieth of a similar-to-text query's pool-thread time).
 */
function votesOf(script: Script, candidates: readonly string[], words: readonly string[]): Uint32Array {
  let index = stopIndexes.get(script);
  if (!index) {
    const built = new Map<string, number[]>();
    candidates.forEach((language, c) => {
      for (const word of stopWordsOf(language)) {
        const languages = built.get(word);
        if (languages) languages.push(c);
        else built.set(word, [c]);
      }
    });
    stopIndexes.set(script, (index = built));
  }
  const votes = new Uint32Array(candidates.length);
  for (const w of words) {
    const languages = index.get(w);
    if (languages) for (const c of languages) votes[c]!++;
  }
  return votes;
}

/** The language most of `languages` are in (UNDETERMINED ones do not count), or UNDETERMINED. */
export function mainLanguage(languages: Iterable<string>): { language: string; share: number } {
  const counts = new Map<string, number>();
  for (const l of languages) counts.set(l, (counts.get(l) ?? 0) + 1);
  return mainLanguageOf(counts);
}

/** `mainLanguage` over counts of texts per language. */
export function mainLanguageOf(counts: ReadonlyMap<string, number>): { language: string; share: number } {
  let total = 0;
  let language = UNDETERMINED;
  let most = 0;
  for (const [l, n] of counts) {
    total += n;
    if (l !== UNDETERMINED && n > most) { language = l; most = n; }
  }
  return { language, share: total ? most / total : 0 };
}
