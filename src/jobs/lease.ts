import { randomUUID } from 'node:crypto';
import type { LeaseTable } from '../storage/types';

/** Long enough to ride out a pause; short enough that a crashed holder's work is taken over soon. */
export const LEASE_TTL_MS = 15_000;
const RENEW_MS = LEASE_TTL_MS / 3;

export type LeaseOutcome<T> = { ran: true; value: T } | { ran: false };

/**
 * Runs `task` only while holding the lease `name`, renewing it until the task ends; when another
 * process holds it, the task does not run. Work that must happen once across processes (training,
 * a persisted job) goes through here.
 */
export async function withLease<T>(leases: LeaseTable, name: string, task: () => Promise<T>): Promise<LeaseOutcome<T>> {
  const holder = randomUUID();
  if (!(await leases.acquire(name, holder, LEASE_TTL_MS))) return { ran: false };
  const renewal = setInterval(() => {
    leases.acquire(name, holder, LEASE_TTL_MS).catch(() => undefined);
  }, RENEW_MS);
  try {
    return { ran: true, value: await task() };
  } finally {
    clearInterval(renewal);
    await leases.release(name, holder).catch(() => undefined);
  }
}

/** Like withLease, but waits (checking every `pollMs`) for the current holder to finish or lapse. */
export async function whenLeased<T>(leases: LeaseTable, name: string, task: () => Promise<T>, onWait: () => void, pollMs = 1000): Promise<T> {
  let told = false;
  for (;;) {
    const outcome = await withLease(leases, name, task);
    if (outcome.ran) return outcome.value;
    if (!told) onWait();
    told = true;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
