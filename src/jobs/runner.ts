import { randomUUID } from 'node:crypto';
import { BusyError } from '../errors';
import type { Logger } from '../log';
import { LEASE_TTL_MS, withLease } from './lease';
import type { Storage, TenantStore } from '../storage';

export const JOBS_NAMESPACE = 'jobs';
const BUSY_RETRY_MS = 1000;

export type JobStatus = 'queued' | 'running' | 'failed';

/** A unit of background work, persisted so that a restart reruns what was unfinished. */
export interface JobRecord {
  id: string;
  kind: string;
  tenant: string;
  payload: Record<string, unknown>;
  status: JobStatus;
  attempts: number;
  created_at: string;
  updated_at: string;
  error?: string;
}

export type JobHandler = (store: TenantStore, job: JobRecord) => Promise<void>;
/** Called once a job has failed `maxAttempts` times, to leave its subject in a final state. */
export type JobFailureHandler = (store: TenantStore, job: JobRecord, error: unknown) => Promise<void>;

interface Registration {
  run: JobHandler;
  failed?: JobFailureHandler;
}

export function isJobRecord(value: unknown): value is JobRecord {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.id === 'string' && typeof v.kind === 'string' && typeof v.tenant === 'string' && typeof v.status === 'string';
}

/**
 * Runs persisted jobs one at a time (each is heavy and uses a worker; running them in sequence keeps
 * the pool free for requests). A job's record is written before it is queued and removed when it
 * finishes, so whatever a crash interrupts is still there, `queued` or `running`, at the next start.
 */
export class JobRunner {
  private readonly handlers = new Map<string, Registration>();
  private chain: Promise<void> = Promise.resolve();
  private readonly queuedIds = new Set<string>();
  private closed = false;
  readonly maxAttempts = 3;

  constructor(private readonly storage: Storage, private readonly logger: Logger) {}

  register(kind: string, run: JobHandler, failed?: JobFailureHandler): void {
    this.handlers.set(kind, { run, failed });
  }

  /** Persists a new job, then queues it. */
  async submit(tenant: string, kind: string, payload: Record<string, unknown>): Promise<JobRecord> {
    const at = new Date().toISOString();
    const job: JobRecord = { id: randomUUID(), kind, tenant, payload, status: 'queued', attempts: 0, created_at: at, updated_at: at };
    await this.storage.tenant(tenant).values(JOBS_NAMESPACE).put(job.id, job);
    this.enqueue(job);
    return job;
  }

  /** Requeues every unfinished job of every tenant (at start-up); resolves to how many. */
  async resumeAll(): Promise<number> {
    const tenants = new Set((await this.storage.keys.list()).map((k) => k.tenant));
    let resumed = 0;
    for (const tenant of tenants) {
      const jobs = (await this.storage.tenant(tenant).values(JOBS_NAMESPACE).list()).map((e) => e.value).filter(isJobRecord);
      jobs.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
      for (const job of jobs) {
        if (job.status === 'failed') continue;
        this.logger.info({ tenant, job: job.id, kind: job.kind, status: job.status, attempts: job.attempts }, 'resuming unfinished job');
        this.enqueue(job);
        resumed++;
      }
    }
    return resumed;
  }

  private enqueue(job: JobRecord): void {
    if (this.queuedIds.has(job.id)) return;
    this.queuedIds.add(job.id);
    this.chain = this.chain.then(() => this.execute(job)).catch((error: unknown) => {
      this.logger.error({ err: error, job: job.id }, 'job bookkeeping failed');
    }).finally(() => {
      this.queuedIds.delete(job.id);
    });
  }

  private async execute(queued: JobRecord): Promise<void> {
    if (this.closed) return;
    const store = this.storage.tenant(queued.tenant);
    const registration = this.handlers.get(queued.kind);
    if (!registration) {
      this.logger.error({ job: queued.id, kind: queued.kind }, 'no handler for job kind; left for a later start');
      return;
    }
    // With several processes on one database each resumes the same unfinished jobs: one runs each.
    const outcome = await withLease(this.storage.leases, `job:${queued.id}`, () => this.attempt(queued, store, registration));
    if (!outcome.ran) {
      // The holder may have died; its lease lapses and the job, if still unfinished, is run here.
      this.logger.info({ job: queued.id, kind: queued.kind }, 'job is running in another process');
      setTimeout(() => this.enqueue(queued), LEASE_TTL_MS).unref();
    }
  }

  private async attempt(queued: JobRecord, store: TenantStore, registration: Registration): Promise<void> {
    const table = store.values(JOBS_NAMESPACE);
    for (;;) {
      const current = await table.get(queued.id);
      // Removed meanwhile (e.g. the key's data was deleted): nothing to do.
      if (!isJobRecord(current)) return;
      const job: JobRecord = { ...current, status: 'running', attempts: current.attempts + 1, updated_at: new Date().toISOString() };
      await table.put(job.id, job);
      try {
        await registration.run(store, job);
        await table.remove(job.id);
        return;
      } catch (error) {
        // A stop during a job is not its failure: the record stays `running` and the next start reruns it.
        if (this.closed) return;
        // The worker pool's queue was full (back-pressure): not the job's fault; retry shortly, same attempt.
        if (error instanceof BusyError) {
          await table.put(job.id, { ...job, attempts: job.attempts - 1 });
          await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
          continue;
        }
        this.logger.warn({ err: error, job: job.id, attempt: job.attempts }, 'job failed');
        if (job.attempts >= this.maxAttempts) {
          await table.put(job.id, { ...job, status: 'failed', error: String(error), updated_at: new Date().toISOString() });
          await registration.failed?.(store, job, error);
          return;
        }
      }
    }
  }

  /** Resolves when every job queued so far has finished (tests, shutdown). */
  idle(): Promise<void> {
    return this.chain;
  }

  /** Takes no more jobs; one in progress ends with the pool and is rerun at the next start. */
  close(): void {
    this.closed = true;
  }
}
