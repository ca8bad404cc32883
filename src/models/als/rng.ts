/** Seeded pseudo-random numbers (mulberry32): training and splits must be reproducible from a seed. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** In-place Fisher-Yates shuffle. */
  shuffle<T>(values: T[] | Int32Array): void {
    for (let i = values.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const tmp = values[i];
      values[i] = values[j];
      values[j] = tmp;
    }
  }
}
