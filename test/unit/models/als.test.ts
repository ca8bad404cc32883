import assert from 'node:assert/strict';
import { buildCsr, transposeCsr, type Csr } from '../../../src/models/als/csr';
import { InlineExecutor, PoolExecutor } from '../../../src/models/als/executor';
import { solveRange, solveRowDirect, gramRange } from '../../../src/models/als/kernels';
import { invertSpdInPlace, solveSpd } from '../../../src/models/als/linalg';
import { Rng } from '../../../src/random';
import { DEFAULT_ALS_PARAMS, trainAls, type AlsParams, type IterationReport } from '../../../src/models/als/train';
import { alsWasmModule } from '../../../src/models/als/wasm';
import { WorkerPool } from '../../../src/pool';

/** A random user x item interaction matrix with `perUser` distinct items per user. */
export function randomInteractions(users: number, items: number, perUser: number, seed: number): Csr {
  const rng = new Rng(seed);
  const rows: number[] = [];
  const cols: number[] = [];
  for (let u = 0; u < users; u++) {
    const chosen = new Set<number>();
    // two taste groups so there is structure to learn
    const base = u % 2 === 0 ? 0 : Math.floor(items / 2);
    while (chosen.size < perUser) chosen.add(rng.next() < 0.8 ? base + rng.int(Math.floor(items / 2)) : rng.int(items));
    for (const i of chosen) {
      rows.push(u);
      cols.push(i);
    }
  }
  return buildCsr({ rows: Int32Array.from(rows), cols: Int32Array.from(cols), values: new Float32Array(rows.length).fill(1) }, users, items);
}

function randomFactors(n: number, k: number, rng: Rng): Float32Array {
  const f = new Float32Array(n * k);
  for (let i = 0; i < f.length; i++) f[i] = rng.next() - 0.5;
  return f;
}

describe('models/als linear algebra', () => {
  it('inverts an SPD matrix (A A^-1 = I)', () => {
    const n = 7;
    const rng = new Rng(3);
    const m = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) m[i * n + j] = rng.next();
    const a = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
      let s = i === j ? 1 : 0;
      for (let p = 0; p < n; p++) s += m[i * n + p] * m[j * n + p];
      a[i * n + j] = s;
    }
    const inv = Float64Array.from(a);
    invertSpdInPlace(inv, n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < n; p++) s += a[i * n + p] * inv[p * n + j];
      assert.ok(Math.abs(s - (i === j ? 1 : 0)) < 1e-9, `(${i},${j}) = ${s}`);
    }
    const b = Float64Array.from({ length: n }, (_, i) => i + 1);
    const x = solveSpd(a, n, b);
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let p = 0; p < n; p++) s += a[i * n + p] * x[p];
      assert.ok(Math.abs(s - b[i]) < 1e-9);
    }
  });

  it('builds CSR with sorted columns and summed duplicates, and transposes it', () => {
    const m = buildCsr({ rows: Int32Array.from([1, 0, 1, 1, 0]), cols: Int32Array.from([2, 1, 0, 2, 0]), values: Float32Array.from([1, 2, 3, 4, 5]) }, 3, 3);
    assert.deepEqual(Array.from(m.indptr), [0, 2, 4, 4]);
    assert.deepEqual(Array.from(m.indices), [0, 1, 0, 2]);
    assert.deepEqual(Array.from(m.data), [5, 2, 3, 5]);
    const t = transposeCsr(m);
    assert.deepEqual(Array.from(t.indptr), [0, 2, 3, 4]);
    assert.deepEqual(Array.from(t.indices), [0, 1, 0, 1]);
    assert.deepEqual(Array.from(t.data), [5, 3, 2, 5]);
  });
});

describe('models/als CG solver', () => {
  it('converges to the direct least-squares solution of one row', () => {
    const k = 6;
    const rng = new Rng(11);
    const items = 30;
    const fixed = randomFactors(items, k, rng);
    const cols = Int32Array.from([1, 4, 9, 17, 22, 29]);
    const conf = Float32Array.from([3, 1, 7, 2, 0.5, 4]);
    const lambda = 0.7;
    const gram = gramRange(fixed, k, 0, items);
    const gramReg = Float64Array.from(gram);
    for (let a = 0; a < k; a++) gramReg[a * k + a] += lambda;
    const direct = solveRowDirect(fixed, k, gramReg, cols, conf);

    const target = new Float32Array(k).fill(0.01);
    solveRange({ target, fixed, indptr: Int32Array.from([0, cols.length]), indices: cols, conf, k, gram, regularization: lambda, regExponent: 0, start: 0, end: 1, cgSteps: k * 3 });
    for (let a = 0; a < k; a++) assert.ok(Math.abs(target[a] - direct[a]) < 1e-4, `component ${a}: ${target[a]} vs ${direct[a]}`);

    // three steps from a cold start already get most of the way
    const rough = new Float32Array(k);
    solveRange({ target: rough, fixed, indptr: Int32Array.from([0, cols.length]), indices: cols, conf, k, gram, regularization: lambda, regExponent: 0, start: 0, end: 1, cgSteps: 1 });
    let errRough = 0;
    for (let a = 0; a < k; a++) errRough += (rough[a] - direct[a]) ** 2;
    assert.ok(errRough > 1e-8, 'one step should not be exact on a 6-d problem');
  });
});

