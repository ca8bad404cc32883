import assert from 'node:assert/strict';
import { baselineParagraphs, chooseBody, jsonLdBody } from '../../../src/parser/body';
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
    assert.deepEqual(baselineParagraphs(dom.window.document), ['The first paragraph of the story.', 'A quote.']);
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
