import assert from 'node:assert/strict';
import { extractArticle } from '../../../src/parser/extract';
import { extractKeywords } from '../../../src/parser/keywords';
import { summarise } from '../../../src/parser/summary';
import { sentencesOf } from '../../../src/parser/text';
import { trimSiteName } from '../../../src/parser/title';
import { ARTICLE_HTML, LOREM, WHALE_TEXT, page } from './fixtures';
import { startServer } from './server';

const URL_BASE = 'https://coastal.example/news/2024/03/05/whales?utm=x';

describe('parser: extractArticle', () => {
  const result = extractArticle(ARTICLE_HTML, URL_BASE);

  it('takes the social title and trims the site name', () => assert.equal(result.title, 'Whales return to Monterey Bay'));
  it('takes the meta author', () => assert.equal(result.author, 'Jane Doe'));
  it('writes the published time in ISO 8601 at the page’s own offset (the same instant as 09:00 UTC)', () => {
    assert.equal(result.published, '2024-03-05T10:00:00.000+01:00');
    assert.equal(Date.parse(result.published!), Date.parse('2024-03-05T09:00:00Z'));
  });
  it('uses the canonical URL, made absolute', () => assert.equal(result.url, 'https://coastal.example/news/2024/whales-return'));
  it('uses og:image, made absolute', () => assert.equal(result.image, 'https://coastal.example/images/whales.jpg'));
  it('collects og:video, <video> sources and player embeds, absolute and deduplicated', () => {
    assert.deepEqual(result.videos, [
      'https://cdn.coastal.example/video/whales.mp4',
      'https://www.youtube.com/embed/abc123XYZ',
      'https://player.vimeo.com/video/76979871',
      'https://coastal.example/media/breach.webm',
    ]);
  });
  it('keeps the article paragraphs, one per line, in order', () => {
    const lines = result.body.split('\n');
    for (const paragraph of WHALE_TEXT) assert.ok(lines.includes(paragraph), `missing paragraph: ${paragraph.slice(0, 40)}`);
    const positions = WHALE_TEXT.map((p) => result.body.indexOf(p));
    assert.deepEqual([...positions].sort((a, b) => a - b), positions);
  });
  it('drops navigation, ads, share bars, cookie banners, comments and footers', () => {
    for (const noise of ['navigation section', 'masthead', 'Advertisement', 'Share on Facebook', 'cookies', 'Great read', 'Comments', 'footer text', 'About us']) {
      assert.ok(!result.body.includes(noise), `body still contains ${noise}`);
    }
  });
  it('puts declared keywords that occur in the text first, skips those that do not', () => {
    assert.deepEqual(result.keywords.slice(0, 3), ['humpback whales', 'Monterey Bay', 'ocean policy']);
    assert.ok(!result.keywords.includes('cryptocurrency'));
    assert.ok(result.keywords.length >= 5 && result.keywords.length <= 10, `keywords: ${result.keywords.join(', ')}`);
  });
  it('returns only keywords that appear in the article', () => {
    const text = result.body.toLowerCase();
    for (const keyword of result.keywords) assert.ok(text.includes(keyword.toLowerCase()), `${keyword} is not in the body`);
  });
  it('finds salient terms beyond the declared ones', () => {
    const extra = result.keywords.slice(3).map((k) => k.toLowerCase());
    assert.ok(extra.some((k) => /anchovy|gill net|fishermen|researchers|feeding/.test(k)), `extra keywords: ${extra.join(', ')}`);
    assert.ok(!extra.some((k) => ['the', 'and', 'said', 'when'].includes(k)));
  });
  it('summarises with up to three sentences taken from the body', () => {
    const sentences = sentencesOf(result.summary);
    assert.ok(sentences.length >= 1 && sentences.length <= 3, result.summary);
    for (const sentence of sentences) assert.ok(result.body.includes(sentence), `not from the body: ${sentence}`);
    assert.match(result.summary, /whales/i);
  });
  it('does not run page scripts', () => {
    assert.notEqual(result.title, 'hacked');
  });
});

