/** A fixed set of numbered slots; acquire waits (FIFO) when all are taken. */
export class SlotPool {
  private readonly free: number[] = [];
  private readonly waiting: Array<(slot: number) => void> = [];

  constructor(count: number) {
    for (let i = count - 1; i >= 0; i--) this.free.push(i);
  }

  acquire(): Promise<number> {
    const slot = this.free.pop();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(slot: number): void {
    const next = this.waiting.shift();
    if (next) next(slot);
    else this.free.push(slot);
  }
}
