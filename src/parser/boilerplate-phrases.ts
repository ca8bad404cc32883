import { languageOf } from '../text';

/**
 * The one table of boilerplate phrases (issue 30), per language (ISO 639-3, as `src/text` detects it), in four kinds:
 * - `prompts`: a whole short line that speaks to the reader rather than about the subject: ad labels, share and
 *   comment prompts, "load more", "was this helpful?", embed-consent buttons, newsletter and app prompts, a blog's
 *   "posted in … bookmark the permalink" footer. Tested in the body's language and English (site furniture is often
 *   English on pages in other languages), on lines (`dropReaderPrompts`) and on small elements of Readability's article
 *   (English only there, `cleanup.ts`).
 * - `readAlso`: a label that leads to another article ("Lesen Sie auch:", "Czytaj też:"), followed by ":", "?" or an arrow.
 * - `listHeadings`: a short heading that opens a list of other articles ("Related posts", "Ähnliche Beiträge").
 * - `creditLabels`: the label of a picture's caption or credit ("Foto:", "Quelle:", "Źródło:").
 * The last three are tested in every language: a label followed by its punctuation, or a heading alone on its line, is
 * unambiguous. Generic phrases only: no site's wording.
 */
interface Phrases {
  prompts?: string[];
  readAlso?: string[];
  listHeadings?: string[];
  creditLabels?: string[];
}

const PHRASES: Readonly<Record<string, Phrases>> = {
  eng: {
    prompts: [
      // a whole element or line that is only this
      '^(?:advertisement|advertising|ad|sponsored(?: content)?|story continues below(?: advertisement)?|continue reading(?: below| the main story)?|share(?: this)?(?: article| story| post| page)?(?: on [\\w ]+)?|share via|(?:follow|like) us on [\\w ,&]+|sign up for [\\w ’\'-]*newsletters?[\\w .]*|subscribe(?: now| today| to [\\w ’\'-]+)?|related(?: articles| stories| content| links| coverage)?|read more|see also|click here[\\w ,.]*|image copyright[\\w ,.]*|image caption|media caption|getty images|\\d+ comments?|comments?|loading(?:\\.\\.\\.|…)?|skip to (?:main )?content|back to top|print this (?:article|page)|email this (?:article|page)|tweet|whatsapp|facebook|twitter|linkedin|pinterest)$',
      '^this entry was posted in\\b',
      '\\bbookmark the permalink\\b',
      '^(?:leave|post|write|add) (?:a|your) (?:comment|reply)\\b',
      '^(?:sorry, )?comments are closed\\b',
      '^(?:was|is) this (?:article|post|page|story) (?:helpful|useful)\\b',
      '^(?:load|show|view) more(?: posts| articles| stories)?$',
      '^(?:you|u) (?:may|might) also (?:like|enjoy)\\b',
      '\\bclick (?:the button|here) (?:below )?to load\\b',
      '\\b(?:sign(?:ing)? up|subscribe) (?:here|now|today|(?:to|for) (?:our|the) newsletter)\\b',
      '\\bsupport(?:ing)? our (?:work|journalism)\\b',
      '^we want to hear what you think\\b',
      '^about the authors?$|^(?:no comments|be the first to comment)\\b',
      '\\bdownload (?:the|our) [\\w ]{0,30}apps?\\b|\\bwith the [\\w ]{0,30} app$',
      '^follow (?:us|[\\w ]{1,30}) on (?:twitter|facebook|instagram|linkedin)\\b',
      '\\balready a subscriber\\b|^first-time subscribers\\b',
    ],
    readAlso: ['read (?:more|also|next)', 'see also', 'related'],
    listHeadings: ['related(?: posts| articles| stories| content)?', 'you (?:may|might) also like', 'more (?:stories|articles|from [\\w ]+)', 'read (?:also|more)', 'see also', 'recommended(?: for you)?'],
    creditLabels: ['photo', 'photos', 'photograph', 'image', 'source', 'credit'],
  },
  deu: {
    prompts: [
      '^-?\\s*(?:anzeige|werbung)\\s*-?$',
      '\\bkommentare? (?:zu )?(?:schreiben|verfassen|hinzufügen|anzeigen|geschlossen)\\b',
      '\\bnewsletter (?:abonnieren|bestellen|anmelden)\\b|^jetzt (?:anmelden|abonnieren|registrieren)\\b',
      '^(?:empfohlene|ähnliche|weitere) (?:beiträge|artikel)$|^mehr zum thema\\b',
      '^(?:zurück|drucken|nach oben)$|^bild anzeigen\\b|^zurück zu(?:r|m)? ',
      '^über (?:den autor|die autorin|die autoren|uns)$|^(?:keine kommentare|sie sind (?:aktuell |derzeit )?nicht eingeloggt)\\b|\\bin den kommentaren\\b',
      '^(?:(?:weitere|mehr|alle|neueste) )?(?:beiträge|artikel|themen|infos?) zum thema\\b|^(?:mehr themen|neueste (?:beiträge|artikel)|noch mehr infos\\b.*|entdecke weitere\\b.*)$',
      '^artikel gefallen\\b|\\bvergiss nicht,? (?:ihn |es )?zu teilen\\b',
      '^kommentare insgesamt\\b',
      '^(?:schreibe|hinterlasse|schreiben sie|hinterlassen sie) (?:einen|ihren|deinen) kommentar\\b',
      '^bitte registrieren sie sich\\b',
      '^(?:mehr|weitere (?:inhalte|artikel|beiträge)) laden$|^lade (?:weitere|mehr) inhalte\\b',
      '^(?:war|ist) (?:der|dieser|dieses|die) (?:artikel|beitrag|text|seite|information) (?:nützlich|hilfreich)\\b',
      '^(?:möchten sie|willst du|möchtest du) (?:den|diesen) (?:artikel|beitrag) teilen\\b',
      '^(?:(?:diesen |den )?(?:artikel|beitrag|seite) )?(?:teilen|drucken|empfehlen)(?: mit)?$',
      '\\bkönnte (?:dich|sie|euch) (?:auch )?interessieren\\b',
      '^vorschau auf den nächsten (?:artikel|beitrag)\\b',
      '\\bum (?:den|die) inhalte? (?:von [^ ]+ )?zu laden\\b',
      '^\\(?noch keine bewertungen?\\)?$',
      '^aufrufe:\\s*\\d',
    ],
    readAlso: ['lesen sie (?:auch|hier|mehr)', 'mehr (?:dazu|zum thema)', 'auch interessant', 'schon gelesen'],
    listHeadings: [
      'ähnliche (?:beiträge|artikel)',
      'weitere (?:beiträge|artikel|themen|nachrichten)',
      '(?:das|dies) könnte (?:dich|sie) auch interessieren',
      'auch interessant',
      'mehr zum thema',
      'lesen sie auch',
      'zum weiterlesen',
      'verwandte (?:beiträge|artikel)',
    ],
    creditLabels: ['foto', 'fotos', 'bild', 'bilder', 'abbildung', 'abb\\.', 'beitragsbild', 'titelbild', 'quelle', 'vergrößern'],
  },
  fra: {
    prompts: ['^pour lire la suite\\b', '^(?:laisser|laissez|ajouter) un commentaire\\b', '^partager(?: cet article| sur)?$', '^publicité$'],
    readAlso: ['lire aussi', 'à lire aussi', 'voir aussi'],
    listHeadings: ['articles? (?:similaires|liés)', 'à lire aussi'],
    creditLabels: ['crédits? photos?'],
  },
  spa: {
    prompts: ['^(?:deja|dejar|añadir) (?:un|tu) comentario\\b', '^compartir(?: en)?$', '^publicidad$', '\\bnuestro canal de (?:youtube|telegram|whatsapp)\\b|\\btenemos canal de\\b', '^hazte (?:miembro|socio)\\b'],
    readAlso: ['lea (?:más|también)', 'lea', 'lee (?:más|también)', 'puedes ver', 'le puede interesar', 'te puede interesar'],
    listHeadings: ['artículos relacionados'],
  },
  por: { readAlso: ['veja (?:também|mais)', 'leia (?:também|mais)'] },
  ita: { prompts: ['^lascia un commento\\b', '^condividi$', '^pubblicità$'], readAlso: ['leggi anche'] },
  pol: {
    prompts: ['^dodaj komentarz\\b', '^udostępnij$', '^reklama$', '^(?:drukuj|powrót)$'],
    readAlso: ['czytaj (?:też|także|również)', 'zobacz (?:też|także|również)', 'dowiedz się więcej'],
    listHeadings: ['czytaj (?:też|także)', 'zobacz (?:też|także)'],
    creditLabels: ['źródło'],
  },
  nld: { prompts: ['^(?:laat|plaats) een (?:reactie|opmerking)\\b', '^delen$', '^advertentie$'] },
  fin: { creditLabels: ['kuva'] },
};