describe('parser: extraction fallbacks', () => {
  const base = 'https://example.org/story';

  it('falls back to twitter:title, then <title> with the site name trimmed', () => {
    assert.equal(extractArticle(page('<meta name="twitter:title" content="Council delays library vote"><title>x</title>'), base).title, 'Council delays library vote');
    assert.equal(
      extractArticle(page('<title>Council delays library vote - Town Crier</title><meta property="og:site_name" content="Town Crier">'), base).title,
      'Council delays library vote',
    );
    assert.equal(extractArticle(page('<title>Example | Council delays library vote</title>'), base).title, 'Council delays library vote');
  });
  it('keeps a title part that is not the site name', () => {
    assert.equal(extractArticle(page('<title>Budget 2024 - what changes for you</title>'), base).title, 'Budget 2024 - what changes for you');
    assert.equal(trimSiteName('Review: the new phone - Gadget Weekly', ['Gadget Weekly'], ['gadgets.example']), 'Review: the new phone');
  });
  it('reads the author from JSON-LD, article:author and the byline', () => {
    const jsonLd = `<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"H","author":[{"@type":"Person","name":"Ana Ruiz"},{"@type":"Person","name":"Bo Li"}],"datePublished":"2023-11-02T08:30:00Z"}</script>`;
    const fromJsonLd = extractArticle(page(jsonLd), base);
    assert.equal(fromJsonLd.author, 'Ana Ruiz, Bo Li');
    assert.equal(fromJsonLd.published, '2023-11-02T08:30:00.000Z');
    assert.equal(extractArticle(page('<meta property="article:author" content="Chris Park">'), base).author, 'Chris Park');
    assert.equal(extractArticle(page('<meta property="article:author" content="https://facebook.com/someone">'), base).author, '');
    const byline = extractArticle(page('', `<article><p class="byline">By Dana Scully</p>${LOREM}</article>`), base);
    assert.equal(byline.author, 'Dana Scully');
    const dated = extractArticle(page('', `<article><div class="byline">By Fox Mulder\n March 25, 2015 3:46 PM</div>${LOREM}</article>`), base);
    assert.equal(dated.author, 'Fox Mulder');
    assert.equal(extractArticle(page('<meta name="author" content="Sunday, Feb 1, 2015 11:57 AM UTC">'), base).author, '');
    assert.equal(extractArticle(page('<meta name="author" content="Posted by Jane Roe on Tuesday, March 3">'), base).author, 'Jane Roe');
  });
  it('reads the date from <time datetime>, then from the URL', () => {
    assert.equal(
      extractArticle(page('', `<article><time datetime="2022-07-14T12:00:00-04:00">July 14</time>${LOREM}</article>`), base).published,
      '2022-07-14T12:00:00.000-04:00',
    );
    assert.equal(extractArticle(page(''), 'https://example.org/2021/09/30/some-story').published, '2021-09-30T00:00:00.000Z');
    assert.equal(extractArticle(page(''), base).published, null);
  });
  it('uses og:url when there is no canonical link, the fetched URL when neither exists', () => {
    assert.equal(extractArticle(page('<meta property="og:url" content="https://example.org/canonical">'), base).url, 'https://example.org/canonical');
    assert.equal(extractArticle(page(''), base).url, base);
  });
  it('falls back to the lead image of the article', () => {
    const html = page('', `<article><img src="/tracker.gif" width="1" height="1"><img data-src="/lazy/lead.jpg" src="data:image/gif;base64,R0lGOD">${LOREM}</article>`);
    assert.equal(extractArticle(html, base).image, 'https://example.org/lazy/lead.jpg');
    assert.equal(extractArticle(page(''), base).image, '');
  });
  it('answers for pages that are not articles, without throwing', () => {
    for (const html of ['', 'plain text, no markup', '<html><body><form><input name="q"></form></body></html>', '<frameset><frame src="a.html"></frameset>', '\u0000\u0001<<<>>>']) {
      const r = extractArticle(html, base);
      assert.equal(typeof r.body, 'string');
      assert.equal(r.url, base);
      assert.deepEqual(r.videos, []);
    }
    const login = extractArticle('<html><head><title>Sign in</title></head><body><form><input name="user"></form></body></html>', base);
    assert.equal(login.title, 'Sign in');
    assert.equal(login.body, '');
  });
  it('does not fetch sub-resources (images, styles, scripts, iframes)', async () => {
    const server = await startServer();
    try {
      const html = page(
        `<link rel="stylesheet" href="${server.origin}/style.css"><script src="${server.origin}/app.js"></script>`,
        `<article><img src="${server.origin}/img.jpg"><iframe src="${server.origin}/frame.html"></iframe>${LOREM}</article>`,
      );
      extractArticle(html, base);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(server.requests, []);
    } finally {
      await server.close();
    }
  });
});

