import { extractArticle } from '../src/parser/extract';
import type { ArticleResult, ExtractPayload } from '../src/parser/types';

/** Piscina task: article HTML + its final URL → extracted fields (jsdom + Readability, CPU-bound). */
export default function extract(payload: ExtractPayload): ArticleResult {
  return extractArticle(payload.html, payload.url);
}
