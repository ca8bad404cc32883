import assert from 'node:assert/strict';
import { baselineParagraphs, chooseBody, completeArticle, jsonLdBody, noteRemoved, pageBlocks } from '../../../src/parser/body';
import { dropReaderPrompts, readerPromptTest } from '../../../src/parser/boilerplate-phrases';
import { dropContainedFurniture, furnitureContainers } from '../../../src/parser/containers';
import { dropFurnitureLines, isDateLine } from '../../../src/parser/lines';
import { namesFurnitureFor, tokenParts } from '../../../src/parser/furniture-names';
import { lineOrigins } from '../../../src/parser/origins';
import { dropStrayLines } from '../../../src/parser/stray-lines';
import { decodeHtml, looksLikeLegacy8Bit } from '../../../src/parser/charset';
import { extractArticle, parseHtml } from '../../../src/parser/extract';
import { datesInText } from '../../../src/parser/metadata';

describe('parser: issue 30 (fallback chain, metadata, charset)', () => {
  it('reads dates as people write them, in several languages', () => {
    assert.deepEqual(datesInText('am 18. Mai 2014 um 10 Uhr'), ['2014-05-18T00:00:00.000Z']);
    assert.deepEqual(datesInText('Posted May 18, 2014'), ['2014-05-18T00:00:00.000Z']);
    assert.deepEqual(datesInText('18 de mayo de 2014'), ['2014-05-18T00:00:00.000Z']);
    assert.deepEqual(datesInText('Stand: 18.05.2014'), ['2014-05-18T00:00:00.000Z']);
    assert.deepEqual(datesInText('3 października 2019'), ['2019-10-03T00:00:00.000Z']);
    assert.deepEqual(datesInText('31.02.2014 and 99 Foo 2014'), []);
  });

  it('decodes a page that declares UTF-8 but is windows-1252 as windows-1252, and keeps real UTF-8', () => {
    const legacy = Buffer.from('<meta charset="utf-8"><p>Gr\xfc\xdfe aus K\xf6ln \x96 sch\xf6n</p>', 'latin1');
    assert.equal(looksLikeLegacy8Bit(legacy), true);
    assert.match(decodeHtml(legacy, 'text/html').text, /Grüße aus Köln – schön/);
    const utf8 = Buffer.from('<meta charset="utf-8"><p>Grüße aus Köln</p>', 'utf8');
    assert.equal(looksLikeLegacy8Bit(utf8), false);
    assert.match(decodeHtml(utf8, 'text/html').text, /Grüße aus Köln/);
  });

  it('reads UTF-8 bytes under a legacy <meta> as UTF-8, and keeps a legacy page and an HTTP charset as declared', () => {
    const resaved = Buffer.from('<meta charset="gbk"><p>夜间图书馆 und Köln</p>', 'utf8');
    assert.equal(decodeHtml(resaved, 'text/html').charset, 'utf-8');
    assert.match(decodeHtml(resaved, 'text/html').text, /夜间图书馆 und Köln/);
    const latin1 = Buffer.from('<meta charset="iso-8859-1"><p>Gr\xfc\xdfe aus K\xf6ln</p>', 'latin1');
    assert.equal(decodeHtml(latin1, 'text/html').charset, 'windows-1252');
    assert.equal(decodeHtml(resaved, 'text/html; charset=gbk').charset, 'gbk');
  });

  it('reads a JSON-LD articleBody and chooses it when Readability found clearly less', () => {
    const body = jsonLdBody([{ '@type': 'NewsArticle', articleBody: `First paragraph.\n${'Second paragraph. '.repeat(40)}` }]);
    assert.equal(body.length, 2);
    assert.equal(chooseBody(['short'], body, []).kind, 'jsonld');
    assert.equal(chooseBody(['a long text '.repeat(100)], body, []).kind, 'readability');
  });

  it('builds a recall baseline without navigation or link lists', () => {
    const dom = parseHtml(
      '<body><nav><p>Home</p></nav><div><p>The first paragraph of the story.</p><ul><li><a href="/a">Other story</a></li></ul><blockquote>A quote.</blockquote></div></body>',
      'https://example.test/',
    );
    const blocks = pageBlocks(dom.window.document);
    noteRemoved(blocks);
    assert.deepEqual(baselineParagraphs(blocks), ['The first paragraph of the story.', 'A quote.']);
    dom.window.close();
  });

  it('takes the headline the declared titles confirm, without kicker or site name', () => {
    const html =
      '<html><head><title>Tote Hummeln unter Linden: Die Erklärung | Naturblog</title></head><body><header><h1>Naturblog</h1></header>' +
      `<article><h1>Tote Hummeln unter Linden</h1><p>${'Unter blühenden Linden liegen im Sommer oft tote Hummeln. '.repeat(8)}</p></article></body></html>`;
    assert.equal(extractArticle(html, 'https://example.test/a').title, 'Tote Hummeln unter Linden');
  });

  it('cleans author labels and drops captions from the body', () => {
    const html =
      '<html><head><title>A story</title></head><body><article><h1>A story</h1><div class="byline">Veröffentlicht vonJane Doe</div>' +
      `<figure><img src="/a.jpg"><figcaption>Foto: Max Muster</figcaption></figure><p>${'The story goes on and on. '.repeat(20)}</p></article></body></html>`;
    const result = extractArticle(html, 'https://example.test/a');
    assert.equal(result.author, 'Jane Doe');
    assert.doesNotMatch(result.body, /Max Muster/);
  });
});

