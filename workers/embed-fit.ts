import { fitModel } from '../src/embedding/fit';
import type { FitTask } from '../src/embedding/protocol';
import { serializeModel, type SerializedModel } from '../src/embedding/serialize';

/** Corpus texts → serialised model (SharedArrayBuffer-backed bytes: returning it shares, never copies). */
export default function embedFit(task: FitTask): SerializedModel {
  return serializeModel(fitModel(task.texts, task.options));
}
