import type { LeaseTable } from '../storage/types';

/** What node-cron asks before a `distributed` task's run: may this process take this time slot? */
export interface RunCoordinator {
  shouldRun(key: string, ttlMs: number): Promise<boolean>;
}

/** A slot's lease outlives any clock skew between processes; expired ones are pruned with the change log. */
const SLOT_LEASE_MS = 10 * 60_000;

/**
 * Elects one process per scheduled run through the shared lease table: node-cron names each run
 * `<task name>:<slot time>`, the first process to take that lease runs it, the others skip it.
 */
export function leaseCoordinator(leases: LeaseTable, holder: string): RunCoordinator {
  return {
    shouldRun: (key, ttlMs) => leases.acquire(`cron:${key}`, holder, Math.max(ttlMs, SLOT_LEASE_MS)),
  };
}
