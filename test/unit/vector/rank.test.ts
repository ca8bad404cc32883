import assert from 'node:assert/strict';
import { rankDescending } from '../../../src/vector/rank';
import { seededRandom } from '../../../src/random';

/** The order a comparator sort gives: score descending, ties by key ascending. */
function reference(scores: Float32Array, key: (i: number) => string): number[] {
  return Array.from(scores.keys()).sort((a, b) => scores[b]! - scores[a]! || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a - b));
}

describe('rankDescending', () => {
  it('orders by score, best first, as a comparator sort does, over negative, zero and repeated scores', () => {
    const random = seededRandom(7);
    for (const n of [0, 1, 2, 17, 1600]) {
      // Scores from a small set: many ties; both signs and both zeros.
      const levels = [-1, -0.5, -0, 0, 1e-30, 0.25, 0.5, 0.999, 1, -1e-30];
      const scores = Float32Array.from({ length: n }, () => levels[Math.floor(random() * levels.length)]!);
      const keys = Array.from({ length: n }, (_, i) => `d${(i * 7919) % 1009}`);
      assert.deepEqual(Array.from(rankDescending(scores, (i) => keys[i]!)), reference(scores, (i) => keys[i]!));
    }
  });

  it('puts distinct scores in order whatever their keys', () => {
    const random = seededRandom(11);
    const scores = Float32Array.from({ length: 1000 }, () => random() * 2 - 1);
    const order = rankDescending(scores, () => 'same');
    for (let i = 1; i < order.length; i++) assert.ok(scores[order[i - 1]!]! >= scores[order[i]!]!);
    assert.equal(new Set(order).size, 1000);
  });
});
