import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { VectorIndex, type ApproximateTrial } from '../../../src/vector';
import { WorkerPool } from '../../../src/pool';
import { loadFaissAddon, type FaissAddon } from '../../../src/vector/faiss-addon';
import { scoreRowsInto } from '../../../src/vector/dense-kernel';
import { dot, randomUnit, referenceTopK, rng } from './helpers';

/** Clustered data (where IVF does well): 50 centres, points = centre + small noise. */
function clustered(n: number, dim: number, seed: number): Map<string, Float32Array> {
  const next = rng(seed);
  const centres = Array.from({ length: 50 }, () => randomUnit(dim, next));
  const out = new Map<string, Float32Array>();
  for (let i = 0; i < n; i++) {
    const c = centres[i % centres.length];
    const noise = randomUnit(dim, next);
    const v = new Float32Array(dim);
    for (let j = 0; j < dim; j++) v[j] = c[j] + 0.5 * noise[j];
    out.set(`p${i}`, v);
  }
  return out;
}

function normalisedCopy(v: Float32Array): Float32Array {
  let s = 0;
  for (const x of v) s += x * x;
  return v.map((x) => x / Math.sqrt(s));
}

const available = VectorIndex.approximateAvailable();

/** An index over clustered rows whose approximate index has been built and has taken every row. */
async function builtIndex(rows: number, dim: number, seed: number, minRows: number): Promise<{ data: Map<string, Float32Array>; index: VectorIndex }> {
  const data = clustered(rows, dim, seed);
  const index = new VectorIndex(dim, { approximate: { minRows } });
  for (const [id, v] of data) index.upsert(id, v);
  await index.flushApproximate();
  return { data, index };
}

