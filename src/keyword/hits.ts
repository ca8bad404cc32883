import type { KeywordDocument } from './document';
import { highlightDoc } from './highlight';
import type { KeywordSearch, SearchHit, SearchResponse } from './types';

/**
 * A search's response with each hit's requested fields and highlights, from the hits' documents (`docs[i]` is
 * hit i's, as storage holds it; undefined when it is gone, and the hit keeps only its id and score).
 */
export function decorateHits(result: KeywordSearch, docs: readonly (KeywordDocument | undefined)[], fields: readonly string[] = []): SearchResponse {
  const { response, highlight } = result;
  if (fields.length === 0 && !highlight) return response;
  const hits = response.hits.hits.map((hit, i) => {
    const doc = docs[i];
    if (!doc) return hit;
    const out: SearchHit = { id: hit.id, ...pickFields(doc, fields), _score: hit._score };
    if (hit.sort) out.sort = hit.sort;
    if (highlight) {
      const h = highlightDoc(doc, highlight.spec, highlight.terms);
      if (h) out.highlight = h;
    }
    return out;
  });
  return { ...response, hits: { ...response.hits, hits } };
}

function pickFields(doc: KeywordDocument, fields: readonly string[]): Partial<SearchHit> {
  const out: Partial<SearchHit> = {};
  for (const f of fields) {
    switch (f) {
      case 'text': out.text = doc.text; break;
      case 'meta': out.meta = doc.meta ?? null; break;
      case 'tags': out.tags = doc.tags ?? []; break;
      case 'published_at': out.published_at = doc.published_at ?? null; break;
      case 'created_at': out.created_at = doc.created_at; break;
      case 'updated_at': out.updated_at = doc.updated_at; break;
      default: break;
    }
  }
  return out;
}
