import type { FilterableDocument } from './filter';

/**
 * What filters look at, per document of one key, kept in memory: tags (with tag → documents
 * postings) and publication time. Filters are evaluated synchronously while a vector scan runs,
 * so these must not be a storage read away.
 */
export class DocumentFacts {
  private readonly tagsOf = new Map<string, Set<string>>();
  private readonly docsOf = new Map<string, Set<string>>();
  private readonly publishedAt = new Map<string, string>();

  setPublished(id: string, publishedAt: string | null): void {
    if (publishedAt === null) this.publishedAt.delete(id);
    else this.publishedAt.set(id, publishedAt);
  }

  tag(id: string, tag: string): void {
    let tags = this.tagsOf.get(id);
    if (!tags) this.tagsOf.set(id, (tags = new Set()));
    tags.add(tag);
    let docs = this.docsOf.get(tag);
    if (!docs) this.docsOf.set(tag, (docs = new Set()));
    docs.add(id);
  }

  untag(id: string, tag: string): void {
    this.tagsOf.get(id)?.delete(tag);
    this.docsOf.get(tag)?.delete(id);
  }

  removeTag(tag: string): void {
    for (const id of this.docsOf.get(tag) ?? []) this.tagsOf.get(id)?.delete(tag);
    this.docsOf.delete(tag);
  }

  removeDocument(id: string): void {
    for (const tag of this.tagsOf.get(id) ?? []) this.docsOf.get(tag)?.delete(id);
    this.tagsOf.delete(id);
    this.publishedAt.delete(id);
  }

  clear(): void {
    this.tagsOf.clear();
    this.docsOf.clear();
    this.publishedAt.clear();
  }

  of(id: string): FilterableDocument {
    return { tags: [...(this.tagsOf.get(id) ?? [])], published_at: this.publishedAt.get(id) ?? null };
  }

  tags(id: string): string[] {
    return [...(this.tagsOf.get(id) ?? [])];
  }

  documentsTagged(tag: string): ReadonlySet<string> | undefined {
    return this.docsOf.get(tag);
  }
}
