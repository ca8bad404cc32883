import assert from 'node:assert/strict';
import { gather } from '../../../src/embedding/sparse-kernel';
import { seededRandom } from '../../../src/random';

/** The loop the native gather replaced: one running sum in doubles (the kernel's four differ below float32 precision). */
function gatherInJs(scratch: Float32Array, starts: Uint32Array, ends: Uint32Array, ids: Uint32Array, weights: Float32Array, out: Float32Array, divisor: number): void {
  for (let c = 0; c < out.length; c++) {
    let s = 0;
    for (let k = starts[c]!; k < Math.min(ends[c]!, ids.length); k++) if (ids[k]! < scratch.length) s += scratch[ids[k]!]! * weights[k]!;
    out[c] = s / divisor;
  }
}

describe('embedding/sparse-kernel', () => {
  const random = seededRandom(29);
  const vocabulary = 5_000;
  const rows = 300;
  const perRow = 60;
  // Terms in a growable shared buffer, as a key's term arrays are; rows in shuffled order with gaps between them.
  const ids = new Uint32Array(new SharedArrayBuffer(rows * perRow * 8, { maxByteLength: rows * perRow * 16 }), 0, rows * perRow * 2);
  const weights = new Float32Array(new SharedArrayBuffer(rows * perRow * 8), 0, rows * perRow * 2);
  const starts = new Uint32Array(rows);
  const ends = new Uint32Array(rows);
  for (let c = 0; c < rows; c++) {
    const start = (rows - 1 - c) * perRow * 2 + Math.floor(random() * perRow);
    const length = Math.floor(random() * perRow);
    starts[c] = start;
    ends[c] = start + length;
    for (let k = start; k < start + length; k++) {
      ids[k] = Math.floor(random() * vocabulary * 1.1); // some ids past the scratch
      weights[k] = random();
    }
  }
  const scratch = new Float32Array(vocabulary);
  for (let i = 0; i < 400; i++) scratch[Math.floor(random() * vocabulary)] = random();

  it('gives the JavaScript loop\'s float32 scores', () => {
    const native = new Float32Array(rows);
    const js = new Float32Array(rows);
    gather(scratch, starts, ends, ids, weights, native, 3);
    gatherInJs(scratch, starts, ends, ids, weights, js, 3);
    assert.ok(js.some((s) => s > 0));
    assert.deepEqual(Array.from(native), Array.from(js));
  });

  it('gives the same scores from 16-bit ids (a key\'s term arrays) as from 32-bit ones', () => {
    const narrow = new Uint16Array(new SharedArrayBuffer(ids.length * 2), 0, ids.length);
    narrow.set(ids);
    const fromNarrow = new Float32Array(rows);
    const fromWide = new Float32Array(rows);
    gather(scratch, starts, ends, narrow, weights, fromNarrow, 3);
    gather(scratch, starts, ends, ids, weights, fromWide, 3);
    assert.ok(fromWide.some((s) => s > 0));
    assert.deepEqual(Array.from(fromNarrow), Array.from(fromWide));
  });

  it('clips spans to the arrays and writes only out.length scores', () => {
    const out = new Float32Array(2).fill(-1);
    const shortIds = ids.subarray(0, 10);
    gather(scratch, Uint32Array.of(5, 0, 0), Uint32Array.of(1_000_000, 0, 0), shortIds, weights, out, 1);
    const expected = new Float32Array(2);
    gatherInJs(scratch, Uint32Array.of(5, 0), Uint32Array.of(10, 0), shortIds, weights, expected, 1);
    assert.deepEqual(Array.from(out), Array.from(expected));
  });

  it('refuses arrays of the wrong type with a TypeError', () => {
    assert.throws(() => gather(new Float32Array(1), new Uint32Array(1), new Uint32Array(1), new Uint32Array(1), new Float32Array(1), new Float64Array(1) as unknown as Float32Array, 1), TypeError);
  });
});
