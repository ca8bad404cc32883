import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { unpackSparse, type SparseVector } from '../../../src/embedding';
import { SparseRows } from '../../../src/vector/sparse-rows';
import { writeTermsFile } from '../../../src/vector/snapshot';
import { seededRandom } from '../../../src/random';

function randomRow(next: () => number): SparseVector {
  const ids = new Set<number>();
  const n = Math.floor(next() * 40);
  while (ids.size < n) ids.add(Math.floor(next() * 65_536)); // every 16-bit id
  const sorted = Uint32Array.from([...ids].sort((a, b) => a - b));
  return { ids: sorted, weights: Float32Array.from(sorted, () => next()) };
}

function assertSameRows(rows: SparseRows, reference: Map<number, SparseVector>): void {
  assert.equal(rows.size, reference.size);
  const wanted = [...reference.keys(), -1, 1_000_000]; // rows without a vector are left out
  const { packed, present } = rows.pack(wanted);
  assert.deepEqual(present, [...reference.keys()].map((_, i) => i));
  const unpacked = unpackSparse(packed);
  [...reference.keys()].forEach((row, i) => {
    assert.deepEqual(unpacked[i]!.ids, reference.get(row)!.ids, `row ${row}`);
    assert.deepEqual(unpacked[i]!.weights, reference.get(row)!.weights, `row ${row}`);
  });
}

