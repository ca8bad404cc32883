import { assign, train, type ClusterTask, type TrainResult } from '../src/clustering/task';

/** Cluster-model work: training (k-means++ and Lloyd, then cluster words) and assigning later documents. */
export default function kmeansTask(task: ClusterTask): TrainResult | Int32Array {
  return task.op === 'train' ? train(task) : assign(task);
}
