import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from '../log';
import { DEFAULT_HYBRID_PARAMS } from '../models/hybrid/train';
import type { ScheduleBoard } from '../runtime/schedules';
import type { WorkerPool } from '../pool';
import type { Storage } from '../storage';
import type { RunCoordinator } from './cron-coordinator';
import { withLease } from './lease';
import { trainingLease, trainTenantModel } from './train-hybrid';

export interface TrainScheduleContext {
  storage: Storage;
  pool: WorkerPool;
  logger: Logger;
  schedules: ScheduleBoard;
  /** On a shared database: elects one process per scheduled run. */
  coordinator?: RunCoordinator;
}

/**
 * KINDRED_TRAIN_CRON: trains a key's hybrid model on its schedule. A training never overlaps another of
 * the same key (`kindred train` included), and with a coordinator each run happens in one process.
 */
export function scheduleTraining(tenant: string, expression: string, ctx: TrainScheduleContext): ScheduledTask {
  const { storage, pool, logger, schedules, coordinator } = ctx;
  const board = `train:${tenant}`;
  const say = (line: string) => {
    schedules.note(board, line);
    logger.info({ tenant }, line);
  };
  const task = cron.schedule(expression, (context) => {
    const slot = context.date.toISOString();
    logger.info({ tenant, slot }, 'scheduled training');
    const training = withLease(storage.leases, trainingLease(tenant), () => trainTenantModel(storage.tenant(tenant), pool, DEFAULT_HYBRID_PARAMS, say))
      .then((outcome) => {
        if (outcome.ran) return;
        logger.info({ tenant, slot }, 'scheduled training skipped: another process is training this key');
        schedules.note(board, 'skipped: another process is training this key');
      });
    return schedules.track(board, training).catch((error: unknown) => logger.error({ err: error, tenant }, 'scheduled training failed'));
  }, { noOverlap: true, name: board, ...(coordinator ? { distributed: true, runCoordinator: coordinator } : {}) });
  task.on('execution:skipped', (context) => logger.info({ tenant, slot: context.date.toISOString() }, 'scheduled training taken by another process'));
  schedules.add(board, task, { name: 'hybrid training', tenant, expression });
  return task;
}
