import { BusyError } from '../errors';

/** What a batched task module answers for each payload of its batch, in the batch's order. */
export type BatchOutcome<Result> = { value: Result } | { error: unknown };

interface Waiting {
  payload: unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Payloads of one task kind sent to the pool in batches: never more batches in flight than threads, and what arrives
 * while they are busy waits here and travels together, a share of it per thread. Piscina's dispatch and answer are
 * paid per message, on the event loop and in the thread (docs/decisions/throughput.md); an idle pool still gets each
 * payload at once, alone.
 */
export class TaskBatches {
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;

  constructor(
    private readonly send: (payloads: unknown[]) => Promise<Array<BatchOutcome<unknown>>>,
    private readonly lanes: number,
    private readonly maxWaiting: number,
  ) {}

  run(payload: unknown): Promise<unknown> {
    if (this.waiting.length >= this.maxWaiting) return Promise.reject(new BusyError());
    return new Promise((resolve, reject) => {
      this.waiting.push({ payload, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.lanes && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, Math.ceil(this.waiting.length / this.lanes));
      this.inFlight++;
      this.send(batch.map((w) => w.payload)).then(
        (outcomes) => batch.forEach((w, i) => settle(w, outcomes[i])),
        (error: unknown) => batch.forEach((w) => w.reject(error)),
      ).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }
}

function settle(waiting: Waiting, outcome: BatchOutcome<unknown> | undefined): void {
  if (!outcome) waiting.reject(new Error('a batched task answered fewer outcomes than payloads'));
  else if ('error' in outcome) waiting.reject(outcome.error);
  else waiting.resolve(outcome.value);
}