describe('parser: keywords and summary', () => {
  const text = [
    'The city council approved the new light rail line on Monday after a long debate about the light rail budget.',
    'Supporters said the light rail would cut traffic, while critics worried about construction noise downtown.',
    'The mayor promised that construction would start next year and that the light rail would open in 2028.',
  ].join('\n');

  it('ranks recurring rare phrases above common words', () => {
    const { keywords } = extractKeywords(text, { limit: 5 });
    assert.equal(keywords[0], 'light rail');
    assert.ok(!keywords.some((k) => ['the', 'said', 'would', 'year'].includes(k.toLowerCase())), keywords.join(', '));
  });
  it('keeps declared keywords only when they occur in the text', () => {
    const { keywords } = extractKeywords(text, { declared: ['Construction', 'football'], limit: 5 });
    assert.equal(keywords[0], 'Construction');
    assert.ok(!keywords.includes('football'));
  });
  it('summarises extractively, in article order', () => {
    const { wordWeights } = extractKeywords(text);
    const summary = summarise(text, wordWeights, 2);
    const sentences = sentencesOf(summary);
    assert.equal(sentences.length, 2);
    const positions = sentences.map((s) => text.indexOf(s));
    assert.ok(positions.every((p) => p >= 0));
    assert.ok(positions[0] < positions[1]);
  });
  it('ignores contractions and folds possessives', () => {
    const chatty = "Don't panic. I'm sure Facebook's plan works, don't you think? Facebook's critics don't agree. Facebook's board met.";
    const { keywords } = extractKeywords(chatty, { limit: 5 });
    assert.equal(keywords[0], 'Facebook');
    assert.ok(!keywords.some((k) => /['’]/.test(k)), keywords.join(', '));
  });
  it('picks keywords in the article\'s own language: its stop words never, Chinese and Japanese as words', () => {
    const german = [
      'Der Stadtrat hat am Montag die neue Straßenbahnlinie beschlossen, nach einer langen Debatte über die Straßenbahn.',
      'Die Befürworter sagen, die Straßenbahn werde den Verkehr verringern, und die Kritiker fürchten den Baulärm.',
      'Der Bürgermeister versprach, dass der Bau im nächsten Jahr beginnt und die Straßenbahn im Jahr 2028 fährt.',
    ].join('\n');
    const de = extractKeywords(german, { limit: 5 }).keywords;
    assert.equal(de[0], 'Straßenbahn');
    assert.ok(!de.some((k) => ['der', 'die', 'und', 'den', 'dass'].includes(k.toLowerCase())), de.join(', '));
    const chinese = '市议会批准了新的轻轨线路。支持者说轻轨会减少交通拥堵，批评者担心施工噪音。市长承诺轻轨将在明年开工。';
    const zh = extractKeywords(chinese, { limit: 5 }).keywords;
    assert.equal(zh[0], '轻轨');
    assert.ok(zh.every((k) => k.length <= 8), zh.join(', '));
    const japanese = '市議会は新しい路面電車の路線を承認した。支持者は路面電車が渋滞を減らすと言い、批判者は工事の騒音を心配している。';
    const ja = extractKeywords(japanese, { limit: 5 }).keywords;
    assert.ok(ja.slice(0, 2).some((k) => k.includes('路面') || k.includes('電車')), ja.join(', '));
    assert.ok(!ja.some((k) => ['は', 'の', 'を', 'が'].includes(k)), ja.join(', '));
    const summary = summarise(chinese.repeat(2), extractKeywords(chinese.repeat(2)).wordWeights, 1);
    assert.ok(summary.includes('轻轨') && summary.length < chinese.length, summary);
  });
  it('returns nothing for empty text', () => {
    assert.deepEqual(extractKeywords('').keywords, []);
    assert.equal(summarise('', new Map()), '');
  });
});
