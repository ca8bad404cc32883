import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** A thread whose event loop's busy time can be read: the main thread, a pool thread, the keyword thread. */
export interface WatchedThread {
  name: string;
  utilization(previous?: EventLoopUtilization): EventLoopUtilization;
}

/** The process's main thread. */
export const MAIN_THREAD: WatchedThread = { name: 'main', utilization: (previous) => performance.eventLoopUtilization(previous) };

/**
 * Each thread's busy share between two readings (event-loop utilisation: time running tasks, callbacks and
 * garbage collection over time elapsed), so an operator sees which thread saturates first.
 */
export class ThreadBusy {
  private readonly last = new Map<string, EventLoopUtilization>();

  constructor(private readonly threads: () => WatchedThread[]) {}

  /** The names of the threads watched now. */
  names(): string[] {
    return this.threads().map((t) => t.name);
  }

  /** `name`'s busy share (0..1) since its previous reading (0 at the first, or when it is gone). */
  share(name: string): number {
    const thread = this.threads().find((t) => t.name === name);
    if (!thread) return 0;
    const now = thread.utilization();
    const previous = this.last.get(name);
    this.last.set(name, now);
    if (!previous || now.idle + now.active <= previous.idle + previous.active) return 0;
    return Math.min(1, Math.max(0, thread.utilization(previous).utilization));
  }
}
