/**
 * The one vocabulary of page-furniture names in class and id attributes (issue 30), used by clean-up
 * (`cleanup.ts`, which removes small containers so named before Readability) and by the container rule
 * (`containers.ts`, which drops the body lines of a container so named when it holds a small share of the body).
 * A word is matched as whole parts of a token: "author-box", "related_posts", "nextStory", "social-share-bar".
 */

/**
 * Where a word counts. `both`: clean-up and the container rule. `cleanup`: clean-up only (words the container
 * rule measured worse with: German CMSs call the lead a "teaser"; `ads` is a BEM look as often as a slot; the
 * rest are already gone when the container rule runs). `lines`: the container rule only (too common around
 * the article's own text to remove a container blind: an "author" box holds the byline and date that are read
 * before clean-up, a "footer" of an entry holds its tags, "more" wraps a page's "read more" fold).
 */
type Scope = 'both' | 'cleanup' | 'lines';

const FURNITURE_NAMES: Readonly<Record<string, Scope>> = {
  // consent, subscriptions, paywalls
  cookie: 'cleanup', consent: 'cleanup', gdpr: 'cleanup', paywall: 'cleanup', signup: 'cleanup', 'sign-up': 'cleanup', login: 'cleanup',
  newsletter: 'both', subscribe: 'both', subscription: 'both', cta: 'lines',
  // sharing and comments
  share: 'both', sharing: 'both', social: 'both', comment: 'both', comments: 'both', commentlist: 'lines', disqus: 'cleanup',
  respond: 'cleanup', reply: 'cleanup', kommentar: 'lines', kommentare: 'lines',
  // ads and promotion
  advert: 'both', advertisement: 'cleanup', ad: 'cleanup', ads: 'cleanup', adslot: 'cleanup', 'ad-slot': 'cleanup', dfp: 'cleanup',
  sponsor: 'cleanup', sponsored: 'cleanup', promo: 'both', outbrain: 'cleanup', taboola: 'cleanup', werbung: 'lines',
  abowerbung: 'lines', anzeige: 'lines', affiliate: 'lines', disclosure: 'lines',
  // other articles
  related: 'both', recommended: 'both', recirc: 'cleanup', popular: 'both', trending: 'both', 'more-stories': 'cleanup',
  'read-more': 'cleanup', more: 'lines', next: 'lines', nextstory: 'lines', teaser: 'cleanup',
  // navigation and page frame
  navigation: 'lines', navframe: 'lines', navcontent: 'lines', menu: 'both', breadcrumb: 'both', breadcrumbs: 'both',
  'skip-link': 'cleanup', sidebar: 'both', footer: 'lines', entryfooter: 'lines', banner: 'both', masthead: 'cleanup',
  topbar: 'cleanup', toolbar: 'cleanup', pagination: 'cleanup', pager: 'cleanup', search: 'cleanup', modal: 'cleanup',
  overlay: 'cleanup', 'print-only': 'cleanup', 'visually-hidden': 'cleanup', 'sr-only': 'cleanup',
  // about the article rather than the article
  author: 'lines', authors: 'lines', 'author-box': 'cleanup', authorbox: 'cleanup', 'about-author': 'cleanup', bio: 'both',
  byline: 'cleanup', meta: 'both', postmeta: 'cleanup', postmetadata: 'lines', tag: 'cleanup', tags: 'both', tagcloud: 'cleanup',
  rating: 'cleanup', caption: 'cleanup', credit: 'cleanup', credits: 'cleanup', copyright: 'cleanup', licence: 'lines',
  license: 'lines', lizenz: 'lines', citation: 'lines', disclaimer: 'lines', factbox: 'lines',
};

/** Words that name the article itself: a token with one of them is the article's ("entry-meta", "post-share"). */
export const ARTICLE_WORDS = ['article', 'post', 'entry', 'story', 'main', 'content', 'body', 'text'];

function wordsFor(scope: 'cleanup' | 'lines'): RegExp {
  const words = Object.entries(FURNITURE_NAMES)
    .filter(([, where]) => where === 'both' || where === scope)
    .map(([word]) => word);
  return new RegExp(`(?:^|-)(?:${words.join('|')})(?:-|$)`);
}
const FOR_CLEANUP = wordsFor('cleanup');
const FOR_LINES = wordsFor('lines');
const ARTICLE_PART = new RegExp(`(?:^|-)(?:${ARTICLE_WORDS.join('|')})(?:-|$)`);

/** A class or id token as lower-case parts joined by "-": camelCase and "_" split, a BEM modifier ("--x", how it looks) dropped. */
export function tokenParts(token: string): string {
  return token
    .replace(/--.*$/, '')
    .replace(/([a-z])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .split(/[-_]+/)
    .filter((part) => part.length > 0)
    .join('-');
}

export const namesFurnitureFor = {
  /** Clean-up: the token names furniture (the caller vetoes elements whose other tokens name the article). */
  cleanup: (parts: string): boolean => FOR_CLEANUP.test(parts),
  /** The container rule. */
  lines: (parts: string): boolean => FOR_LINES.test(parts),
};

/** The token names the article itself. */
export const namesArticle = (parts: string): boolean => ARTICLE_PART.test(parts);

/** The class and id tokens of an element. */
export function nameTokens(element: Element): string[] {
  return `${element.getAttribute('class') ?? ''} ${element.getAttribute('id') ?? ''}`.split(/\s+/).filter((token) => token.length > 0);
}
