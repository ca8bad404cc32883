/**
 * Page furniture injected into the readability test pages (bench:extract's "with injected noise" rows, and
 * bench/extract-same.ts, which compares two builds on the same noisy pages).
 */
import { parseHtml } from '../src/parser/extract';

const PAGE_URL = 'http://fakehost/test/page.html';

const NOISE_TOP =
  '<div class="share-bar"><a href="/s/fb">Share on Facebook</a> <a href="/s/tw">Share on Twitter</a> <a href="/s/mail">Email this article</a></div>' +
  '<div class="ad-slot"><p>Advertisement</p></div>' +
  '<div class="newsletter-signup"><h3>Get our morning briefing</h3><p>Sign up for our daily newsletter and never miss the stories that matter to you, delivered every morning.</p><form><input type="email"><button>Subscribe</button></form></div>';
const NOISE_BOTTOM =
  '<div class="related-articles"><h3>Related stories</h3><ul><li><a href="/a1">Ten things you did not know about the weather this week</a></li><li><a href="/a2">Why the housing market keeps surprising economists</a></li><li><a href="/a3">The best gadgets of the year, reviewed by our experts</a></li></ul></div>' +
  '<div id="comments" class="comments"><h3>42 Comments</h3><div class="comment"><p>Great article, thanks for sharing this with everyone here!</p></div><div class="comment"><p>I completely disagree with the author on this point and I think the whole premise is wrong.</p></div></div>' +
  '<div class="cookie-consent"><p>We use cookies to improve your experience on our site. By continuing you agree to our cookie policy.</p><button>Accept</button></div>';

/** Adds page furniture at the start and end of the element holding the most paragraph text. */
export function injectNoise(source: string): string {
  const dom = parseHtml(source, PAGE_URL);
  const doc = dom.window.document;
  let best: Element | null = null;
  let bestScore = 0;
  const scores = new Map<Element, number>();
  for (const p of Array.from(doc.querySelectorAll('p'))) {
    const parent = p.parentElement;
    if (!parent) continue;
    const s = (scores.get(parent) ?? 0) + (p.textContent ?? '').length;
    scores.set(parent, s);
    if (s > bestScore) {
      bestScore = s;
      best = parent;
    }
  }
  const target = best ?? doc.body;
  if (target) {
    target.insertAdjacentHTML('afterbegin', NOISE_TOP);
    target.insertAdjacentHTML('beforeend', NOISE_BOTTOM);
  }
  const html = dom.serialize();
  dom.window.close();
  return html;
}

