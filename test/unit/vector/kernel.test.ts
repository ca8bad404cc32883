import assert from 'node:assert/strict';
import { SharedVectorStore } from '../../../src/vector/shared-store';
import { dot, randomUnit, rng } from './helpers';

function layoutOptions(dim: number) {
  return { dim, kMax: 64, shardsMax: 2, slots: 2, maskSlots: 1, directMax: 64, batchMax: 4, maxRows: 100_000 };
}

describe('vector kernel (WASM SIMD)', () => {
  for (const dim of [3, 16, 100, 131, 256]) {
    it(`kv_topk matches a JS reference at dim ${dim} with masks`, () => {
      const next = rng(dim);
      const store = new SharedVectorStore(layoutOptions(dim), 64);
      const n = 1500;
      const vecs: Float32Array[] = [];
      for (let i = 0; i < n; i++) {
        vecs.push(randomUnit(dim, next));
        store.put(`d${i}`, vecs[i]);
      }
      // tombstones: every 7th row
      for (let i = 0; i < n; i += 7) store.delete(`d${i}`);
      const layout = store.layout;
      const f32 = store.f32();
      const q = randomUnit(dim, next);
      const queryPtr = layout.slotsBase;
      f32.set(q, queryPtr >> 2);
      f32.fill(0, (queryPtr >> 2) + dim, (queryPtr >> 2) + layout.stride);
      // allow mask: rows whose index is odd
      const maskPtr = layout.maskBase;
      const mask = new Uint32Array(store.memory.buffer, maskPtr, Math.ceil(n / 32));
      mask.fill(0);
      for (let r = 1; r < n; r += 2) mask[r >> 5] |= 1 << (r & 31);
      const outScores = layout.slotsBase + layout.slotOut;
      const outRows = outScores + layout.outPairs * 4;
      // the heap (no room beyond k) and the cut-back buffer (room for 2k or more)
      for (const [k, begin, end, withMask, cap] of [[10, 0, n, false, 10], [10, 0, n, false, 20], [1, 0, n, true, 1], [1, 0, n, true, 128], [64, 37, 1203, true, 64], [32, 37, 1203, true, 64], [5, 40, 45, false, 128]] as const) {
        const got = store.kernel.kv_topk(layout.vectorsBase, layout.stride, begin, end, queryPtr, layout.aliveBase, withMask ? maskPtr : 0, k, cap, outScores, outRows);
        const scores = Array.from(new Float32Array(store.memory.buffer, outScores, got));
        const rows = Array.from(new Int32Array(store.memory.buffer, outRows, got));
        const expected: Array<{ row: number; score: number }> = [];
        for (let r = begin; r < end; r++) {
          if (r % 7 === 0) continue;
          if (withMask && r % 2 === 0) continue;
          expected.push({ row: r, score: dot(vecs[r], q) });
        }
        expected.sort((a, b) => b.score - a.score);
        const want = expected.slice(0, k);
        assert.equal(got, want.length);
        const pairs = rows.map((row, i) => ({ row, score: scores[i] })).sort((a, b) => b.score - a.score);
        for (let i = 0; i < want.length; i++) {
          assert.ok(Math.abs(pairs[i].score - want[i].score) < 1e-5, `score ${i}: ${pairs[i].score} vs ${want[i].score}`);
          assert.ok(Math.abs(dot(vecs[pairs[i].row], q) - pairs[i].score) < 1e-5, 'row and score agree');
        }
      }
    });
  }

  it('kv_topk with room beyond k keeps the k best by score, ties to the lower row', () => {
    const dim = 8;
    const next = rng(5);
    const store = new SharedVectorStore(layoutOptions(dim), 64);
    // 40 distinct vectors, each stored 25 times: every score is tied 25 ways
    const distinct = Array.from({ length: 40 }, () => randomUnit(dim, next));
    for (let i = 0; i < 1000; i++) store.put(`t${i}`, distinct[(i * 7) % 40]);
    const layout = store.layout;
    const q = randomUnit(dim, next);
    const queryPtr = layout.slotsBase;
    store.f32().set(q, queryPtr >> 2);
    store.f32().fill(0, (queryPtr >> 2) + dim, (queryPtr >> 2) + layout.stride);
    const outScores = layout.slotsBase + layout.slotOut;
    const outRows = outScores + layout.outPairs * 4;
    const scoreOf = (r: number) => Math.fround(dot(distinct[(r * 7) % 40], q));
    for (const k of [1, 13, 30, 64]) {
      const got = store.kernel.kv_topk(layout.vectorsBase, layout.stride, 0, 1000, queryPtr, layout.aliveBase, 0, k, layout.outPairs, outScores, outRows);
      const rows = Array.from(new Int32Array(store.memory.buffer, outRows, got)).sort((a, b) => a - b);
      const scores = new Float32Array(store.memory.buffer, outScores, got);
      const best = Array.from({ length: 1000 }, (_, r) => r).sort((a, b) => scoreOf(b) - scoreOf(a) || a - b).slice(0, k);
      assert.deepEqual(rows, [...best].sort((a, b) => a - b), `k ${k}`);
      const pairs = new Int32Array(store.memory.buffer, outRows, got);
      for (let i = 0; i < got; i++) assert.ok(Math.abs(scores[i] - scoreOf(pairs[i])) < 1e-6, 'each score is its row\'s');
    }
  });

  for (const dim of [50, 64, 131]) {
    it(`the native scoreRows gives listed rows the scan's scores to the bit (dim ${dim})`, () => {
      const next = rng(dim + 7);
      const store = new SharedVectorStore(layoutOptions(dim), 64);
      const vecs = Array.from({ length: 200 }, () => randomUnit(dim, next));
      vecs.forEach((v, i) => store.put(`x${i}`, v));
      const layout = store.layout;
      const q = randomUnit(dim, next);
      const rows = Int32Array.from([199, 0, 17, 17, 88, 5, 6, 7, 150]);
      const scores = store.scoreRows(rows, q);
      rows.forEach((r, i) => assert.ok(Math.abs(scores[i] - dot(vecs[r], q)) < 1e-5));
      // the kernel's scan of every row, from the same query in a slot
      const queryPtr = layout.slotsBase;
      store.f32().set(q, queryPtr >> 2);
      store.f32().fill(0, (queryPtr >> 2) + dim, (queryPtr >> 2) + layout.stride);
      const outScores = layout.slotsBase + layout.slotOut;
      const outRows = outScores + layout.outPairs * 4;
      const got = store.kernel.kv_topk(layout.vectorsBase, layout.stride, 0, 200, queryPtr, layout.aliveBase, 0, 64, layout.outPairs, outScores, outRows);
      const scanned = new Map<number, number>();
      const scanRows = new Int32Array(store.memory.buffer, outRows, got);
      new Float32Array(store.memory.buffer, outScores, got).forEach((s, i) => scanned.set(scanRows[i]!, s));
      let compared = 0;
      rows.forEach((r, i) => {
        if (!scanned.has(r)) return;
        assert.equal(scores[i], scanned.get(r), `row ${r}`);
        compared++;
      });
      assert.ok(compared > 0);
      assert.throws(() => store.scoreRows(Int32Array.from([200]), q), RangeError);
    });
  }

  it('kv_topk_multi gives each query of a batch its own top-k', () => {
    const dim = 36;
    const next = rng(17);
    const store = new SharedVectorStore({ ...layoutOptions(dim), slots: 16 }, 64);
    const n = 700;
    const vecs = Array.from({ length: n }, () => randomUnit(dim, next));
    vecs.forEach((v, i) => store.put(`m${i}`, v));
    for (let i = 3; i < n; i += 5) store.delete(`m${i}`);
    const layout = store.layout;
    const nq = 3;
    const ks = [1, 7, 64];
    const queries = Array.from({ length: nq }, () => randomUnit(dim, next));
    // scratch: queries, outputs and the descriptor inside the two slots
    const base = layout.slotsBase;
    assert.ok(base + 8192 + 64 < layout.aliveBase, 'scratch fits in the slots');
    const qPtr = (j: number): number => base + j * layout.stride * 4;
    const outPtr = (j: number): number => base + 4096 + j * 64 * 8;
    const desc = base + 8192;
    const sizes = desc + nq * 16;
    const f32 = store.f32();
    const i32 = new Int32Array(store.memory.buffer);
    queries.forEach((q, j) => {
      f32.fill(0, qPtr(j) >> 2, (qPtr(j) >> 2) + layout.stride);
      f32.set(q, qPtr(j) >> 2);
      i32.set([qPtr(j), ks[j], outPtr(j), outPtr(j) + 64 * 4], (desc >> 2) + 4 * j);
    });
    store.kernel.kv_topk_multi(layout.vectorsBase, layout.stride, 10, n, desc, nq, layout.aliveBase, sizes);
    queries.forEach((q, j) => {
      const got = i32[(sizes >> 2) + j];
      const expected: number[] = [];
      for (let r = 10; r < n; r++) if (r % 5 !== 3) expected.push(dot(vecs[r], q));
      expected.sort((a, b) => b - a);
      assert.equal(got, ks[j]);
      const scores = Array.from(new Float32Array(store.memory.buffer, outPtr(j), got)).sort((a, b) => b - a);
      scores.forEach((sc, i) => assert.ok(Math.abs(sc - expected[i]) < 1e-5, `query ${j} rank ${i}`));
    });
  });
});
