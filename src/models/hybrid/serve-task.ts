import { invertSpdInPlace } from '../als/linalg';
import { easeFromInverse } from './item-item';
import { rank, type RankQuery, type RankResult, type ServingArrays } from './scoring';

/** Worker payloads for the hybrid model: EASE inversion at training time, ranking at serving time. */
export interface EaseTask {
  op: 'ease';
  /** X^T X + lambda I, n x n float64; consumed (inverted in place). */
  gram: Float64Array;
  n: number;
}

export interface RankTask {
  op: 'rank';
  arrays: ServingArrays;
  query: RankQuery;
}

export type AlsServeTask = EaseTask | RankTask;

export function runAlsServeTask(task: AlsServeTask): Float32Array | RankResult {
  switch (task.op) {
    case 'ease':
      invertSpdInPlace(task.gram, task.n);
      return easeFromInverse(task.gram, task.n);
    case 'rank':
      return rank(task.arrays, task.query);
  }
}