describe('models/als training', () => {
  const data = randomInteractions(60, 40, 8, 5);
  const params: AlsParams = { ...DEFAULT_ALS_PARAMS, factors: 8, iterations: 6, alpha: 5, regularization: 0.5, seed: 9 };

  it('is deterministic for a seed and differs for another seed', async () => {
    const a = await trainAls(data, params);
    const b = await trainAls(data, params);
    assert.deepEqual(Array.from(a.itemFactors), Array.from(b.itemFactors));
    assert.deepEqual(Array.from(a.userFactors), Array.from(b.userFactors));
    const c = await trainAls(data, { ...params, seed: 10 });
    assert.notDeepEqual(Array.from(a.itemFactors), Array.from(c.itemFactors));
  });

  it('gives the same factors in worker threads as in-thread', async function () {
    this.timeout(60_000);
    const pool = new WorkerPool({ threads: 2 });
    try {
      const inline = await trainAls(data, params, { executor: new InlineExecutor() });
      const pooled = await trainAls(data, params, { executor: new PoolExecutor(pool) });
      assert.deepEqual(Array.from(pooled.userFactors), Array.from(inline.userFactors));
      assert.deepEqual(Array.from(pooled.itemFactors), Array.from(inline.itemFactors));
    } finally {
      await pool.close();
    }
  });

  it('the WASM SIMD kernel agrees with the JS kernel', async function () {
    if (!alsWasmModule()) this.skip(); // not built: `make -C native/als`
    const wasm = await trainAls(data, params, { kernel: 'wasm' });
    const js = await trainAls(data, params, { kernel: 'js' });
    let maxDiff = 0;
    let maxAbs = 0;
    for (let i = 0; i < js.itemFactors.length; i++) {
      maxDiff = Math.max(maxDiff, Math.abs(js.itemFactors[i] - wasm.itemFactors[i]));
      maxAbs = Math.max(maxAbs, Math.abs(js.itemFactors[i]));
    }
    assert.ok(maxDiff < 1e-3 * maxAbs, `max difference ${maxDiff} (max |value| ${maxAbs})`);
    assert.notDeepEqual(Array.from(wasm.itemFactors), Array.from(js.itemFactors)); // really two different kernels
  });

  it('decreases the loss from iteration to iteration', async () => {
    const reports: IterationReport[] = [];
    await trainAls(data, { ...params, iterations: 8, cgSteps: 8 }, { computeLoss: true, onIteration: (r) => reports.push(r) });
    assert.equal(reports.length, 8);
    const losses = reports.map((r) => r.loss ?? NaN);
    for (let i = 1; i < losses.length; i++) assert.ok(losses[i] <= losses[i - 1] * (1 + 1e-6), `loss rose at ${i}: ${losses.join(', ')}`);
    assert.ok(losses[losses.length - 1] < losses[0]);
  });

  it('decreases the loss with frequency-scaled regularisation too', async () => {
    const reports: IterationReport[] = [];
    await trainAls(data, { ...params, iterations: 5, cgSteps: 8, regExponent: 0.5 }, { computeLoss: true, onIteration: (r) => reports.push(r) });
    const losses = reports.map((r) => r.loss ?? NaN);
    for (let i = 1; i < losses.length; i++) assert.ok(losses[i] <= losses[i - 1] * (1 + 1e-6), `loss rose at ${i}: ${losses.join(', ')}`);
  });

  it('learns the structure: a user scores items of its own taste group higher', async () => {
    const f = await trainAls(data, { ...params, iterations: 10 });
    const k = params.factors;
    let own = 0;
    let other = 0;
    for (let u = 0; u < 60; u++) {
      for (let i = 0; i < 40; i++) {
        let s = 0;
        for (let a = 0; a < k; a++) s += f.userFactors[u * k + a] * f.itemFactors[i * k + a];
        if ((u % 2 === 0) === i < 20) own += s;
        else other += s;
      }
    }
    assert.ok(own > 2 * other, `own ${own} other ${other}`);
  });

  it('rejects invalid hyper-parameters', async () => {
    await assert.rejects(trainAls(data, { ...params, factors: 0 }), RangeError);
    await assert.rejects(trainAls(data, { ...params, regularization: 0 }), RangeError);
  });
});
