import { JSDOM, VirtualConsole } from 'jsdom';
import { Readability } from '@mozilla/readability';
import { baselineParagraphs, chooseBody, completeArticle, jsonLdBody, noteRemoved, pageBlocks } from './body';
import { dropReaderPrompts } from './boilerplate-phrases';
import { dropContainedFurniture, looseParagraphs } from './containers';
import { dropBoilerplateBlocks, removePageFurniture, unwrapLazyImages } from './cleanup';
import { authorInputs, chooseAuthor } from './author';
import { extractKeywords } from './keywords';
import { dropFurnitureLines } from './lines';
import { lineOrigins, type LineOrigin } from './origins';
import { dropStrayLines } from './stray-lines';
import {
  absoluteUrl,
  dateFromUrl,
  findVideos,
  firstMeta,
  jsonLdImage,
  jsonLdString,
  readJsonLd,
  readMetaValues,
  timeElementDate,
  toIsoDate,
  visibleDate,
  type MetaValues,
} from './metadata';
import { ANY_CASE, attributeIs, canonicalLink, linksWithRel } from './select';
import { summarise } from './summary';
import { normaliseSpace, paragraphsOf } from './text';
import { chooseTitle, titleInputs } from './title';
import type { ArticleResult } from './types';

export interface ExtractOptions {
  /** Pre/post-processing around Readability (default true); the benchmark turns it off to compare. */
  cleanup?: boolean;
  keywordLimit?: number;
  summarySentences?: number;
}

const STYLE_BLOCK = /<style\b[^>]*>[\s\S]*?<\/style\s*>/gi;

/**
 * Parses HTML without running scripts or loading sub-resources (jsdom's defaults, stated explicitly).
 * <style> blocks are dropped first: extraction never needs them, and jsdom's CSS parser throws on
 * some real-world stylesheets (e.g. `border: inherit` shorthands), which would abort the whole parse.
 */
export function parseHtml(html: string, url: string): JSDOM {
  return new JSDOM(html.replace(STYLE_BLOCK, ''), {
    url,
    runScripts: undefined,
    resources: undefined,
    virtualConsole: new VirtualConsole(),
  });
}

function choosePublished(doc: Document, values: MetaValues, jsonLdDate: string | null, url: string): string | null {
  const metaDate = firstMeta(values, [
    'article:published_time',
    'og:published_time',
    'article:published',
    'datepublished',
    'parsely-pub-date',
    'sailthru.date',
    'dc.date.issued',
    'dc.date',
    'dcterms.date',
    'dcterms.created',
    'pubdate',
    'publishdate',
    'publish-date',
    'date',
  ]);
  return (
    toIsoDate(values.get('article:published_time')) ??
    toIsoDate(jsonLdDate) ??
    toIsoDate(metaDate) ??
    timeElementDate(doc) ??
    dateFromUrl(url) ??
    dateFromUrl(chooseCanonical(doc, values, url)) ??
    visibleDate(doc)
  );
}

function chooseCanonical(doc: Document, values: MetaValues, pageUrl: string): string {
  const link = canonicalLink(doc);
  return absoluteUrl(link?.getAttribute('href'), pageUrl) ?? absoluteUrl(values.get('og:url'), pageUrl) ?? pageUrl;
}

function leadImage(content: Element | null, base: string): string | null {
  if (!content) return null;
  for (const img of Array.from(content.querySelectorAll('img'))) {
    const width = Number(img.getAttribute('width'));
    const height = Number(img.getAttribute('height'));
    if ((width > 0 && width < 100) || (height > 0 && height < 80)) continue;
    const src = img.getAttribute('src') ?? img.getAttribute('srcset')?.split(/\s+/)[0];
    const url = absoluteUrl(src, base);
    if (url && !/\.svg(?:$|\?)|spacer|pixel|blank\.gif/i.test(url)) return url;
  }
  return null;
}

