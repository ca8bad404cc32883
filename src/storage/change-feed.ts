import { randomUUID } from 'node:crypto';
import type { Logger } from '../log';
import type { ChangeLog, ChangeLogEntry, LeaseTable } from './types';
import type { Change, ChangeBus, ChangedEntity } from './changes';

export interface ChangeFeedOptions {
  /** How often the log is read for other processes' changes. */
  pollMs: number;
  /** How long a missing sequence number is waited for before it is taken as never coming (a writer died). */
  gapWaitMs: number;
  /** How long entries stay in the log; a process that was away longer rebuilds from storage anyway. */
  retainMs: number;
}

export const DEFAULT_FEED_OPTIONS: ChangeFeedOptions = { pollMs: 200, gapWaitMs: 10_000, retainMs: 3_600_000 };

const READ_LIMIT = 5000;
const APPEND_BATCH = 1000;
const APPEND_ATTEMPTS = 5;
const PRUNE_EVERY_MS = 60_000;
const PRUNE_LEASE = 'change-log-prune';

interface Outgoing {
  entry: Omit<ChangeLogEntry, 'seq'>;
  done(): void;
}

/**
 * Keeps the indexes of several processes on one MongoDB database in step. Local changes are appended
 * to the shared change log (batched: concurrent writes share one append) before the write is
 * acknowledged; the log is read every `pollMs` and other processes' changes are told to the local
 * bus. Sequence numbers are allocated before the entries are stored, so an entry can appear after a
 * higher one: the feed remembers what it has seen above its watermark and waits for gaps to fill.
 */
export class ChangeFeed {
  readonly origin = randomUUID();
  private watermark = 0;
  private readonly seenAbove = new Set<number>();
  private gapSince: number | undefined;
  private outbox: Outgoing[] = [];
  private appending: Promise<void> | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private polling: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly log: ChangeLog,
    private readonly leases: LeaseTable,
    private readonly bus: ChangeBus,
    private readonly logger: Logger,
    private readonly options: ChangeFeedOptions = DEFAULT_FEED_OPTIONS,
  ) {}

  /**
   * Starts from the log's current end: call before the indexes read storage, so that every change
   * made while they are built is applied after (applying a change again is harmless).
   */
  async start(): Promise<void> {
    this.watermark = await this.log.head();
    this.bus.relayTo((change) => this.append(change));
    this.schedulePoll();
    this.pruneTimer = setInterval(() => {
      this.prune().catch((error: unknown) => this.logger.warn({ err: error }, 'pruning the change log failed'));
    }, PRUNE_EVERY_MS);
    this.pruneTimer.unref();
  }

  /** Sequence number up to which every other process's change has been told locally. */
  get position(): number {
    return this.watermark;
  }

  private append(change: Change): Promise<void> {
    return new Promise((resolve) => {
      const { tenant, entity, op, id } = change;
      this.outbox.push({ entry: { origin: this.origin, tenant, entity, op, id, at: Date.now() }, done: resolve });
      this.appending ??= this.drainOutbox().finally(() => {
        this.appending = undefined;
      });
    });
  }

  private async drainOutbox(): Promise<void> {
    while (this.outbox.length > 0) {
      const batch = this.outbox.splice(0, APPEND_BATCH);
      await this.appendWithRetries(batch.map((o) => o.entry));
      for (const o of batch) o.done();
    }
  }

  /**
   * The write itself is already stored, so a failing append must not fail the request: it is
   * retried, and if the database stays away the change is logged as missed (other processes see it
   * at their next start).
   */
  private async appendWithRetries(entries: Array<Omit<ChangeLogEntry, 'seq'>>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.log.append(entries);
        return;
      } catch (error) {
        if (attempt >= APPEND_ATTEMPTS || this.stopped) {
          this.logger.error({ err: error, changes: entries.length }, 'changes not relayed to other processes');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
      }
    }
  }

  private schedulePoll(): void {
    if (this.stopped) return;
    this.pollTimer = setTimeout(() => {
      this.polling = this.poll()
        .catch((error: unknown) => this.logger.warn({ err: error }, 'reading the change log failed'))
        .finally(() => this.schedulePoll());
    }, this.options.pollMs);
  }

  /** Reads what is new since the watermark and tells other processes' changes to the local bus. */
  async poll(): Promise<void> {
    for (;;) {
      const entries = await this.log.readAfter(this.watermark, READ_LIMIT);
      let fresh = 0;
      for (const entry of entries) {
        if (this.seenAbove.has(entry.seq)) continue;
        this.seenAbove.add(entry.seq);
        fresh++;
        if (entry.origin !== this.origin) {
          this.logger.debug({ seq: entry.seq, tenant: entry.tenant, entity: entry.entity, op: entry.op, id: entry.id, ageMs: Date.now() - entry.at }, 'change from another process');
          this.bus.receive({ tenant: entry.tenant, entity: entry.entity as ChangedEntity, op: entry.op as Change['op'], id: entry.id });
        }
      }
      this.advance();
      if (entries.length < READ_LIMIT || fresh === 0) return;
    }
  }

  private advance(): void {
    while (this.seenAbove.delete(this.watermark + 1)) this.watermark++;
    if (this.seenAbove.size === 0) {
      this.gapSince = undefined;
      return;
    }
    const now = Date.now();
    this.gapSince ??= now;
    if (now - this.gapSince < this.options.gapWaitMs) return;
    const next = Math.min(...this.seenAbove);
    this.logger.warn({ from: this.watermark + 1, to: next - 1 }, 'change log entries never arrived; skipping them');
    this.watermark = next - 1;
    this.gapSince = undefined;
    this.advance();
  }

  private async prune(): Promise<void> {
    if (!(await this.leases.acquire(PRUNE_LEASE, this.origin, PRUNE_EVERY_MS * 2))) return;
    const before = Date.now() - this.options.retainMs;
    const removed = await this.log.pruneBefore(before);
    const leases = await this.leases.pruneExpired(before);
    if (removed + leases > 0) this.logger.info({ removed, leases }, 'pruned the change log and expired leases');
  }

  /** Stops reading; changes still being appended are finished first. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.pollTimer);
    clearInterval(this.pruneTimer);
    await this.polling;
    await this.appending;
  }
}