describe('parser: issue 30 (article completion, furniture lines)', () => {
  it('completes Readability\'s article with the prose blocks it left out before and inside it, in page order', () => {
    const lead = `${'Der Vorspann erzählt, worum es geht, in einem langen Satz. '.repeat(3)}`;
    const missed = `${'Ein Absatz in einem Nachbarcontainer, den Readability nicht nahm. '.repeat(3)}`;
    const dom = parseHtml(
      `<body><nav><p>${'Navigation '.repeat(20)}</p></nav><div><p>${lead}</p></div><h2>Kurz</h2>` +
        `<div><p>Erster Absatz des Artikels.</p></div><aside><p>${'Werbung '.repeat(30)}</p></aside><div><p>${missed}</p></div>` +
        `<div><p>Letzter Absatz des Artikels.</p></div><p><a href="/x">${'Link '.repeat(40)}</a></p></body>`,
      'https://example.test/',
    );
    const blocks = pageBlocks(dom.window.document);
    noteRemoved(blocks);
    const completed = completeArticle(['Erster Absatz des Artikels.', 'Letzter Absatz des Artikels.'], blocks);
    assert.deepEqual(completed, [lead.trim(), 'Erster Absatz des Artikels.', missed.trim(), 'Letzter Absatz des Artikels.']);
    dom.window.close();
  });

  it('drops date lines, captions and credits and "read also" links, and keeps prose that mentions them', () => {
    const lines = [
      'Aktualisiert: 11.04.2020, 10:27',
      'Posted on April 29, 2022',
      'Foto: Max Muster / dpa',
      'Marco Odermatt, Ski-Star aus der Schweiz. © AFP / MARCO BERTORELLO',
      '(Credit: Clayton Aldern / Grist)',
      'Czytaj też: Wyścig zbrojeń ruszył z kopyta',
      'Lesen Sie auch: Der Streit um die Maut geht weiter',
    ];
    const prose = [
      'Am 11.04.2020 wurde die Brücke nach vier Jahren Bauzeit eröffnet, früher als geplant.',
      'Das Foto zeigt den Bürgermeister bei der Eröffnung.',
      'Belag:',
    ];
    assert.deepEqual(dropFurnitureLines([...lines, ...prose]), prose);
    assert.equal(isDateLine('11 Jan 2019'), true);
    assert.equal(isDateLine('02.11.2022 - Placebo - Stadthalle Wien Konzert'), false);
  });

  it('drops lines from a small container named as furniture, never from the article\'s own container', () => {
    const dom = parseHtml(
      '<body><article class="post author-note"><div class="entry"><p>First paragraph of the story, which goes on for a while.</p><p>Second paragraph of the story, which goes on too.</p>' +
        '<div class="author-box"><p>Jane writes about cities.</p></div><div class="post-content"><p>Third.</p></div></div></article></body>',
      'https://example.test/',
    );
    const blocks = pageBlocks(dom.window.document);
    const bio = blocks.find((block) => block.paragraphs[0] === 'Jane writes about cities.');
    assert.equal(bio?.furnitureContainers[0]?.className, 'author-box');
    // "post-content" names the article, and <article> is never furniture whatever its classes
    assert.deepEqual(blocks.find((block) => block.paragraphs[0] === 'Third.')?.furnitureContainers, []);
    const story = ['First paragraph of the story, which goes on for a while.', 'Second paragraph of the story, which goes on too.', 'Third.'];
    assert.deepEqual(dropContainedFurniture([...story.slice(0, 2), 'Jane writes about cities.', 'Third.'], blocks), story);
    // a container that holds most of the body is the article, whatever it is called
    assert.deepEqual(dropContainedFurniture(['Jane writes about cities.'], blocks), ['Jane writes about cities.']);
    assert.equal(furnitureContainers(dom.window.document.querySelector('.entry') as Element, new Map()).length, 0);
    dom.window.close();
  });

  it('drops short reader prompts in the body\'s language and English, and keeps them in sentences or in other languages', () => {
    const german = ['Die Brücke wurde nach vier Jahren Bauzeit am Samstag eröffnet, und die Pendler sind froh darüber.', 'Anzeige', 'War der Artikel nützlich?', 'Kommentare geschlossen', 'Load more'];
    assert.deepEqual(dropReaderPrompts(german), [german[0]]);
    const english = ['The bridge opened on Saturday after four years of work, and the commuters who cross it are glad.', 'Kommentare geschlossen', 'Was this article helpful?'];
    assert.deepEqual(dropReaderPrompts(english), english.slice(0, 2));
    assert.equal(readerPromptTest('deu')(`Kommentare geschlossen ${'und so weiter '.repeat(10)}`), false);
  });

  it('reads furniture names from one vocabulary, each word where it counts', () => {
    assert.equal(tokenParts('authorBox--wide'), 'author-box');
    assert.equal(namesFurnitureFor.cleanup(tokenParts('author-box')), true);
    // an "author" container holds the byline: only its lines go, and only when it is a small part of the body
    assert.equal(namesFurnitureFor.cleanup(tokenParts('post-author')), false);
    assert.equal(namesFurnitureFor.lines(tokenParts('post-author')), true);
    // German CMSs call the lead a teaser: clean-up removes small teasers, the container rule keeps their lines
    assert.equal(namesFurnitureFor.cleanup(tokenParts('teaser')), true);
    assert.equal(namesFurnitureFor.lines(tokenParts('teaser')), false);
    assert.equal(namesFurnitureFor.lines(tokenParts('shareButtons')), true);
  });

  it('drops lines that stray outside the article\'s container after it ends, and keeps sentences and lines it does not hold', () => {
    const long = (s: string): string => `${s} `.repeat(4).trim();
    const dom = parseHtml(
      `<body><div id="page"><div id="story"><p>${long('Die Brücke wurde am Samstag eröffnet.')}</p><p>${long('Die Pendler sind froh darüber.')}</p></div>` +
        '<div>Alle Termine</div><p>Kontakt: Bezirksamt Mitte</p><p>Das Bezirksamt lädt zur Feier ein.</p><p><a href="/x">Neuer Spielplatz eröffnet</a></p></div></body>',
      'https://example.test/',
    );
    const origins = lineOrigins(dom.window.document.body);
    const story = [long('Die Brücke wurde am Samstag eröffnet.'), long('Die Pendler sind froh darüber.')];
    const lines = [...story, 'Alle Termine', 'Kontakt: Bezirksamt Mitte', 'Das Bezirksamt lädt zur Feier ein.', 'Text from JSON-LD', 'Neuer Spielplatz eröffnet'];
    assert.deepEqual(dropStrayLines(lines, origins), [...story, 'Das Bezirksamt lädt zur Feier ein.', 'Text from JSON-LD']);
    dom.window.close();
  });
});