function declaredKeywords(values: MetaValues, doc: Document): string[] {
  const declared = [values.get('keywords'), values.get('news_keywords')]
    .filter((v): v is string => !!v)
    .flatMap((v) => v.split(/[,;]/));
  // meta[property="article:tag" i]
  for (const tag of Array.from(doc.querySelectorAll('meta'))) if (attributeIs(tag, 'property', 'article:tag', ANY_CASE)) declared.push(tag.getAttribute('content') ?? '');
  return declared.map((k) => normaliseSpace(k)).filter((k) => k.length > 1);
}

/** html + final URL → article fields. Never throws for odd pages: missing parts come back empty. */
export function extractArticle(html: string, pageUrl: string, options: ExtractOptions = {}): ArticleResult {
  const cleanup = options.cleanup ?? true;
  const dom = parseHtml(html, pageUrl);
  try {
    const doc = dom.window.document;
    const base = doc.baseURI || pageUrl;
    const host = new URL(pageUrl).hostname;

    const values = readMetaValues(doc);
    const allJsonLd = readJsonLd(doc);
    const jsonLd = allJsonLd;
    const titleSources = titleInputs(doc, values, jsonLd, host);
    const siteNames = titleSources.siteNames;
    const published = choosePublished(doc, values, jsonLdString(jsonLd, 'datePublished'), pageUrl);
    const url = chooseCanonical(doc, values, pageUrl);
    const videos = findVideos(doc, values, jsonLd, allJsonLd, base);
    const declared = declaredKeywords(values, doc);
    const metaImage =
      absoluteUrl(firstMeta(values, ['og:image:secure_url', 'og:image:url', 'og:image', 'twitter:image', 'twitter:image:src']), base) ??
      absoluteUrl(jsonLdImage(jsonLd), base) ??
      absoluteUrl(linksWithRel(doc, 'image_src')[0]?.getAttribute('href'), base);

    const authorSources = authorInputs(doc, values, jsonLd, readJsonLd(doc, true));
    unwrapLazyImages(doc);
    const origins = cleanup && doc.body ? lineOrigins(doc.body) : new Map<string, LineOrigin>();
    const blocks = cleanup ? pageBlocks(doc) : [];
    const contained = [...blocks, ...looseParagraphs(origins, blocks)];
    if (cleanup) removePageFurniture(doc);
    noteRemoved(blocks);
    const baseline = baselineParagraphs(blocks);

    let article: ReturnType<Readability<Element>['parse']> = null;
    try {
      article = new Readability<Element>(doc, {
        serializer: (node) => node as Element,
        classesToPreserve: ['caption'],
      }).parse();
    } catch {
      article = null;
    }
    const title = chooseTitle(titleSources, article?.title ?? null);
    const content = article?.content ?? null;
    if (content && cleanup) dropBoilerplateBlocks(content);
    const readabilityParagraphs = content ? paragraphsOf(content) : [];
    const chosen = cleanup ? chooseBody(readabilityParagraphs, jsonLdBody(jsonLd), baseline) : null;
    const paragraphs = !chosen ? readabilityParagraphs : chosen.kind === 'readability' ? completeArticle(chosen.paragraphs, blocks) : chosen.paragraphs;
    const body = (cleanup ? dropStrayLines(dropReaderPrompts(dropContainedFurniture(dropFurnitureLines(paragraphs), contained)), origins) : paragraphs).join('\n');
    const image = metaImage ?? leadImage(content, base) ?? '';
    const author = chooseAuthor(authorSources, article?.byline, siteNames);

    const scored = extractKeywords(body, { title, declared, limit: options.keywordLimit ?? 10 });
    let summary = summarise(body, scored.wordWeights, options.summarySentences ?? 3);
    if (!summary) summary = normaliseSpace(firstMeta(values, ['og:description', 'description', 'twitter:description']) ?? '');

    return { title, author, published, url, image, videos, keywords: scored.keywords, summary, body };
  } finally {
    dom.window.close();
  }
}