describe('SparseRows (second-stage terms by store row)', () => {
  it('keeps every row through replacements, deletions, moves and the compactions they cause', () => {
    const next = seededRandom(5);
    const rows = new SparseRows();
    const reference = new Map<number, SparseVector>();
    for (let i = 0; i < 20_000; i++) {
      const row = Math.floor(next() * 2000);
      const roll = next();
      if (roll < 0.25) {
        assert.equal(rows.delete(row), reference.delete(row));
      } else if (roll < 0.35) {
        // as the store's compaction does: a live row into a dead row's place
        const to = Math.floor(next() * 2000);
        if (!reference.has(to) && reference.has(row)) {
          rows.move(row, to);
          reference.set(to, reference.get(row)!);
          reference.delete(row);
        }
      } else {
        const vector = randomRow(next);
        rows.set(row, vector);
        reference.set(row, vector);
      }
      if (i % 5000 === 0) assertSameRows(rows, reference);
    }
    assertSameRows(rows, reference);
    for (const row of reference.keys()) assert.ok(rows.has(row));
    assert.equal(rows.has(1_000_000), false);
    assert.equal(rows.has(-1), false);
  });

  it('adopts packed rows (a snapshot, some rows without a vector) and goes on taking writes', async () => {
    const next = seededRandom(9);
    const reference = new Map<number, SparseVector>();
    const original = new SparseRows();
    for (let row = 0; row < 300; row++) {
      if (row % 7 === 3) continue;
      const vector = randomRow(next);
      original.set(row, vector);
      reference.set(row, vector);
    }
    const all = Array.from({ length: 300 }, (_, row) => row);
    // row i of a terms file is row i of the snapshot: absent rows as empty ones, marked absent
    const file = await original.packFile(all, async () => {});
    assert.equal(file.packed.offsets.length, 301);
    assert.deepEqual(Array.from(file.present), all.map((row) => (row % 7 === 3 ? 0 : 1)));
    const restored = SparseRows.fromPacked(file.packed, file.present);
    assertSameRows(restored, new Map([...reference].sort((a, b) => a[0] - b[0])));
    for (let i = 0; i < 500; i++) {
      const row = Math.floor(next() * 400);
      const vector = randomRow(next);
      restored.set(row, vector);
      reference.set(row, vector);
    }
    restored.delete(5);
    reference.delete(5);
    assertSameRows(restored, new Map([...reference].sort((a, b) => a[0] - b[0])));
  });

  it('packs a snapshot between pauses; a row that loses its terms during one is marked absent', async () => {
    const rows = new SparseRows();
    const count = 140_000; // more than two slices of rows between pauses
    const vectorOf = (row: number): SparseVector => ({ ids: Uint32Array.of(row % 1000, 1000 + (row % 7)), weights: Float32Array.of(row / count, 0.5) });
    for (let row = 0; row < count; row++) rows.set(row, vectorOf(row));
    const all = Array.from({ length: count }, (_, row) => row);
    let pauses = 0;
    const file = await rows.packFile(all, async () => {
      // Two pauses count the rows' terms, then the copy begins: a write lands after its first slice.
      if (++pauses === 3) for (const row of [5, 70_000, 139_999]) rows.delete(row);
    });
    assert.equal(pauses, 4);
    const restored = SparseRows.fromPacked(file.packed, file.present);
    assert.equal(restored.size, count - 2);
    assert.equal(restored.has(5), true, 'copied before the write: as it was when the snapshot began');
    for (const row of [70_000, 139_999]) assert.equal(restored.has(row), false, 'its room kept, marked absent');
    const { packed } = restored.pack([4, 6, 69_999, 139_998]);
    assert.deepEqual(Array.from(packed.ids), [4, 1004, 6, 1006, 999, 1000 + (69_999 % 7), 998, 1000 + (139_998 % 7)]);
    assert.equal(packed.weights[4], Math.fround(69_999 / count));
  });

  it('reads back the terms file it writes, and a version 1 file (32-bit ids) as the same rows', async () => {
    const next = seededRandom(17);
    const rows = new SparseRows();
    const reference = new Map<number, SparseVector>();
    for (let row = 0; row < 200; row++) {
      if (row % 5 === 1) continue;
      const vector = randomRow(next);
      rows.set(row, vector);
      reference.set(row, vector);
    }
    const file = await rows.packFile(Array.from({ length: 200 }, (_, row) => row), async () => {});
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-terms-'));
    try {
      await writeTermsFile(path.join(dir, 'v2.terms'), file);
      const { packed, present } = file;
      const head = Buffer.alloc(16);
      head.write('KTRM', 0, 'latin1');
      head.writeUInt32LE(1, 4);
      head.writeUInt32LE(present.length, 8);
      head.writeUInt32LE(packed.ids.length, 12);
      const bytes = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
      fs.writeFileSync(path.join(dir, 'v1.terms'), Buffer.concat([head, bytes(packed.offsets), bytes(Uint32Array.from(packed.ids)), bytes(packed.weights), bytes(present)]));
      for (const name of ['v2.terms', 'v1.terms']) {
        const restored = await SparseRows.readFile(path.join(dir, name));
        assert.equal(restored.count, 200, name);
        assertSameRows(restored.rows, new Map([...reference].sort((a, b) => a[0] - b[0])));
      }
      assert.equal(fs.statSync(path.join(dir, 'v2.terms')).size, fs.statSync(path.join(dir, 'v1.terms')).size - 2 * packed.ids.length);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a term id past 16 bits with a RangeError, keeping the row it had', () => {
    const rows = new SparseRows();
    const kept = { ids: Uint32Array.of(3, 65_535), weights: Float32Array.of(0.6, 0.8) };
    rows.set(0, kept);
    assert.throws(() => rows.set(0, { ids: Uint32Array.of(3, 65_536), weights: Float32Array.of(0.6, 0.8) }), RangeError);
    assertSameRows(rows, new Map([[0, kept]]));
  });

  it('keeps rows across chunks, one with every term id among them, and after compaction', () => {
    const next = seededRandom(13);
    const rows = new SparseRows();
    const reference = new Map<number, SparseVector>();
    const long = Uint32Array.from({ length: 65_536 }, (_, i) => i);
    for (let row = 0; row < 6000; row++) {
      const vector = row === 3000 ? { ids: long, weights: Float32Array.from(long, (i) => i / 7) } : randomRow(next);
      rows.set(row, vector);
      reference.set(row, vector);
    }
    assertSameRows(rows, reference);
    assert.ok(rows.bytes < 2 * 6 * 185_000, `${rows.bytes} bytes for ~185k terms`);
    // replacing most rows leaves garbage that the next chunk's allocation reclaims
    for (let round = 0; round < 3; round++) {
      for (let row = 0; row < 6000; row++) {
        if (row === 3000) continue;
        const vector = randomRow(next);
        rows.set(row, vector);
        reference.set(row, vector);
      }
    }
    assertSameRows(rows, reference);
  });
});
