import { languageOf } from '../text';

/**
 * What a page says to its reader rather than about its subject, per language (ISO 639-3, as `src/text`
 * detects it): ad labels, comment-form and rating prompts, "load more", "share this article?", "was this
 * helpful?", embed-consent buttons, a blog's "posted in … bookmark the permalink" footer. A short line of the
 * chosen body is dropped when it matches the phrases of the body's language or English (site furniture is
 * often English on pages in other languages). Generic phrases only: no site's wording.
 */
const PHRASES: Readonly<Record<string, RegExp>> = {
  eng: new RegExp(
    [
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
    ].join('|'),
    'iu',
  ),
  deu: new RegExp(
    [
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
    ].join('|'),
    'iu',
  ),
  fra: new RegExp(
    ['^pour lire la suite\\b', '^(?:laisser|laissez|ajouter) un commentaire\\b', '^partager(?: cet article| sur)?$', '^publicité$'].join('|'),
    'iu',
  ),
  spa: new RegExp(
    ['^(?:deja|dejar|añadir) (?:un|tu) comentario\\b', '^compartir(?: en)?$', '^publicidad$', '\\bnuestro canal de (?:youtube|telegram|whatsapp)\\b|\\btenemos canal de\\b', '^hazte (?:miembro|socio)\\b'].join('|'),
    'iu',
  ),
  ita: new RegExp(['^lascia un commento\\b', '^condividi$', '^pubblicità$'].join('|'), 'iu'),
  pol: new RegExp(['^dodaj komentarz\\b', '^udostępnij$', '^reklama$', '^(?:drukuj|powrót)$'].join('|'), 'iu'),
  nld: new RegExp(['^(?:laat|plaats) een (?:reactie|opmerking)\\b', '^delen$', '^advertentie$'].join('|'), 'iu'),
};

/** Longer lines are the article's own sentences, whatever they say. */
const SHORT = 120;

/** The phrase test for a body in `language` (its own phrases and English). */
export function readerPromptTest(language: string): (line: string) => boolean {
  const tests = [PHRASES.eng, ...(language !== 'eng' && PHRASES[language] ? [PHRASES[language]] : [])];
  return (line) => {
    if (line.length >= SHORT) return false;
    const text = line.replace(/^[\s|·•»›-]+|[\s.:!…|·•»›-]+$/gu, '');
    return tests.some((test) => test.test(text));
  };
}

/** Drops the short lines that address the reader (`PHRASES`) in the language of the lines themselves. */
export function dropReaderPrompts(lines: string[]): string[] {
  const isPrompt = readerPromptTest(languageOf(lines.join('\n')));
  return lines.filter((line) => !isPrompt(line));
}
