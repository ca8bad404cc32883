import { runAlsTrainTask, type AlsTrainTask } from '../src/models/als/executor';
import { runAlsServeTask, type AlsServeTask } from '../src/models/hybrid/serve-task';

/** ALS training chunks (gram / CG solve / loss) and hybrid scoring over SharedArrayBuffer-backed arrays. */
export default function als(task: AlsTrainTask | AlsServeTask): unknown {
  if (task.op === 'gram' || task.op === 'solve' || task.op === 'loss') return runAlsTrainTask(task);
  return runAlsServeTask(task);
}