(available ? describe : describe.skip)('VectorIndex approximate (FAISS IVF addon)', function () {
  this.timeout(60_000);

  it('rebuilds with more lists once it has grown past four times the rows its lists were sized for', async () => {
    const dim = 16;
    const data = clustered(4400, dim, 5);
    const index = new VectorIndex(dim, { approximate: { minRows: 1000 } });
    const rows = [...data];
    for (const [id, v] of rows.slice(0, 1000)) index.upsert(id, v);
    await index.flushApproximate();
    assert.equal(index.approximateLists, 126, 'sized for 1,000 rows: 4 √1000');
    for (const [id, v] of rows.slice(1000, 3969)) index.upsert(id, v);
    await index.flushApproximate();
    assert.equal(index.approximateLists, 126, 'not yet past 4 × the (126 / 4)² rows it was sized for');
    for (const [id, v] of rows.slice(3969)) index.upsert(id, v);
    await index.flushApproximate();
    assert.equal(index.approximateLists, 252, 'rebuilt for 3,970 rows and more: 4 √3970 ≈ 252');
    const q = normalisedCopy(data.get('p4399') as Float32Array);
    assert.equal((await index.search(q, 1))[0].id, 'p4399', 'rows added during and after the rebuild are found');
    index.close();
  });

  it('builds once large enough, recalls exact results and follows upserts and removals', async () => {
    const dim = 32;
    const data = clustered(6000, dim, 3);
    const index = new VectorIndex(dim, { approximate: { minRows: 5000, nprobe: 8 } });
    for (const [id, v] of data) index.upsert(id, v);
    assert.notEqual(index.approximateState, 'off', 'build started at minRows');
    await index.flushApproximate();
    assert.equal(index.approximateState, 'ready');
    const reference = new Map(Array.from(data, ([id, v]) => [id, normalisedCopy(v)] as const));
    const next = rng(8);
    let hit = 0;
    const queries = 30;
    for (let i = 0; i < queries; i++) {
      const q = normalisedCopy(data.get(`p${Math.floor(next() * 6000)}`) as Float32Array);
      const approx = await index.search(q, 10);
      const exact = new Set(referenceTopK(reference, q, 10).map((h) => h.id));
      assert.equal(approx.length, 10);
      for (let j = 1; j < approx.length; j++) assert.ok(approx[j - 1].score >= approx[j].score, 'sorted');
      for (const h of approx) if (exact.has(h.id)) hit++;
    }
    assert.ok(hit / (queries * 10) >= 0.9, `recall@10 ${hit / (queries * 10)}`);

    // removal is reflected at once (filtered), upsert after a flush
    const q = normalisedCopy(data.get('p42') as Float32Array);
    const first = (await index.search(q, 1))[0];
    assert.equal(first.id, 'p42');
    index.remove('p42');
    assert.ok(!(await index.search(q, 10)).some((h) => h.id === 'p42'));
    index.upsert('new', q);
    await index.flushApproximate();
    assert.equal((await index.search(q, 1))[0].id, 'new');
    // exclude and a large allow-set go through FAISS too
    const excl = new Set(['new']);
    assert.ok(!(await index.search(q, 10, { exclude: excl })).some((h) => h.id === 'new'));
    const allow = new Set(Array.from({ length: 5000 }, (_, i) => `p${i * 1 + 1000}`).filter((id) => index.has(id)));
    const allowed = await index.search(q, 10, { allow });
    assert.ok(allowed.length === 10 && allowed.every((h) => allow.has(h.id)));
    index.close();
  });

  // 30: not a multiple of 4, rows padded to the stride; 300: the codes' 16-bit weights scaled down so 32-bit sums hold
  for (const [dim, stride] of [[30, 32], [300, 300]] as const) it(`holds 8-bit codes; searched with the key's rows, its probed lists are shortlisted by the codes and scored from the rows to the bit as the kernel scores them (dim ${dim})`, async () => {
    const addon = loadFaissAddon() as FaissAddon;
    const data = [...clustered(3000, dim, 11).values()].map(normalisedCopy);
    const vectors = new Float32Array(data.length * stride);
    data.forEach((v, row) => vectors.set(v, row * stride));
    const faiss = new addon.FaissIndex(dim, 'IVF16,SQ8', 'ip');
    const packed = new Float32Array(data.length * dim);
    data.forEach((v, row) => packed.set(v, row * dim));
    await faiss.train(packed);
    // label = row + 2: labels are not rows (the table says where each lies); label 1 has no row and is skipped
    await faiss.add(packed, BigInt64Array.from(data, (_, row) => BigInt(row + 2)));
    const labelRows = new Int32Array(data.length + 2);
    for (let row = 0; row < data.length; row++) labelRows[row + 2] = row + 1;
    const handle = faiss.share();
    try {
      const next = rng(12);
      let differed = 0;
      for (let i = 0; i < 20; i++) {
        const q = data[Math.floor(next() * data.length)]!;
        const fromRows = addon.searchShared(handle, q, 10, 16, { vectors, stride, labelRows })!;
        const fromCodes = addon.searchShared(handle, q, 10, 16)!;
        const rows = Int32Array.from(fromRows.labels, (l) => Number(l) - 2);
        const padded = new Float32Array(stride);
        padded.set(q);
        const kernel = new Float32Array(rows.length);
        scoreRowsInto(vectors, stride, rows, padded, kernel);
        assert.deepEqual(Array.from(fromRows.distances), Array.from(kernel), 'every list probed: the kernel\'s scores of the rows');
        const all = new Float32Array(data.length);
        scoreRowsInto(vectors, stride, Int32Array.from(data, (_, row) => row), padded, all);
        const exact = Array.from(all.keys()).sort((a, b) => all[b]! - all[a]! || a - b).slice(0, 10);
        assert.deepEqual(Array.from(rows), exact, 'every list probed: the exact answer (ties by label)');
        if (fromCodes.distances.some((d, j) => d !== fromRows.distances[j])) differed++;
      }
      assert.ok(differed > 0, 'the 8-bit codes\' own scores differ: the rows were read, not the codes');
    } finally {
      addon.unshare(handle);
    }
  });

  it('rebuilds a float32 index restored from a snapshot with 8-bit codes, serving it meanwhile', async () => {
    const dim = 24;
    const data = clustered(3000, dim, 9);
    const index = new VectorIndex(dim, { approximate: { minRows: 1000, description: 'IVF32,Flat' } });
    for (const [id, v] of data) index.upsert(id, v);
    await index.flushApproximate();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kvix-flat-'));
    const file = path.join(dir, 'key.kvix');
    await index.snapshot(file);
    index.close();
    const { index: loaded } = await VectorIndex.load(file, { approximate: { minRows: 1000 } });
    assert.equal(loaded.approximateDescription, 'IVF32,Flat', 'the restored index serves while the next is built');
    await loaded.flushApproximate();
    assert.match(loaded.approximateDescription ?? '', /^IVF\d+,SQ8$/);
    const q = normalisedCopy(data.get('p5') as Float32Array);
    assert.equal((await loaded.search(q, 1))[0]?.id, 'p5');
    loaded.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('finds a row upserted a moment ago, before FAISS has taken the change (read your writes)', async () => {
    const dim = 16;
    const { index } = await builtIndex(1200, dim, 11, 1000);
    assert.equal(index.approximateState, 'ready');
    const next = rng(12);
    for (let i = 0; i < 20; i++) {
      const v = randomUnit(dim, next);
      index.upsert(`fresh-${i}`, v);
      const hits = await index.search(v, 5);
      assert.equal(hits[0]?.id, `fresh-${i}`, JSON.stringify(hits));
    }
    // an update moves a row: its stale FAISS copy must not answer for it
    const moved = randomUnit(dim, next);
    index.upsert('p7', moved);
    assert.equal((await index.search(moved, 1))[0]?.id, 'p7');
    index.close();
  });

  it('rebuilds aside while searches continue', async () => {
    const dim = 16;
    const data = clustered(3000, dim, 4);
    const index = new VectorIndex(dim, { approximate: { minRows: 1_000_000 } });
    for (const [id, v] of data) index.upsert(id, v);
    assert.equal(index.approximateState, 'off');
    const rebuilt = index.rebuildApproximate();
    const q = normalisedCopy(data.get('p7') as Float32Array);
    const during = await index.search(q, 5); // served by the exact scan meanwhile
    assert.equal(during[0].id, 'p7');
    index.upsert('late', q);
    await rebuilt;
    await index.flushApproximate();
    assert.equal(index.approximateState, 'ready');
    const after = await index.search(q, 2);
    assert.deepEqual(after.map((h) => h.id).sort(), ['late', 'p7']);
    index.close();
  });

  it('persists the FAISS index with a snapshot and restores it without a rebuild', async () => {
    const dim = 24;
    const data = clustered(4000, dim, 5);
    const index = new VectorIndex(dim, { approximate: { minRows: 1000 } });
    for (const [id, v] of data) index.upsert(id, v);
    await index.flushApproximate();
    index.remove('p1');
    index.upsert('p2', data.get('p3') as Float32Array); // pending change at snapshot time
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kvix-ann-'));
    const file = path.join(dir, 'key.kvix');
    await index.snapshot(file, { seq: 7 });
    await index.snapshot(file, { seq: 8 });
    const annFiles = fs.readdirSync(dir).filter((f) => f.endsWith('.faiss'));
    assert.equal(annFiles.length, 1, 'older ANN files are removed');
    const { index: loaded, meta } = await VectorIndex.load(file, { approximate: { minRows: 1000 } });
    assert.deepEqual(meta, { seq: 8 });
    assert.equal(loaded.approximateState, 'ready', 'restored, not rebuilding');
    await loaded.flushApproximate();
    const q = normalisedCopy(data.get('p3') as Float32Array);
    const hits = await loaded.search(q, 3);
    assert.deepEqual(hits.slice(0, 2).map((h) => h.id).sort(), ['p2', 'p3']);
    assert.ok(!(await loaded.search(normalisedCopy(data.get('p1') as Float32Array), 10)).some((h) => h.id === 'p1'));
    const exact = await loaded.search(q, 10, { exact: true });
    const approx = await loaded.search(q, 10);
    assert.ok(approx.filter((h) => exact.some((e) => e.id === h.id)).length >= 9);
    index.close();
    loaded.close();
  });

  it('tunes its probes to the fewest lists that reach a recall, and keeps them in a snapshot', async () => {
    const dim = 24;
    // Uniform rows (no clusters): a few lists miss much of the exact top 50.
    const next = rng(8);
    const data = new Map(Array.from({ length: 6000 }, (_, i) => [`u${i}`, randomUnit(dim, next)] as const));
    const index = new VectorIndex(dim, { approximate: { minRows: 1000 } });
    for (const [id, v] of data) index.upsert(id, v);
    await index.flushApproximate();
    let told = 0;
    index.onUntunedProbes = () => told++;
    assert.equal(index.untunedProbes, true);
    const queries = [...data.values()].filter((_, i) => i % 500 === 7).map(normalisedCopy);
    const recallOf = async (searcher: VectorIndex, trial: Partial<ApproximateTrial>): Promise<number> => {
      let kept = 0;
      for (const q of queries) {
        const exact = await searcher.search(q, 50, { exact: true });
        const got = new Set((await searcher.search(q, 50, trial)).map((h) => h.id));
        kept += exact.filter((h) => got.has(h.id)).length;
      }
      return kept / (50 * queries.length);
    };
    const { chosen, tried } = await index.tuneProbes((trial) => recallOf(index, trial), 0.99);
    const lists = index.approximateLists as number;
    const doubling = [4];
    while (doubling[doubling.length - 1]! < lists) doubling.push(Math.min(lists, 2 * doubling[doubling.length - 1]!));
    const probing = tried.filter((t) => t.overfetch === 2);
    assert.ok(probing.length > 1, 'fewer than all lists missed some rows');
    const doubled = probing.findIndex((t) => t.recall >= 0.99) + 1;
    assert.ok(doubled > 1, 'reached, with more than the fewest lists');
    assert.deepEqual(probing.slice(0, doubled).map((t) => t.nprobe), doubling.slice(0, doubled), 'doubling from 4 until one reaches it');
    // then between the last doubling short of it and the first reaching it
    const [short, reached] = [probing[doubled - 2]!.nprobe, probing[doubled - 1]!.nprobe];
    assert.ok(probing.slice(doubled).every((t) => t.nprobe > short && t.nprobe < reached), 'bisected between the two');
    const lastProbing = probing.filter((t) => t.recall >= 0.99).sort((a, b) => a.nprobe - b.nprobe)[0]!;
    assert.ok(lastProbing.nprobe < lists, 'reached with fewer lists than all');
    assert.ok(probing.every((t) => t.nprobe >= lastProbing.nprobe || t.recall < 0.99), 'no fewer probes reached it');
    // Then, at those lists, shorter shortlists (the codes are 8-bit: re-scored), smallest first, until one loses nothing.
    const shorter = tried.slice(probing.length);
    assert.deepEqual(shorter.map((t) => t.overfetch), [1.25, 1.5].slice(0, shorter.length));
    assert.ok(shorter.every((t) => t.nprobe === lastProbing.nprobe));
    const expected = shorter.find((t) => t.recall >= lastProbing.recall) ?? lastProbing;
    assert.ok(shorter.slice(0, -1).every((t) => t.recall < lastProbing.recall), 'stops at the first shortlist that keeps it');
    assert.deepEqual(chosen, { nprobe: expected.nprobe, overfetch: expected.overfetch });
    assert.equal(await recallOf(index, {}), expected.recall, 'searches use the chosen lists and shortlist');
    assert.equal(index.untunedProbes, false);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kvix-tune-')), 'key.kvix');
    await index.snapshot(file);
    const { index: loaded } = await VectorIndex.load(file, { approximate: { minRows: 1000 } });
    assert.equal(loaded.untunedProbes, false, 'tuned probes restored');
    assert.equal(await recallOf(loaded, {}), expected.recall, 'with their shortlist');
    // Tuned again once the rows pass 1.5 times those it was tuned on.
    const before = loaded.mutations;
    for (let i = 0; i < 3000; i++) loaded.upsert(`grown${i}`, randomUnit(dim, next));
    assert.equal(loaded.mutations, before + 3000, 'each write counted (tuning compares answers only at one count)');
    await loaded.search(randomUnit(dim, next), 10);
    assert.equal(loaded.mutations, before + 3000, 'a search is no change');
    assert.equal(loaded.untunedProbes, false);
    loaded.upsert('one-more', randomUnit(dim, next));
    assert.equal(loaded.untunedProbes, true);
    // A rebuilt index serves untuned until its owner tunes it again.
    await index.rebuildApproximate();
    assert.equal(index.untunedProbes, true);
    assert.equal(told, 1);
    index.close();
    loaded.close();
  });

  it('survives searches, upserts, removals, compaction and a snapshot all at once', async () => {
    const dim = 16;
    const data = clustered(3000, dim, 9);
    const index = new VectorIndex(dim, { approximate: { minRows: 1000 }, compactRatio: 0.01 });
    for (const [id, v] of data) index.upsert(id, v);
    await index.flushApproximate();
    const next = rng(10);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kvix-stress-')), 'k.kvix');
    const pending: Array<Promise<unknown>> = [];
    for (let round = 0; round < 100; round++) {
      const q = randomUnit(dim, next);
      pending.push(index.search(q, 10).then((hits) => {
        assert.equal(new Set(hits.map((h) => h.id)).size, hits.length, 'no duplicates');
      }));
      pending.push(index.search(q, 5, { exact: true }));
      for (let j = 0; j < 30; j++) {
        const id = `p${Math.floor(next() * 3500)}`;
        if (next() < 0.5) index.remove(id);
        else index.upsert(id, randomUnit(dim, next));
      }
      if (round === 50) pending.push(index.snapshot(file));
      if (round % 10 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(pending);
    await index.flushApproximate();
    await index.compact();
    // settled: every ANN hit is live and scores match the stored vectors
    const q = randomUnit(dim, next);
    for (const h of await index.search(q, 20)) {
      assert.ok(index.has(h.id));
      const v = index.vectorOf(h.id) as Float32Array;
      let d = 0;
      for (let i = 0; i < dim; i++) d += v[i] * q[i];
      assert.ok(Math.abs(d - h.score) < 1e-4, `score of ${h.id}`);
    }
    // FAISS labels still name the rows of their ids after compaction moved rows: each id finds itself first
    const live = [...index.ids()].filter((_, i) => i % 7 === 0);
    for (const id of live) {
      const [best] = await index.search(index.vectorOf(id) as Float32Array, 1);
      assert.equal(best?.id, id);
    }
    const { index: loaded } = await VectorIndex.load(file, { approximate: { minRows: 1000 } });
    assert.ok(loaded.size > 0);
    loaded.close();
    index.close();
  });

  it('is searched by a pool thread itself with FAISS\'s own scores (HNSW): each hit scored exactly from the rows, writes included', async () => {
    const pool = new WorkerPool({ threads: 2 });
    try {
      const dim = 24;
      const data = clustered(3000, dim, 33);
      const index = new VectorIndex(dim, { pool, approximate: { minRows: 1000, description: 'IDMap,HNSW16_SQ8' } });
      for (const [id, v] of data) index.upsert(id, v);
      await index.flushApproximate();
      assert.equal(index.approximateState, 'ready');
      const normalised = new Map([...data].map(([id, v]) => [id, normalisedCopy(v)]));
      const next = rng(34);
      for (let i = 0; i < 10; i++) {
        const q = randomUnit(dim, next);
        const got = await index.query(q, 10);
        assert.equal(got.length, 10);
        for (const hit of got) assert.ok(Math.abs(hit.score - dot(normalised.get(hit.id)!, q)) < 1e-5, `${hit.id}: the row's own score`);
      }
      const q = randomUnit(dim, next);
      index.upsert('fresh', q);
      const [first] = await index.query(q, 1);
      assert.equal(first!.id, 'fresh');
      assert.ok(Math.abs(first!.score - 1) < 1e-5);
      index.close();
    } finally {
      await pool.close();
    }
  });

  it('is searched by a pool thread itself (query): the answers of the main thread\'s search, writes included', async () => {
    const pool = new WorkerPool({ threads: 2 });
    try {
      const dim = 24;
      const data = clustered(3000, dim, 31);
      const index = new VectorIndex(dim, { pool, approximate: { minRows: 1000, nlist: 16, nprobe: 16, description: 'IVF16,Flat' } });
      for (const [id, v] of data) index.upsert(id, v);
      await index.flushApproximate();
      assert.equal(index.approximateState, 'ready');
      const next = rng(32);
      for (let i = 0; i < 10; i++) {
        const q = randomUnit(dim, next);
        // Every list probed, float32 codes: the approximate answer is the exact one.
        const want = referenceTopK(new Map([...data].map(([id, v]) => [id, normalisedCopy(v)])), q, 11);
        const got = await index.query(q, 10, { exclude: new Set([want[0]!.id]) });
        assert.deepEqual(got.map((h) => h.id), want.slice(1).map((h) => h.id));
      }
      // Written a moment ago (FAISS has not taken it yet): in the answer all the same.
      const q = randomUnit(dim, next);
      index.upsert('fresh', q);
      assert.equal((await index.query(q, 1))[0]!.id, 'fresh');
      index.remove('fresh');
      assert.notEqual((await index.query(q, 1))[0]!.id, 'fresh');
      index.close();
    } finally {
      await pool.close();
    }
  });
});
