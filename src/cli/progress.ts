/** Where progress goes: a terminal gets a redrawn one-line bar, anything else plain lines every few seconds. */
export interface ProgressSink {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  label: string;
  /** What is counted, plural ("records", "documents"). */
  unit?: string;
  /** Total amount of work in the same measure as `done` (bytes of the input file) for the fraction and ETA. */
  total?: number;
  sink?: ProgressSink;
  /** Plain-line interval (default 5 s); the bar redraws at most every 200 ms. */
  intervalMs?: number;
}

function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  if (seconds < 60) return `${Math.round(seconds)}s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** Count, rate/s and (with a total) share done and ETA, drawn as a bar on a terminal and as lines elsewhere. */
export class Progress {
  private readonly started = Date.now();
  private lastDraw = Date.now();
  private count = 0;
  private done = 0;
  private readonly sink: ProgressSink;
  private readonly tty: boolean;
  private readonly interval: number;

  constructor(private readonly options: ProgressOptions) {
    this.sink = options.sink ?? process.stderr;
    this.tty = this.sink.isTTY === true;
    this.interval = this.tty ? 200 : options.intervalMs ?? 5000;
  }

  get elapsedSeconds(): number {
    return (Date.now() - this.started) / 1000;
  }

  /** `count` items processed so far, `done` of `total` (bytes) consumed. */
  update(count: number, done = count): void {
    this.count = count;
    this.done = done;
    const now = Date.now();
    if (now - this.lastDraw < this.interval) return;
    this.lastDraw = now;
    this.draw();
  }

  private line(): string {
    const seconds = Math.max(1e-3, this.elapsedSeconds);
    const rate = this.count / seconds;
    const unit = this.options.unit ?? 'records';
    const parts = [`${this.options.label}: ${this.count} ${unit}`, `${rate.toFixed(rate < 10 ? 1 : 0)}/s`];
    const total = this.options.total;
    if (total && total > 0) {
      const fraction = Math.min(1, this.done / total);
      parts.push(`${(fraction * 100).toFixed(1)}%`);
      parts.push(`ETA ${fraction > 0 ? duration((seconds / fraction) * (1 - fraction)) : '?'}`);
    }
    return parts.join('  ');
  }

  private draw(): void {
    const text = this.line();
    if (!this.tty) {
      this.sink.write(`${text}\n`);
      return;
    }
    const total = this.options.total;
    const width = Math.max(10, Math.min(40, (this.sink.columns ?? 80) - text.length - 4));
    const filled = total ? Math.round(width * Math.min(1, this.done / total)) : 0;
    const bar = total ? `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ` : '';
    this.sink.write(`\r${bar}${text}\x1b[K`);
  }

  /** Clears the bar (on a terminal) so the caller's summary line starts clean. */
  finish(): void {
    if (this.tty) {
      this.draw();
      this.sink.write('\n');
    }
  }
}