/** Longer lines are the article's own sentences, whatever they say. */
export const SHORT_LINE = 120;

const anyOf = (patterns: string[]): string => patterns.join('|');
const everyLanguage = (kind: 'readAlso' | 'listHeadings' | 'creditLabels'): string =>
  anyOf(Object.values(PHRASES).flatMap((phrases) => phrases[kind] ?? []));
const PROMPTS = new Map(Object.entries(PHRASES).flatMap(([language, phrases]) => (phrases.prompts ? [[language, new RegExp(anyOf(phrases.prompts), 'iu')] as const] : [])));

/** Leading and trailing marks around a prompt ("» Teilen", "Share this article:", "- Werbung -"). */
const EDGE_MARKS = /^[\s|·•»›-]+|[\s.:!…|·•»›→-]+$/gu;

/** The prompt test for a text in `language` (its own prompts and English). */
export function readerPromptTest(language: string): (line: string) => boolean {
  const tests = [PROMPTS.get('eng'), ...(language !== 'eng' ? [PROMPTS.get(language)] : [])].filter((test): test is RegExp => test !== undefined);
  return (line) => {
    if (line.length >= SHORT_LINE) return false;
    const text = line.replace(EDGE_MARKS, '');
    return tests.some((test) => test.test(text));
  };
}

/** Drops the short lines that address the reader, in the language of the lines themselves. */
export function dropReaderPrompts(lines: string[]): string[] {
  const isPrompt = readerPromptTest(languageOf(lines.join('\n')));
  return lines.filter((line) => !isPrompt(line));
}

/** "Lesen Sie auch: …", "Czytaj też » …": a link to another article behind its label (no \\b: it is ASCII-only). */
export const READ_ALSO = new RegExp(`^(?:${everyLanguage('readAlso')})\\s*[:?»›→]`, 'iu');

/** A short heading alone on its line that opens a list of other articles. */
export const LIST_HEADING = new RegExp(`^(?:${everyLanguage('listHeadings')})\\s*:?$`, 'iu');

/** The label of a caption or credit: "Foto: …", "Abbildung 4: …", "Crédits photos : …". */
export const CREDIT_LABEL = new RegExp(`^(?:${everyLanguage('creditLabels')})(?![\\p{L}\\d])(?:\\s+\\d+)?\\s*[:–]\\s`, 'iu');
