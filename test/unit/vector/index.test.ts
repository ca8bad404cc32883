import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkerPool } from '../../../src/pool';
import { packSparse, type SparseVector } from '../../../src/embedding';
import { VectorIndex } from '../../../src/vector';
import { dot, randomUnit, referenceTopK, rng } from './helpers';

function sameHits(got: Array<{ id: string; score: number }>, want: Array<{ id: string; score: number }>): void {
  assert.equal(got.length, want.length, 'result count');
  for (let i = 0; i < want.length; i++) {
    assert.ok(Math.abs(got[i].score - want[i].score) < 1e-5, `score ${i}: ${got[i].score} vs ${want[i].score}`);
    // ties aside, ids must agree
    if (Math.abs(want[i].score - (want[i + 1]?.score ?? -2)) > 1e-6) assert.equal(got[i].id, want[i].id);
  }
}

function fill(index: VectorIndex, n: number, seed: number, prefix = 'doc'): Map<string, Float32Array> {
  const next = rng(seed);
  const vectors = new Map<string, Float32Array>();
  for (let i = 0; i < n; i++) {
    const v = randomUnit(index.dim, next);
    vectors.set(`${prefix}${i}`, v);
    index.upsert(`${prefix}${i}`, v);
  }
  return vectors;
}

describe('VectorIndex', () => {
  let pool: WorkerPool;
  before(() => {
    pool = new WorkerPool({ threads: 2 });
  });
  after(async () => {
    await pool.close();
  });

  it('upserts, replaces, removes and reports vectors', () => {
    const index = new VectorIndex(8, { approximate: false });
    const v = new Float32Array([3, 4, 0, 0, 0, 0, 0, 0]);
    index.upsert('a', v);
    assert.equal(index.size, 1);
    assert.ok(index.has('a'));
    assert.deepEqual(Array.from(index.vectorOf('a') ?? []), [0.6000000238418579, 0.800000011920929, 0, 0, 0, 0, 0, 0]);
    index.upsert('a', new Float32Array([0, 0, 2, 0, 0, 0, 0, 0]));
    assert.equal(index.size, 1);
    assert.deepEqual(Array.from(index.vectorOf('a') ?? []), [0, 0, 1, 0, 0, 0, 0, 0]);
    assert.equal(index.remove('a'), true);
    assert.equal(index.remove('a'), false);
    assert.equal(index.has('a'), false);
    assert.equal(index.vectorOf('a'), undefined);
    assert.equal(index.size, 0);
    assert.throws(() => index.upsert('b', new Float32Array(7)), RangeError);
  });

  it('exact search matches brute force, locally and in worker shards', async () => {
    const dim = 64;
    const local = new VectorIndex(dim, { approximate: false });
    const sharded = new VectorIndex(dim, { approximate: false, pool, localScanRows: 500 });
    const vectors = fill(local, 6000, 1);
    fill(sharded, 6000, 1);
    const next = rng(99);
    for (let t = 0; t < 5; t++) {
      const q = randomUnit(dim, next);
      const k = [1, 10, 100, 3, 50][t];
      const want = referenceTopK(vectors, q, k);
      sameHits(await local.search(q, k), want);
      sameHits(await sharded.search(q, k), want);
    }
    await assert.rejects(local.search(new Float32Array(dim), 0), RangeError);
    await assert.rejects(local.search(new Float32Array(dim), local.kMax + 1), RangeError);
    await assert.rejects(local.search(new Float32Array(dim + 1), 5), RangeError);
  });

  it('answers concurrent worker scans as batches exactly like single scans', async () => {
    const dim = 40;
    const index = new VectorIndex(dim, { approximate: false, pool, localScanRows: 300 });
    const vectors = fill(index, 5000, 12);
    const next = rng(13);
    const queries = Array.from({ length: 30 }, () => randomUnit(dim, next));
    const ks = queries.map((_, i) => 1 + ((i * 7) % 40));
    const excludes = queries.map((q, i) => new Set(referenceTopK(vectors, q, i % 4).map((h) => h.id)));
    const batched = await Promise.all(queries.map((q, i) => index.search(q, ks[i], { exclude: excludes[i] })));
    index.setScan({ batchScans: false });
    const single = await Promise.all(queries.map((q, i) => index.search(q, ks[i], { exclude: excludes[i] })));
    queries.forEach((q, i) => {
      const want = referenceTopK(vectors, q, ks[i], (id) => !excludes[i].has(id));
      sameHits(batched[i], want);
      sameHits(single[i], want);
    });
    index.close();
  });

  it('lets searches in flight complete when the index is closed', async () => {
    const dim = 32;
    const index = new VectorIndex(dim, { approximate: false, pool, localScanRows: 200 });
    const vectors = fill(index, 3000, 14);
    const next = rng(15);
    const queries = Array.from({ length: 12 }, () => randomUnit(dim, next));
    const pending = queries.map((q) => index.search(q, 5));
    index.close();
    const results = await Promise.all(pending);
    results.forEach((hits, i) => sameHits(hits, referenceTopK(vectors, queries[i], 5)));
  });

  it('honours exclude and allow (small set, large set, predicate)', async () => {
    const dim = 32;
    const index = new VectorIndex(dim, { approximate: false, pool, localScanRows: 1000, directMax: 100 });
    const vectors = fill(index, 5000, 2);
    const q = randomUnit(dim, rng(5));
    const top = referenceTopK(vectors, q, 200);
    const fewExcluded = new Set(top.slice(0, 5).map((h) => h.id));
    const manyExcluded = new Set(top.slice(0, 150).map((h) => h.id));
    sameHits(await index.search(q, 10, { exclude: fewExcluded }), referenceTopK(vectors, q, 10, (id) => !fewExcluded.has(id)));
    sameHits(await index.search(q, 10, { exclude: manyExcluded }), referenceTopK(vectors, q, 10, (id) => !manyExcluded.has(id)));
    const small = new Set(['doc7', 'doc70', 'doc700', 'doc4999', 'missing']);
    const smallHits = await index.search(q, 10, { allow: small, exclude: new Set(['doc70']) });
    sameHits(smallHits, referenceTopK(vectors, q, 10, (id) => small.has(id) && id !== 'doc70'));
    assert.equal(smallHits.length, 3);
    const large = new Set(Array.from(vectors.keys()).filter((id) => Number(id.slice(3)) % 3 === 0));
    sameHits(await index.search(q, 20, { allow: large }), referenceTopK(vectors, q, 20, (id) => large.has(id)));
    const pred = (id: string): boolean => id.endsWith('7');
    sameHits(await index.search(q, 20, { allow: pred, exclude: fewExcluded }), referenceTopK(vectors, q, 20, (id) => pred(id) && !fewExcluded.has(id)));
  });

  it('answers a whole query in one pool task (query) as exact search does: exclude, allow (small, large, predicate)', async () => {
    const dim = 32;
    const index = new VectorIndex(dim, { approximate: false, pool, localScanRows: 1000, directMax: 100 });
    const vectors = fill(index, 5000, 12);
    const q = randomUnit(dim, rng(6));
    const top = referenceTopK(vectors, q, 200);
    sameHits(await index.query(q, 10), referenceTopK(vectors, q, 10));
    const fewExcluded = new Set(top.slice(0, 5).map((h) => h.id));
    const manyExcluded = new Set(top.slice(0, 150).map((h) => h.id));
    sameHits(await index.query(q, 10, { exclude: fewExcluded }), referenceTopK(vectors, q, 10, (id) => !fewExcluded.has(id)));
    sameHits(await index.query(q, 10, { exclude: manyExcluded }), referenceTopK(vectors, q, 10, (id) => !manyExcluded.has(id)));
    const small = new Set(['doc7', 'doc70', 'doc700', 'doc4999', 'missing']);
    sameHits(await index.query(q, 10, { allow: small, exclude: new Set(['doc70']) }), referenceTopK(vectors, q, 10, (id) => small.has(id) && id !== 'doc70'));
    const large = new Set(Array.from(vectors.keys()).filter((id) => Number(id.slice(3)) % 3 === 0));
    sameHits(await index.query(q, 20, { allow: large }), referenceTopK(vectors, q, 20, (id) => large.has(id)));
    const pred = (id: string): boolean => id.endsWith('7');
    sameHits(await index.query(q, 20, { allow: pred, exclude: fewExcluded }), referenceTopK(vectors, q, 20, (id) => pred(id) && !fewExcluded.has(id)));
    // A write is in the next query's answer.
    index.upsert('fresh', q);
    assert.equal((await index.query(q, 1))[0]!.id, 'fresh');
    index.close();
  });

  it('stays correct through removals, replacements and compaction', async () => {
    const dim = 48;
    const index = new VectorIndex(dim, { approximate: false, pool, localScanRows: 800 });
    const vectors = fill(index, 8000, 3);
    const next = rng(11);
    for (let i = 0; i < 8000; i += 2) {
      index.remove(`doc${i}`);
      vectors.delete(`doc${i}`);
    }
    for (let i = 1; i < 8000; i += 6) {
      const v = randomUnit(dim, next);
      index.upsert(`doc${i}`, v);
      vectors.set(`doc${i}`, v);
    }
    assert.equal(index.size, vectors.size);
    assert.ok(index.store.holeCount > 0);
    await index.compact();
    assert.equal(index.store.holeCount, 0);
    assert.equal(index.store.count, vectors.size);
    for (const [id, v] of vectors) {
      const stored = index.vectorOf(id) as Float32Array;
      assert.ok(Math.abs(dot(stored, v) - 1) < 1e-5, `vector of ${id} survived compaction`);
    }
    const q = randomUnit(dim, next);
    sameHits(await index.search(q, 25), referenceTopK(vectors, q, 25));
    index.upsert('fresh', q);
    const hits = await index.search(q, 1);
    assert.equal(hits[0].id, 'fresh');
  });

  it('carries each row\'s terms with it through replacements, removals, compaction and a snapshot', async () => {
    const dim = 16;
    const next = rng(21);
    const versions = new Map<string, number>();
    const termsOf = (id: string): SparseVector => ({ ids: Uint32Array.of(Number(id.slice(3)), 60_000 + versions.get(id)!), weights: Float32Array.of(1, 0.5) });
    const index = new VectorIndex(dim, { approximate: false, terms: true });
    const put = (id: string, version: number) => {
      versions.set(id, version);
      index.upsert(id, randomUnit(dim, next), termsOf(id));
    };
    for (let i = 0; i < 3000; i++) put(`doc${i}`, 0);
    for (let i = 0; i < 3000; i += 3) {
      index.remove(`doc${i}`);
      versions.delete(`doc${i}`);
    }
    for (let i = 1; i < 3000; i += 5) put(`doc${i}`, 1);
    assert.ok(index.store.holeCount > 0);
    await index.compact(); // moves rows from the end into the holes
    const check = async (ix: VectorIndex) => {
      assert.equal(ix.size, versions.size);
      for (const id of versions.keys()) {
        assert.deepEqual(Array.from(ix.termsOf(id)?.ids ?? []), Array.from(termsOf(id).ids), `terms of ${id}`);
      }
    };
    await check(index);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kvix-')), 'index.kvix');
    await index.snapshot(file);
    const { index: loaded } = await VectorIndex.load(file, { approximate: false });
    assert.ok(loaded.hasTerms);
    await check(loaded);
    // A snapshot from before terms sat beside the vectors: terms by id, adopted after the load.
    fs.rmSync(`${file}.terms`);
    const { index: older } = await VectorIndex.load(file, { approximate: false });
    assert.equal(older.hasTerms, false);
    await assert.rejects(older.query(randomUnit(dim, next), 5, {}, { model: new Uint8Array(0), texts: [], candidates: 10 }), /without terms/);
    const ids = [...versions.keys()];
    older.adoptTerms(ids, packSparse(ids.map(termsOf)));
    await check(older);
  });

  for (const [dim, rows] of [[20, 3000], [3, 9000]] as const) {
    it(`round-trips a snapshot (dim ${dim}: rows ${dim % 4 === 0 ? 'read in place' : 'padded'}, ${rows} of them)`, async () => {
      const index = new VectorIndex(dim, { approximate: false });
      const vectors = fill(index, rows, 4);
      index.remove('doc5');
      vectors.delete('doc5');
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kvix-')), 'index.kvix');
      await index.snapshot(file, { seq: 42 });
      const { index: loaded, meta } = await VectorIndex.load(file, { approximate: false });
      assert.deepEqual(meta, { seq: 42 });
      assert.equal(loaded.size, vectors.size);
      assert.equal(loaded.has('doc5'), false);
      const q = randomUnit(dim, rng(6));
      sameHits(await loaded.search(q, 30), referenceTopK(vectors, q, 30));
      fs.writeFileSync(file, 'nonsense');
      await assert.rejects(VectorIndex.load(file), /not a vector index snapshot/);
    });
  }

  it('keeps searches consistent while upserts, removals and compaction run', async () => {
    const dim = 32;
    const index = new VectorIndex(dim, { approximate: false, pool, localScanRows: 256, compactRatio: 0.01 });
    const vectors = fill(index, 4000, 8);
    const versions = new Map<string, Float32Array[]>();
    for (const [id, v] of vectors) versions.set(id, [v]);
    const next = rng(21);
    const searches: Array<Promise<void>> = [];
    let mutations = 0;
    for (let round = 0; round < 200; round++) {
      const q = randomUnit(dim, next);
      searches.push(index.search(q, 10).then((hits) => {
        // every hit names an id whose score is the dot product with one of its versions
        assert.ok(hits.length > 0);
        const seen = new Set<string>();
        for (const h of hits) {
          assert.ok(!seen.has(h.id), 'no duplicate ids');
          seen.add(h.id);
          const history = versions.get(h.id) ?? [];
          assert.ok(history.some((v) => Math.abs(dot(v, q) - h.score) < 1e-5), `score of ${h.id} matches a version`);
        }
      }));
      for (let j = 0; j < 20; j++) {
        const id = `doc${Math.floor(next() * 5000)}`;
        if (next() < 0.4) index.remove(id);
        else {
          const v = randomUnit(dim, next);
          index.upsert(id, v);
          const history = versions.get(id) ?? [];
          history.push(v);
          versions.set(id, history);
        }
        mutations++;
      }
      if (round % 10 === 0) await new Promise((r) => setImmediate(r));
    }
    await Promise.all(searches);
    assert.equal(mutations, 4000);
    await index.compact();
    // after the dust settles the index equals the reference
    const final = new Map<string, Float32Array>();
    for (const id of index.ids()) final.set(id, index.vectorOf(id) as Float32Array);
    const q = randomUnit(dim, next);
    sameHits(await index.search(q, 10), referenceTopK(final, q, 10));
  });
});

