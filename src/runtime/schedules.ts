import type { ScheduledTask } from 'node-cron';

export interface ScheduleSpec {
  /** What runs, e.g. 'content refit'. */
  name: string;
  /** The key it runs for (tenant id), when it belongs to one. */
  tenant?: string;
  expression: string;
}

export interface RunRecord {
  startedAt: string;
  finishedAt?: string;
  seconds?: number;
  outcome: 'running' | 'succeeded' | 'failed';
  error?: string;
  /** The last line the run reported (e.g. the trainer's iteration line). */
  note?: string;
  /** 0..1, from lines like `iteration 3/15` (the hybrid trainer's). */
  progress?: number;
}

export interface ScheduleView extends ScheduleSpec {
  id: string;
  nextRun: string | null;
  runs: number;
  /** Runs another process took (distributed schedules on a shared database). */
  skipped: number;
  running?: RunRecord;
  lastRun?: RunRecord;
}

interface Entry {
  spec: ScheduleSpec;
  task: ScheduledTask;
  runs: number;
  skipped: number;
  running?: RunRecord;
  lastRun?: RunRecord;
}

const ITERATION = /iteration (\d+)\/(\d+)/;

/**
 * The process's cron schedules (node-cron 4 tasks) as the dashboard shows them: next run from the task,
 * and the runs recorded here (node-cron cannot know when fire-and-forget work ends or how it went):
 * the run in progress with its progress, and the last finished one.
 */
export class ScheduleBoard {
  private readonly entries = new Map<string, Entry>();

  /** Shows a scheduled task under `id` (e.g. 'refit', 'train:<tenant>'). */
  add(id: string, task: ScheduledTask, spec: ScheduleSpec): void {
    const entry: Entry = { spec, task, runs: 0, skipped: 0 };
    task.on('execution:skipped', () => {
      entry.skipped++;
    });
    this.entries.set(id, entry);
  }

  /** Records one run of schedule `id`: it starts now and ends when `work` settles; `work` is returned as is. */
  track<T>(id: string, work: Promise<T>): Promise<T> {
    const entry = this.entries.get(id);
    if (!entry) return work;
    const started = Date.now();
    const run: RunRecord = { startedAt: new Date(started).toISOString(), outcome: 'running' };
    entry.running = run;
    entry.runs++;
    const finish = (error?: unknown) => {
      const finished = Date.now();
      entry.lastRun = {
        ...run, finishedAt: new Date(finished).toISOString(), seconds: (finished - started) / 1000,
        outcome: error === undefined ? 'succeeded' : 'failed',
        ...(error === undefined ? {} : { error: error instanceof Error ? error.message : String(error) }),
      };
      if (entry.running === run) entry.running = undefined;
    };
    work.then(() => finish(), (error: unknown) => finish(error ?? 'failed'));
    return work;
  }

  /** A progress line of the run in progress of schedule `id`. */
  note(id: string, line: string): void {
    const run = this.entries.get(id)?.running;
    if (!run) return;
    run.note = line;
    const m = ITERATION.exec(line);
    if (m) run.progress = Number(m[1]) / Number(m[2]);
  }

  list(): ScheduleView[] {
    return [...this.entries].map(([id, { spec, task, runs, skipped, running, lastRun }]) => {
      const status = task.getStatus();
      return {
        id, ...spec,
        nextRun: status === 'stopped' || status === 'destroyed' ? null : task.getNextRun()?.toISOString() ?? null,
        runs, skipped,
        ...(running ? { running: { ...running } } : {}),
        ...(lastRun ? { lastRun } : {}),
      };
    });
  }
}
