import assert from 'node:assert/strict';
import { unpackSparse, type SparseVector } from '../../../src/embedding';
import { SparseRows } from '../../../src/index/sparse-rows';
import { seededRandom } from '../../../src/random';

function randomRow(next: () => number): SparseVector {
  const ids = new Set<number>();
  const n = Math.floor(next() * 40);
  while (ids.size < n) ids.add(Math.floor(next() * 5000));
  const sorted = Uint32Array.from([...ids].sort((a, b) => a - b));
  return { ids: sorted, weights: Float32Array.from(sorted, () => next()) };
}

function assertSameRows(rows: SparseRows, reference: Map<string, SparseVector>): void {
  assert.equal(rows.size, reference.size);
  const ids = [...reference.keys()];
  const unpacked = unpackSparse(rows.pack(ids));
  ids.forEach((id, i) => {
    assert.deepEqual(unpacked[i]!.ids, reference.get(id)!.ids, id);
    assert.deepEqual(unpacked[i]!.weights, reference.get(id)!.weights, id);
  });
}

describe('SparseRows (second-stage terms in flat arrays)', () => {
  it('keeps every row through replacements, deletions and the compactions they cause', () => {
    const next = seededRandom(5);
    const rows = new SparseRows();
    const reference = new Map<string, SparseVector>();
    for (let i = 0; i < 20_000; i++) {
      const id = `d${Math.floor(next() * 2000)}`;
      if (next() < 0.3) {
        assert.equal(rows.delete(id), reference.delete(id));
      } else {
        const row = randomRow(next);
        rows.set(id, row);
        reference.set(id, row);
      }
      if (i % 5000 === 0) assertSameRows(rows, reference);
    }
    assertSameRows(rows, reference);
    for (const id of reference.keys()) assert.ok(rows.has(id));
    assert.equal(rows.has('never'), false);
    assert.throws(() => rows.pack(['never']), /no sparse row for never/);
  });

  it('adopts packed rows (a snapshot) and goes on taking writes', () => {
    const next = seededRandom(9);
    const reference = new Map<string, SparseVector>(Array.from({ length: 300 }, (_, i) => [`d${i}`, randomRow(next)]));
    const original = new SparseRows();
    for (const [id, row] of reference) original.set(id, row);
    const ids = [...original.ids()];
    const restored = SparseRows.fromPacked(ids, original.pack(ids));
    assertSameRows(restored, reference);
    for (let i = 0; i < 500; i++) {
      const id = `d${Math.floor(next() * 400)}`;
      const row = randomRow(next);
      restored.set(id, row);
      reference.set(id, row);
    }
    restored.delete('d3');
    reference.delete('d3');
    assertSameRows(restored, reference);
    restored.clear();
    assert.equal(restored.size, 0);
  });
});
