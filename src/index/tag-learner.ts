import { BusyError } from '../errors';
import { analysedText, type ManyTermCounts, type TermCountsManyTask } from '../text/term-counts-task';
import type { TagModel } from './tag-model';

/** A document as the tag model is to hold it: no text (deleted) or no tags takes it out. */
export interface TaggedText {
  id: string;
  text: string | undefined;
  tags: readonly string[];
}

/** Analyses texts in a pool thread (`workers/term-counts-many.ts`). */
export type AnalyseTexts = (task: TermCountsManyTask) => Promise<ManyTermCounts>;

/**
 * Texts per pool task. 64 20 Newsgroups posts take a thread ~31 ms to analyse and the event loop ~12 ms to learn
 * (bench/RESULTS.md, "Tag model off the event loop", on the loaded machine): a load's batch is cut into several
 * tasks so that every thread takes some and other requests get the event loop between two of them.
 */
const TEXTS_PER_TASK = 64;
/** A full pool queue delays a text's analysis, never drops it (the model would miss the document until its next write). */
const BUSY_RETRY_MS = 20;

interface Ticketed {
  document: TaggedText;
  ticket: number;
}

const analysable = (d: TaggedText): d is TaggedText & { text: string } => d.text !== undefined && d.tags.length > 0;

/**
 * Keeps a key's tag model in step with its documents, the texts analysed off the event loop: the event loop only
 * applies the counts a pool thread returns (`TagModel.learn`, a few vocabulary look-ups and sums a term).
 *
 * Each document's latest sync holds a ticket: an analysis that returns after a later sync, a removal or a clear
 * of the same document is dropped (no stale entry comes back). A batch is applied in its order, as if each
 * document were analysed and learnt one after another; the hint a text was analysed with is checked when it is
 * learnt, and the text analysed again when the model's hint moved meanwhile.
 */
export class TagLearner {
  private sequence = 0;
  /** Documents with a sync under way: the ticket of the latest. */
  private readonly latest = new Map<string, number>();
  /** Syncs under way. */
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly model: TagModel, private readonly analyse: AnalyseTexts) {}

  /** Makes the model hold each document as it is now; resolves once every one of them is learnt (or superseded). */
  sync(documents: readonly TaggedText[]): Promise<void> {
    const run = this.learnDocuments(documents);
    this.running.add(run);
    const done = (): void => {
      this.running.delete(run);
    };
    run.then(done, done);
    return run;
  }

  /** Resolves once every sync asked so far is over (learnt, superseded or failed). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private async learnDocuments(documents: readonly TaggedText[]): Promise<void> {
    const items = documents.map((document) => ({ document, ticket: this.ticket(document.id) }));
    const chunks: Ticketed[][] = [];
    for (let i = 0; i < items.length; i += TEXTS_PER_TASK) chunks.push(items.slice(i, i + TEXTS_PER_TASK));
    try {
      let next = 0;
      // An empty model has no hint yet: the first chunk tells it, so that the others are not analysed twice.
      if (chunks.length > 1 && this.model.languageCounts().length === 0) await this.learn(chunks[next++]!, await this.analysisOf(chunks[0]!));
      // The other chunks' analyses are asked at once (the threads share them), each learnt in order.
      const analyses = chunks.slice(next).map((chunk) => this.analysisOf(chunk));
      for (const analysis of analyses) analysis.catch(() => undefined);
      for (const [c, analysis] of analyses.entries()) {
        if (next + c > 0) await new Promise((resolve) => setImmediate(resolve));
        await this.learn(chunks[next + c]!, await analysis);
      }
    } finally {
      // Learnt items left already; what failed keeps its previous entry (the document's next write tries again).
      for (const item of items) if (this.isCurrent(item)) this.latest.delete(item.document.id);
    }
  }

  /** Takes documents out of the model now (an analysis under way for one of them is dropped). */
  remove(ids: Iterable<string>): void {
    for (const id of ids) {
      this.latest.delete(id);
      this.model.removeDocument(id);
    }
  }

  /** Empties the model now (every analysis under way is dropped). */
  clear(): void {
    this.latest.clear();
    this.model.clear();
  }

  private ticket(id: string): number {
    const ticket = ++this.sequence;
    this.latest.set(id, ticket);
    return ticket;
  }

  private isCurrent(item: Ticketed): boolean {
    return this.latest.get(item.document.id) === item.ticket;
  }

  /**
   * The analysis of the items' texts, from the languages the model learnt so far (without the first document's
   * entry: the first text's hint is the one `learn` checks, so each new analysis lets at least one item be learnt).
   */
  private async analysisOf(items: readonly Ticketed[]): Promise<ManyTermCounts | undefined> {
    const documents = items.map((item) => item.document).filter(analysable);
    if (documents.length === 0) return undefined;
    const texts = documents.map((d) => d.text);
    for (;;) {
      try {
        return await this.analyse({ texts, languages: this.model.languageCounts(documents[0]!.id) });
      } catch (error) {
        if (!(error instanceof BusyError)) throw error;
        await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
      }
    }
  }

  /** Learns the items in order; from the first whose hint no longer holds, analyses the rest again. */
  private async learn(items: readonly Ticketed[], analysis: ManyTermCounts | undefined): Promise<void> {
    let rest = items;
    let analysed = analysis;
    while (rest.length > 0) {
      const stale = this.learnUntilStale(rest, analysed);
      rest = stale.filter((item) => this.isCurrent(item));
      if (rest.length > 0) analysed = await this.analysisOf(rest);
    }
  }

  /** Learns items in order; the items from the first analysed with a hint the model no longer gives (none: all learnt). */
  private learnUntilStale(items: readonly Ticketed[], analysis: ManyTermCounts | undefined): readonly Ticketed[] {
    let text = 0;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      const { document } = item;
      if (!analysable(document)) {
        if (this.isCurrent(item)) this.remove([document.id]);
        continue;
      }
      const at = text++;
      if (!this.isCurrent(item)) continue;
      if (!this.model.learn(document.id, analysedText(analysis!, at), document.tags)) return items.slice(i);
      this.latest.delete(document.id);
    }
    return [];
  }
}
