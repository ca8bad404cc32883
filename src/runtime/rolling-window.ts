import { binOf, newBins, quantileOf } from './log-histogram';

/** One second of observations of one key. */
interface Slot {
  second: number;
  count: number;
  errors: number;
  bins: Uint32Array;
}

export interface WindowSummary {
  /** Observations in the window. */
  count: number;
  errors: number;
  /** Observations per second over the window (or over the time since the first one, if shorter). */
  rate: number;
  p50: number;
  p99: number;
}

export interface WindowSeries {
  /** Epoch seconds of each point, oldest first; the current (incomplete) second is left out. */
  seconds: number[];
  counts: number[];
  /** Seconds; 0 where nothing was observed. */
  p99: number[];
}

/**
 * Latencies of many keys (routes, task kinds) over the last `windowSeconds`, one log histogram per key and
 * second in a ring: recording is a few array writes, a summary merges at most `windowSeconds` histograms.
 */
export class RollingWindow {
  private readonly rings = new Map<string, Slot[]>();
  /** Every key together, for the plots. */
  private readonly all: Slot[];
  private readonly startedSecond: number;

  constructor(
    readonly windowSeconds = 60,
    private readonly clock: () => number = Date.now,
  ) {
    this.all = this.newRing();
    this.startedSecond = this.nowSecond();
  }

  private nowSecond(): number {
    return Math.floor(this.clock() / 1000);
  }

  private newRing(): Slot[] {
    return Array.from({ length: this.windowSeconds }, () => ({ second: -1, count: 0, errors: 0, bins: newBins() }));
  }

  private slotOf(ring: Slot[], second: number): Slot {
    const slot = ring[second % this.windowSeconds]!;
    if (slot.second !== second) {
      slot.second = second;
      slot.count = 0;
      slot.errors = 0;
      slot.bins.fill(0);
    }
    return slot;
  }

  record(key: string, seconds: number, failed = false): void {
    let ring = this.rings.get(key);
    if (!ring) {
      ring = this.newRing();
      this.rings.set(key, ring);
    }
    const second = this.nowSecond();
    const bin = binOf(seconds);
    for (const slot of [this.slotOf(ring, second), this.slotOf(this.all, second)]) {
      slot.count++;
      if (failed) slot.errors++;
      slot.bins[bin]!++;
    }
  }

  private summarise(ring: Slot[]): WindowSummary {
    const now = this.nowSecond();
    const merged = newBins();
    let count = 0;
    let errors = 0;
    for (const slot of ring) {
      if (slot.second < 0 || now - slot.second >= this.windowSeconds) continue;
      count += slot.count;
      errors += slot.errors;
      for (let i = 0; i < merged.length; i++) merged[i]! += slot.bins[i]!;
    }
    const span = Math.max(1, Math.min(this.windowSeconds, now - this.startedSecond + 1));
    return { count, errors, rate: count / span, p50: quantileOf(merged, 0.5), p99: quantileOf(merged, 0.99) };
  }

  /** Each key seen in the window, with its figures; keys with nothing in the window are left out. */
  summaries(): Array<{ key: string } & WindowSummary> {
    const out: Array<{ key: string } & WindowSummary> = [];
    for (const [key, ring] of this.rings) {
      const summary = this.summarise(ring);
      if (summary.count > 0) out.push({ key, ...summary });
    }
    return out;
  }

  total(): WindowSummary {
    return this.summarise(this.all);
  }

  /** Per-second counts and p99 of every key together over the window's completed seconds. */
  series(): WindowSeries {
    const now = this.nowSecond();
    const out: WindowSeries = { seconds: [], counts: [], p99: [] };
    for (let second = now - this.windowSeconds + 1; second < now; second++) {
      const slot = this.all[second % this.windowSeconds]!;
      const current = slot.second === second;
      out.seconds.push(second);
      out.counts.push(current ? slot.count : 0);
      out.p99.push(current ? quantileOf(slot.bins, 0.99) : 0);
    }
    return out;
  }
}
