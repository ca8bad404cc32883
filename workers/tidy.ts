import v8 from 'node:v8';
import vm from 'node:vm';
import { ModelCache } from '../src/embedding/model-cache';

let collect: (() => void) | undefined;

function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  // Without --expose-gc: the flag set now exposes `gc` to contexts made after it.
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

/**
 * Once indexing stops (`WorkerPool.tidy`): this pool thread drops its decoded models (replaced generations among
 * them) and runs a full collection. An idle thread keeps the garbage of its last tasks (strings, arrays, the
 * malloc'd buffers behind them) until V8's memory reducer comes round, 30–45 s later or not before its next
 * task. Its thread id: which threads were reached.
 */
export default function tidy(): number {
  ModelCache.clearAll();
  collect ??= collector();
  collect();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('node:worker_threads') as typeof import('node:worker_threads')).threadId;
}
