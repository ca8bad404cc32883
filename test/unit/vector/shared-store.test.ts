import assert from 'node:assert/strict';
import { SharedVectorStore } from '../../../src/vector/shared-store';
import { randomUnit, rng } from './helpers';

const layoutOptions = (dim: number) => ({ dim, kMax: 64, shardsMax: 2, slots: 2, maskSlots: 1, directMax: 64, batchMax: 4, maxRows: 100_000 });

describe('SharedVectorStore', () => {
  for (const dim of [3, 16]) {
    it(`puts a block of rows like one put each (dim ${dim}, rows not word-aligned, ids repeated)`, () => {
      const next = rng(dim);
      const ids = ['a', 'b', 'c', 'd', 'e'];
      for (let i = 0; i < 70; i++) ids.push(`x${i}`);
      ids.push('b', 'x3', 'x3'); // replacing earlier rows, one of them twice within the block
      const vectors = ids.map(() => randomUnit(dim, next));
      const one = new SharedVectorStore(layoutOptions(dim), 32);
      ids.forEach((id, i) => one.put(id, vectors[i]!));
      const block = new SharedVectorStore(layoutOptions(dim), 32);
      for (let i = 0; i < 5; i++) block.put(ids[i]!, vectors[i]!); // the block starts at row 5, mid-word
      const rest = new Float32Array((ids.length - 5) * dim);
      for (let i = 5; i < ids.length; i++) rest.set(vectors[i]!, (i - 5) * dim);
      block.putMany(ids.slice(5), rest); // grows the memory on the way (capacity 32)

      assert.equal(block.size, one.size);
      assert.equal(block.count, one.count);
      assert.equal(block.holeCount, one.holeCount);
      for (let row = 0; row < one.count + 40; row++) assert.equal(block.isAlive(row), one.isAlive(row), `row ${row}`);
      for (const id of new Set(ids)) {
        assert.equal(block.rowOf(id), one.rowOf(id), id);
        assert.deepEqual(block.vectorOf(id), one.vectorOf(id), id);
      }
      assert.throws(() => block.putMany(['y'], new Float32Array(dim + 1)), /floats/);
    });
  }
});
