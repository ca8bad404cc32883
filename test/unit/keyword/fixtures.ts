import { KeywordDocument } from '../../../src/keyword/document';
import { KeywordIndex } from '../../../src/keyword/index';

export const T0 = '2024-01-01T00:00:00.000Z';

export function doc(id: string, text: string, extra: Partial<KeywordDocument> = {}): KeywordDocument {
  return { id, text, created_at: T0, updated_at: T0, ...extra };
}

/** A small corpus whose statistics the tests compute by hand. */
export function smallCorpus(): KeywordDocument[] {
  return [
    doc('a', 'The quick brown fox jumps over the lazy dog', {
      meta: { title: 'Fox story', rating: 5, flag: true, author: { name: 'Ann Lee' }, category: 'Animals' },
      tags: ['animals', 'story'], published_at: '2024-01-05T10:00:00Z', created_at: '2024-01-01T00:00:00.000Z',
    }),
    doc('b', 'A quick brown dog', {
      meta: { title: 'Dog tale', rating: 7, category: 'Animals' },
      tags: ['animals'], published_at: '2024-02-05T10:00:00Z', created_at: '2024-01-02T00:00:00.000Z',
    }),
    doc('c', 'Lazy cats sleep all day. The dog does not.', {
      meta: { title: 'Cats', rating: 2, flag: false, category: 'Pets' },
      tags: ['cats'], created_at: '2024-01-03T00:00:00.000Z',
    }),
  ];
}

/** The documents by id, as storage would hand them to a search for its hits' fields and highlights. */
export function sourcesOf(docs: readonly KeywordDocument[]): (id: string) => KeywordDocument | undefined {
  const byId = new Map(docs.map((d) => [d.id, d]));
  return (id) => byId.get(id);
}

export function smallIndex(): KeywordIndex {
  const ix = new KeywordIndex();
  ix.build(smallCorpus());
  return ix;
}

/** BM25 as Elasticsearch computes it, written out for hand checks. */
export function bm25(tf: number, df: number, N: number, dl: number, avgdl: number, boost = 1): number {
  const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
  return boost * idf * 2.2 * tf / (tf + 1.2 * (1 - 0.75 + 0.75 * dl / avgdl));
}

export function ids(res: { hits: { hits: { id: string }[] } }): string[] {
  return res.hits.hits.map((h) => h.id);
}
