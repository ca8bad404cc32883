import assert from 'node:assert/strict';
import { addRowsInto, dotsInto } from '../../../src/models/hybrid/scoring-kernel';
import { seededRandom } from '../../../src/random';

/** The loop the native dot products replaced: one sum per candidate in doubles, in the order of the dimensions. */
function dotsInJs(out: Float64Array, x: Float64Array, rows: Float32Array, dim: number, cand: Int32Array, count: number): void {
  for (let q = 0; q < count; q++) {
    let d = 0;
    for (let a = 0; a < dim; a++) d += x[a]! * rows[cand[q]! * dim + a]!;
    out[q] = d;
  }
}

describe('models/hybrid/scoring-kernel', () => {
  const random = seededRandom(31);
  const dim = 37;
  const items = 500;
  // Rows in a shared buffer, as a server's hybrid arrays are.
  const rows = new Float32Array(new SharedArrayBuffer(items * dim * 4));
  for (let i = 0; i < rows.length; i++) rows[i] = random() - 0.5;
  const x = Float64Array.from({ length: dim }, () => random() * 3 - 1);
  const cand = Int32Array.from({ length: 203 }, () => Math.floor(random() * items));

  it('gives the JavaScript loop\'s sums to the bit, four candidates at a time and the rest one by one', () => {
    const native = new Float64Array(cand.length);
    const js = new Float64Array(cand.length);
    dotsInto(native, x, rows, dim, cand, cand.length);
    dotsInJs(js, x, rows, dim, cand, cand.length);
    assert.deepEqual([...native], [...js]);
    assert.ok(native.some((v) => v !== 0));
  });

  it('refuses a candidate whose row lies outside the rows', () => {
    const out = new Float64Array(2);
    assert.throws(() => dotsInto(out, x, rows, dim, Int32Array.from([0, items]), 2), TypeError);
    assert.throws(() => dotsInto(out, x, rows, dim, Int32Array.from([-1, 0]), 2), TypeError);
  });

  it('adds the seeds\' rows over the candidates as the JavaScript loop did, skipping seeds and candidates past the width', () => {
    const width = 60;
    const matrix = new Float32Array(width * width).map(() => random() - 0.5);
    const seeds = Int32Array.from([3, 70, 59, 3, 0]);
    const candidates = Int32Array.from({ length: 45 }, () => Math.floor(random() * width * 1.2));
    const native = new Float64Array(candidates.length).fill(0.25);
    const js = new Float64Array(candidates.length).fill(0.25);
    addRowsInto(native, matrix, width, seeds, candidates, candidates.length);
    for (const s of seeds) {
      if (s >= width) continue;
      for (let q = 0; q < candidates.length; q++) if (candidates[q]! < width) js[q]! += matrix[s * width + candidates[q]!]!;
    }
    assert.deepEqual([...native], [...js]);
    assert.ok(candidates.some((c) => c >= width) && native.some((v) => v !== 0.25));
  });
});