describe('VectorIndex growth', () => {
  it('grows its shared memory while searches are in flight', async () => {
    const pool = new WorkerPool({ threads: 2 });
    try {
      const dim = 64;
      const index = new VectorIndex(dim, { approximate: false, pool, localScanRows: 64, initialRows: 64 });
      const vectors = fill(index, 2000, 31);
      const before = index.store.memory.buffer.byteLength;
      const next = rng(32);
      const queries = Array.from({ length: 20 }, () => randomUnit(dim, next));
      const snapshotOfVectors = new Map(vectors);
      const pending = queries.map((q) => index.search(q, 5));
      // appends that force the memory to grow several times while the scans run
      const added = fill(index, 20000, 33, 'grown');
      const needed = index.store.layout.vectorsBase + 22000 * index.store.layout.stride * 4;
      assert.ok(before < needed && index.store.memory.buffer.byteLength >= needed, 'memory grew');
      const results = await Promise.all(pending);
      results.forEach((hits, i) => {
        // searches that started before the appends see at least the old rows' best
        const best = referenceTopK(snapshotOfVectors, queries[i], 1)[0];
        assert.ok(hits[0].score >= best.score - 1e-6);
      });
      const all = new Map([...vectors, ...added]);
      sameHits(await index.search(queries[0], 10), referenceTopK(all, queries[0], 10));
      index.close();
    } finally {
      await pool.close();
    }
  });
});
