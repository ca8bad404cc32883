import { clusterMeans, kmeans, nearestCentroid } from './kmeans';
import { renderWordCloud } from './word-cloud';
import { clusterWords, documentWords, type WeightedWord } from './words';

/** Train: k-means over the document vectors, then each cluster's characteristic words from the texts. */
export interface TrainTask {
  op: 'train';
  /** rows × dim, L2-normalised document embeddings */
  vectors: Float32Array;
  rows: number;
  dim: number;
  k: number;
  seed: number;
  /** Texts of the rows, same order. */
  texts: string[];
}

export interface TrainResult {
  k: number;
  assignments: Int32Array;
  centroids: Float32Array;
  iterations: number;
  converged: boolean;
  words: WeightedWord[][];
  /** SVG word cloud of each cluster (words never change after training, so it is drawn once). */
  clouds: string[];
}

/**
 * Assign: documents the model has not seen go to the nearest cluster, whose centre is the mean of its
 * members' current vectors (so assignment stays right after the embedding model is refitted).
 */
export interface AssignTask {
  op: 'assign';
  members: Float32Array;
  memberClusters: Int32Array;
  k: number;
  dim: number;
  unseen: Float32Array;
}

export type ClusterTask = TrainTask | AssignTask;

/** k-means++ seedings per training; the lowest-inertia run is kept. */
export const RESTARTS = 4;

export function train(task: TrainTask): TrainResult {
  const result = kmeans({ data: task.vectors, rows: task.rows, dim: task.dim }, { k: task.k, seed: task.seed, maxIterations: 100, restarts: RESTARTS });
  const words = clusterWords(task.texts.map(documentWords), result.assignments, result.k);
  const clouds = words.map((list, c) => renderWordCloud(list, `Cluster ${c}`));
  return { k: result.k, assignments: result.assignments, centroids: result.centroids, iterations: result.iterations, converged: result.converged, words, clouds };
}

export function assign(task: AssignTask): Int32Array {
  const rows = task.memberClusters.length;
  const centroids = clusterMeans({ data: task.members, rows, dim: task.dim }, task.memberClusters, task.k);
  const count = task.dim === 0 ? 0 : task.unseen.length / task.dim;
  const out = new Int32Array(count);
  for (let i = 0; i < count; i++) out[i] = nearestCentroid(task.unseen, i, centroids, task.k, task.dim).cluster;
  return out;
}
