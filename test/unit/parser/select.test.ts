import assert from 'node:assert/strict';
import { parseHtml } from '../../../src/parser/extract';
import { ANY_CASE, attributeContains, attributeHasWord, attributeIs, closestWhere, containsBranch, elementsOf, EXACT, matchingInBranchOrder, namesComment } from '../../../src/parser/select';

/**
 * The parser's attribute tests (`select.ts`) stand in for CSS selectors that jsdom's engine evaluated before the speed
 * pass; each must pick the same elements as the engine does on an HTML page, in the same order (mixed case, several
 * words, absent attributes), or extraction answers would change.
 */
const PAGE = `<!doctype html><html><head><link rel="Canonical" href="/c"><script type="Application/LD+JSON">{}</script></head><body>
<div class="Post-Author-Name" id="top"><span itemprop="Author name">Jane</span><span itemprop="author"><b itemprop="name">J</b></span><a rel="AUTHOR" href="/Author/jane">J</a></div>
<p class="byline comments-count" style="DISPLAY: none">x</p><section id="comment-3"><p class="fn">y</p><p class="FN">y</p><time datetime="2020-01-01" class="Published">t</time></section>
<span itemprop="DatePublished" content="2020-01-02">d</span>
<div role="Navigation" aria-hidden="TRUE"><em class="caption-x Caption">z</em></div><div role="navigation"><em class="caption">c</em></div>
<main role="Main"><q class="quote">q</q></main><div role="main"></div>
</body></html>`;

describe('parser: selector tests (select.ts) pick what jsdom\'s selector engine picks', () => {
  const dom = parseHtml(PAGE, 'http://example.com/a');
  after(() => dom.window.close());
  const doc = dom.window.document;
  const elements = elementsOf(doc);
  const same = (selector: string, test: (element: Element) => boolean): void =>
    assert.deepEqual(elements.filter(test), Array.from(doc.querySelectorAll(selector)), selector);

  it('lists every element of the page in document order', () => {
    assert.deepEqual(elements, Array.from(doc.querySelectorAll('*')));
    assert.deepEqual(elementsOf(doc.body), Array.from(doc.body.querySelectorAll('*')));
  });

  it('a selector with an `i` flag (or a `:` in a value) compares every value in any case', () => {
    for (const part of ['author', 'byline', 'comment', 'date', 'quote', 'caption']) same(`[class*="${part}" i]`, (e) => attributeContains(e, 'class', [part]));
    same('[class*="author" i], [id*="top" i]', (e) => attributeContains(e, 'class', ['author']) || attributeContains(e, 'id', ['top']));
    same('[hidden], [aria-hidden="true"], [style*="display:none"], [style*="display: none"]', (e) =>
      e.hasAttribute('hidden') || attributeIs(e, 'aria-hidden', 'true', ANY_CASE) || attributeContains(e, 'style', ['display:none', 'display: none']));
    same('script[type="application/ld+json" i]', (e) => e.localName === 'script' && attributeIs(e, 'type', 'application/ld+json', ANY_CASE));
    same('[rel~="canonical" i][href]', (e) => attributeHasWord(e, 'rel', 'canonical', ANY_CASE) && e.hasAttribute('href'));
    same('[itemprop="datePublished"][content], [property~="schema:datePublished" i][content]', (e) =>
      e.hasAttribute('content') && (attributeIs(e, 'itemprop', 'datepublished', ANY_CASE) || attributeHasWord(e, 'property', 'schema:datepublished', ANY_CASE)));
    same('a[href*="/author/" i]', (e) => e.localName === 'a' && attributeContains(e, 'href', ['/author/']));
  });

  it('a selector without one compares values as written, but for HTML\'s case-insensitive attributes (rel)', () => {
    same('[rel="author"]', (e) => attributeIs(e, 'rel', 'author', ANY_CASE));
    same('[itemprop~="author"]', (e) => attributeHasWord(e, 'itemprop', 'author', EXACT));
    same('[itemprop~="author"] [itemprop~="name"]', (e) => attributeHasWord(e, 'itemprop', 'name', EXACT) && !!closestWhere(e.parentElement!, (a) => attributeHasWord(a, 'itemprop', 'author', EXACT)));
    same('h1, article, main, [role="main"]', (e) => ['h1', 'article', 'main'].includes(e.localName) || attributeIs(e, 'role', 'main', EXACT));
    same('nav, [role="navigation"], [role="banner"]', (e) => e.localName === 'nav' || attributeIs(e, 'role', 'navigation', EXACT) || attributeIs(e, 'role', 'banner', EXACT));
    same('.vcard .fn, .author .fn, [class~="fn"]', (e) => attributeHasWord(e, 'class', 'fn', EXACT));
    same('figcaption, .caption, [class~="caption"]', (e) => e.localName === 'figcaption' || attributeHasWord(e, 'class', 'caption', EXACT));
  });

  it('a list run in the matcher on an element comes back branch by branch, as the engine returns it', () => {
    const inBody = elementsOf(doc.body);
    const list = '[class*="comment" i], [class*="author" i], [style*="display: none"]';
    const branches = [containsBranch('class', 'comment'), containsBranch('class', 'author'), containsBranch('style', 'display: none')];
    assert.deepEqual(matchingInBranchOrder(inBody, branches), Array.from(doc.body.querySelectorAll(list)));
    assert.notDeepEqual(matchingInBranchOrder(inBody, branches), inBody.filter((e) => branches.some((test) => test((name) => e.getAttribute(name)?.toLowerCase() ?? null))));
  });

  it('closestWhere finds what closest() finds, the element itself included', () => {
    for (const element of elements) {
      assert.equal(closestWhere(element, namesComment), element.closest('[class*="comment" i], [id*="comment" i]'));
      assert.equal(closestWhere(element, (e) => e.localName === 'section'), element.closest('section'));
      assert.equal(
        closestWhere(element, (e) => e.localName === 'nav' || attributeIs(e, 'role', 'navigation', EXACT)),
        element.closest('nav, [role="navigation"]'),
      );
    }
  });
});
