import assert from 'node:assert/strict';
import { clusterMeans, kmeans, kmeansPlusPlus, lloyd, nearestCentroid, type Matrix } from '../../../src/clustering/kmeans';
import { seededRandom } from '../../../src/random';

/** `perBlob` points around each of the given centres, Gaussian-ish noise of the given spread. */
function blobs(centres: number[][], perBlob: number, spread: number, seed = 1): { points: Matrix; labels: number[] } {
  const random = seededRandom(seed);
  const dim = centres[0]!.length;
  const data = new Float32Array(centres.length * perBlob * dim);
  const labels: number[] = [];
  let row = 0;
  centres.forEach((centre, label) => {
    for (let p = 0; p < perBlob; p++, row++) {
      labels.push(label);
      for (let j = 0; j < dim; j++) data[row * dim + j] = centre[j]! + (random() + random() + random() - 1.5) * spread;
    }
  });
  return { points: { data, rows: row, dim }, labels };
}

const CENTRES = [[0, 0, 0], [10, 0, 0], [0, 10, 0], [0, 0, 10]];

describe('clustering/kmeans', () => {
  it('seeds k-means++ with one point from each well-separated blob', () => {
    // centres 100 apart: another blob's pull outweighs a blob's own by ~10^4, so a shared blob is a bug
    const { points, labels } = blobs(CENTRES.map((c) => c.map((x) => x * 10)), 50, 1);
    for (const seed of [1, 2, 3, 4, 5]) {
      const centroids = kmeansPlusPlus(points, 4, seededRandom(seed));
      const blobsHit = new Set<number>();
      for (let c = 0; c < 4; c++) {
        // the seed is a data row: find which blob it came from
        let row = -1;
        for (let i = 0; i < points.rows && row < 0; i++) {
          if ([0, 1, 2].every((j) => points.data[i * 3 + j] === centroids[c * 3 + j])) row = i;
        }
        assert.ok(row >= 0, 'a seed is not a data point');
        blobsHit.add(labels[row]!);
      }
      assert.equal(blobsHit.size, 4, `seed ${seed} put two centres in one blob`);
    }
  });

  it('recovers separated blobs exactly and converges', () => {
    const { points, labels } = blobs(CENTRES, 40, 2);
    const result = kmeans(points, { k: 4, seed: 7 });
    assert.ok(result.converged);
    assert.ok(result.iterations < 20, `took ${result.iterations} iterations`);
    const clusterOfLabel = new Map<number, number>();
    labels.forEach((label, i) => {
      const c = result.assignments[i]!;
      if (!clusterOfLabel.has(label)) clusterOfLabel.set(label, c);
      assert.equal(c, clusterOfLabel.get(label));
    });
    assert.equal(new Set(clusterOfLabel.values()).size, 4);
    // each centroid is the mean of its points
    const means = clusterMeans(points, result.assignments, 4);
    for (let j = 0; j < means.length; j++) assert.ok(Math.abs(means[j]! - result.centroids[j]!) < 1e-4);
  });

  it('never increases inertia over Lloyd iterations', () => {
    const { points } = blobs([[0, 0], [3, 0], [0, 3], [3, 3], [1.5, 1.5]], 60, 3, 9);
    let previous = Infinity;
    for (let iterations = 1; iterations <= 8; iterations++) {
      const result = lloyd(points, kmeansPlusPlus(points, 5, seededRandom(3)), 5, iterations);
      assert.ok(result.inertia <= previous + 1e-6, `inertia rose at ${iterations}: ${result.inertia} > ${previous}`);
      previous = result.inertia;
    }
  });

  it('is deterministic for a seed and varies with it', () => {
    const { points } = blobs([[0, 0], [4, 0], [0, 4], [4, 4], [2, 2]], 60, 4, 5);
    const a = kmeans(points, { k: 6, seed: 11 });
    const b = kmeans(points, { k: 6, seed: 11 });
    assert.deepEqual(a.assignments, b.assignments);
    assert.deepEqual(a.centroids, b.centroids);
    const others = [12, 13, 14].map((seed) => kmeans(points, { k: 6, seed }).centroids);
    assert.ok(others.some((c) => !c.every((x, i) => x === a.centroids[i])), 'every seed gave the same centroids');
  });

  it('keeps the best of several restarts', () => {
    const { points } = blobs([[0, 0], [4, 0], [0, 4], [4, 4], [2, 2]], 60, 4, 5);
    const single = [21, 22, 23].map((seed) => kmeans(points, { k: 5, seed }).inertia);
    const restarted = kmeans(points, { k: 5, seed: 21, restarts: 6 }).inertia;
    assert.ok(restarted <= single[0]! + 1e-6);
  });

  it('clamps k to the number of points and handles an empty input', () => {
    const { points } = blobs([[0, 0], [5, 5]], 2, 0.5);
    const result = kmeans(points, { k: 10 });
    assert.equal(result.k, 4);
    assert.equal(new Set(result.assignments).size, 4);
    assert.equal(kmeans({ data: new Float32Array(0), rows: 0, dim: 3 }, { k: 3 }).k, 0);
  });

  it('finds the nearest centroid', () => {
    const centroids = Float32Array.from([0, 0, 10, 10, -5, 5]);
    const points = Float32Array.from([9, 8, -4, 4, 1, -1]);
    assert.deepEqual([0, 1, 2].map((row) => nearestCentroid(points, row, centroids, 3, 2).cluster), [1, 2, 0]);
  });
});
