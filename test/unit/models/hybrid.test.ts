import assert from 'node:assert/strict';
import { Rng } from '../../../src/random';
import { DEFAULT_ALS_PARAMS } from '../../../src/models/als/train';
import { fitContentMap, mapContent } from '../../../src/models/hybrid/content-map';
import { MetricsAccumulator, splitPerUser } from '../../../src/models/hybrid/evaluate';
import type { HybridModel, HybridParams } from '../../../src/models/hybrid/model';
import { buildCsr } from '../../../src/models/als/csr';
import { invertSpdInPlace } from '../../../src/models/als/linalg';
import { easeFromInverse, itemGram } from '../../../src/models/hybrid/item-item';
import { evaluateHoldout } from '../../../src/models/hybrid/holdout';
import { HybridRecommender } from '../../../src/models/hybrid/recommender';
import { deserialiseModel, serialiseModel } from '../../../src/models/hybrid/serialise';
import { topK } from '../../../src/models/hybrid/topk';
import { DEFAULT_HYBRID_PARAMS, interactionsFromPairs, trainHybrid, type ContentVectors } from '../../../src/models/hybrid/train';
import { WorkerPool } from '../../../src/pool';

const DIM = 4;

/** 40 users, 30 documents in two taste groups (d0..d14, d15..d29); content vectors say which group a document is in. */
function fixture(): { pairs: Array<[string, string]>; content: ContentVectors } {
  const rng = new Rng(21);
  const pairs: Array<[string, string]> = [];
  for (let u = 0; u < 40; u++) {
    const group = u % 2;
    const chosen = new Set<number>();
    while (chosen.size < 6) chosen.add(rng.next() < 0.9 ? group * 15 + rng.int(15) : rng.int(30));
    // everyone likes d0/d15 (their group's "hit") so popularity has a signal
    chosen.add(group * 15);
    for (const i of chosen) pairs.push([`u${u}`, `d${i}`]);
  }
  const ids = Array.from({ length: 32 }, (_, i) => `d${i}`); // d30, d31: never interacted with (cold)
  const vectors = new Float32Array(ids.length * DIM);
  ids.forEach((_, i) => {
    const group = i === 30 ? 0 : i === 31 ? 1 : i < 15 ? 0 : 1;
    const v = [group === 0 ? 1 : 0.1, group === 1 ? 1 : 0.1, rng.next() * 0.2, rng.next() * 0.2];
    const n = Math.hypot(...v);
    v.forEach((x, a) => (vectors[i * DIM + a] = x / n));
  });
  return { pairs, content: { ids, vectors, dim: DIM } };
}

const PARAMS: HybridParams = {
  ...DEFAULT_HYBRID_PARAMS,
  als: { ...DEFAULT_ALS_PARAMS, factors: 6, iterations: 10, alpha: 5, regularization: 0.5, regExponent: 0 },
  itemItemLambda: 5,
  contentRidge: 0.1,
  weights: { factor: 1, itemItem: 1, content: 0.2, popularity: 0.1 },
};

async function trained(): Promise<{ model: HybridModel; content: ContentVectors; pairs: Array<[string, string]> }> {
  const { pairs, content } = fixture();
  const model = await trainHybrid(interactionsFromPairs(pairs), PARAMS, { content });
  return { model, content, pairs };
}

function groupOf(id: string): number {
  const i = Number(id.slice(1));
  if (i === 30) return 0;
  if (i === 31) return 1;
  return i < 15 ? 0 : 1;
}

describe('models/hybrid top-k and metrics', () => {
  it('topK returns the best scores in order, honouring skip and candidates', () => {
    const rng = new Rng(1);
    const scores = Float64Array.from({ length: 200 }, () => rng.next());
    const skip = new Uint8Array(200);
    for (let i = 0; i < 200; i += 3) skip[i] = 1;
    const expected = Array.from(scores.keys()).filter((i) => !skip[i]).sort((a, b) => scores[b] - scores[a]).slice(0, 7);
    assert.deepEqual(Array.from(topK(scores, 7, skip)), expected);
    const cand = Int32Array.from([5, 6, 7, 8]);
    const exp2 = [5, 7, 8].sort((a, b) => scores[b] - scores[a]);
    assert.deepEqual(Array.from(topK(scores, 10, skip, cand)), exp2);
  });

  it('computes P@k, NDCG@k and MAP@k', () => {
    const acc = new MetricsAccumulator(4);
    acc.add([1, 9, 2, 8], new Set([1, 2]));
    const r = acc.result();
    assert.equal(r.precision, 0.5);
    assert.ok(Math.abs(r.ndcg - (1 + 1 / Math.log2(4)) / (1 + 1 / Math.log2(3))) < 1e-12);
    assert.ok(Math.abs(r.map - (1 + 2 / 3) / 2) < 1e-12);
  });

  it('splits each user with about a quarter held out and nothing lost', () => {
    const users = [Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8]), Int32Array.from([4])];
    const { train, test } = splitPerUser(users, 0.25, 1);
    assert.equal(test[0].length, 2);
    assert.equal(train[1].length, 1);
    assert.deepEqual([...train[0], ...test[0]].sort(), [1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe('models/hybrid recommender', () => {
  it('recommends unseen documents of the user taste group, and seen ones only when unseenOnly is false', async () => {
    const { model, content, pairs } = await trained();
    const rec = new HybridRecommender(model);
    rec.attachContent(content);
    const seen = new Set(pairs.filter(([u]) => u === 'u0').map(([, d]) => d));
    const ans = await rec.recommendForUser({ userId: 'u0', number: 5 });
    assert.equal(ans.results.length, 5);
    assert.deepEqual(ans.recognisedUser, { id: 'u0', recognised: true });
    for (const r of ans.results) assert.ok(!seen.has(r.id), `${r.id} was seen`);
    assert.ok(ans.results.filter((r) => groupOf(r.id) === 0).length >= 4, JSON.stringify(ans.results));
    for (let j = 1; j < ans.results.length; j++) assert.ok(ans.results[j - 1].score >= ans.results[j].score);
    const withSeen = await rec.recommendForUser({ userId: 'u0', number: 30, unseenOnly: false });
    assert.ok(withSeen.results.some((r) => seen.has(r.id)));
  });

  it('applies select_from and exclude', async () => {
    const { model } = await trained();
    const rec = new HybridRecommender(model);
    const pick = ['d1', 'd2', 'd16', 'd17', 'unknown-doc'];
    const ans = await rec.recommendForUser({ userId: 'u1', number: 10, selectFrom: pick, exclude: ['d16'], unseenOnly: false });
    const ids = ans.results.map((r) => r.id).sort();
    assert.deepEqual(ids, ['d1', 'd17', 'd2']);
    const sim = await rec.similarToDocuments({ documentIds: ['d3'], number: 10, selectFrom: ['d3', 'd4', 'd20'], exclude: ['d20'] });
    assert.deepEqual(sim.results.map((r) => r.id), ['d4']);
    assert.deepEqual(sim.recognisedDocuments, [{ id: 'd3', recognised: true }]);
    const pop = await rec.popular({ number: 3, exclude: ['d0'] });
    assert.equal(pop.length, 3);
    assert.ok(!pop.some((r) => r.id === 'd0'));
    assert.equal(pop[0].id, 'd15'); // the other group's hit is now the most popular
  });

  it('similar documents come from the same taste group', async () => {
    const { model } = await trained();
    const rec = new HybridRecommender(model);
    const ans = await rec.similarToDocuments({ documentIds: ['d20', 'd21'], number: 6 });
    assert.ok(!ans.results.some((r) => r.id === 'd20' || r.id === 'd21'));
    assert.ok(ans.results.filter((r) => groupOf(r.id) === 1).length >= 5, JSON.stringify(ans.results));
  });

  it('falls back to popularity for a user with nothing', async () => {
    const { model } = await trained();
    const rec = new HybridRecommender(model);
    const ans = await rec.recommendForUser({ userId: 'stranger', number: 2 });
    assert.deepEqual(ans.recognisedUser, { id: 'stranger', recognised: false });
    assert.deepEqual(ans.results.map((r) => r.id).sort(), ['d0', 'd15']);
  });

  it('folds in a user the model never saw from their preferences', async () => {
    const { model } = await trained();
    const rec = new HybridRecommender(model);
    const prefs = ['d16', 'd18', 'd19', 'd22', 'd25'];
    const x = rec.foldIn(prefs);
    assert.ok(x);
    // the fold-in solves the normal equations (Y^T C Y + lambda I) x = Y^T C p
    const k = model.k;
    const idx = prefs.map((id) => model.itemIds.indexOf(id));
    const alpha = model.params.als.alpha;
    const lambda = model.params.als.regularization;
    for (let a = 0; a < k; a++) {
      let lhs = lambda * x[a];
      for (let b = 0; b < k; b++) lhs += model.itemGram[a * k + b] * x[b];
      let rhs = 0;
      for (const i of idx) {
        let dot = 0;
        for (let b = 0; b < k; b++) dot += model.itemFactors[i * k + b] * x[b];
        lhs += alpha * dot * model.itemFactors[i * k + a];
        rhs += (1 + alpha) * model.itemFactors[i * k + a];
      }
      assert.ok(Math.abs(lhs - rhs) < 1e-3 * (1 + Math.abs(rhs)), `row ${a}: ${lhs} vs ${rhs}`);
    }
    const ans = await rec.recommendForUser({ userId: 'new-user', preferences: prefs, number: 5 });
    assert.deepEqual(ans.recognisedUser, { id: 'new-user', recognised: false });
    assert.ok(!ans.results.some((r) => prefs.includes(r.id)));
    assert.ok(ans.results.filter((r) => groupOf(r.id) === 1).length >= 4, JSON.stringify(ans.results));
  });

  it('maps cold documents to factors from their content and can recommend them', async () => {
    const { model, content } = await trained();
    assert.ok(model.contentMap);
    const rec = new HybridRecommender(model);
    assert.equal(rec.knowsDocument('d31'), false);
    rec.attachContent(content);
    assert.equal(rec.knowsDocument('d31'), true);
    // restricted to the two cold documents, a group-1 user prefers the group-1 cold document
    for (const user of ['u1', 'u3', 'u5']) {
      const ans = await rec.recommendForUser({ userId: user, number: 2, selectFrom: ['d30', 'd31'] });
      assert.equal(ans.results[0].id, 'd31', `${user}: ${JSON.stringify(ans.results)}`);
    }
    for (const user of ['u0', 'u2', 'u4']) {
      const ans = await rec.recommendForUser({ userId: user, number: 2, selectFrom: ['d30', 'd31'] });
      assert.equal(ans.results[0].id, 'd30', `${user}: ${JSON.stringify(ans.results)}`);
    }
  });

  it('fits the content map: recovers a linear map from content to factors', () => {
    const rng = new Rng(8);
    const dim = 5;
    const k = 3;
    const n = 50;
    const w = Float32Array.from({ length: dim * k }, () => rng.next() - 0.5);
    const c = Float32Array.from({ length: n * dim }, () => rng.next() - 0.5);
    const y = new Float32Array(n * k);
    for (let r = 0; r < n; r++) mapContent({ dim, k, weights: w }, c.subarray(r * dim, (r + 1) * dim), y, r * k);
    const fitted = fitContentMap(c, dim, Int32Array.from({ length: n }, (_, i) => i), y, k, 1e-6);
    for (let j = 0; j < w.length; j++) assert.ok(Math.abs(fitted.weights[j] - w[j]) < 1e-3, `${j}: ${fitted.weights[j]} vs ${w[j]}`);
  });

  it('answers without a model: content similarity, nothing recognised', async () => {
    const { content } = fixture();
    const rec = new HybridRecommender(null, { weights: DEFAULT_HYBRID_PARAMS.weights });
    rec.attachContent(content);
    const ans = await rec.similarToDocuments({ documentIds: ['d2'], userId: 'u0', number: 5 });
    assert.deepEqual(ans.recognisedUser, { id: 'u0', recognised: false });
    assert.equal(ans.results.length, 5);
    assert.ok(ans.results.every((r) => groupOf(r.id) === 0), JSON.stringify(ans.results));
    rec.setPopularity(new Map([['d7', 3], ['d9', 10]]));
    const pop = await rec.popular({ number: 2 });
    assert.deepEqual(pop.map((r) => r.id), ['d9', 'd7']);
  });

  it('scores the same in a worker thread as in-thread', async function () {
    this.timeout(60_000);
    const { model, content } = await trained();
    const pool = new WorkerPool({ threads: 1 });
    try {
      const inline = new HybridRecommender(model);
      inline.attachContent(content);
      const pooled = new HybridRecommender(model, { runner: pool, workerThreshold: 0 });
      pooled.attachContent(content);
      const a = await inline.recommendForUser({ userId: 'u3', number: 8 });
      const b = await pooled.recommendForUser({ userId: 'u3', number: 8 });
      assert.deepEqual(b.results, a.results);
    } finally {
      await pool.close();
    }
  });
});

describe('models/hybrid serialisation', () => {
  it('round-trips a model: same arrays, ids, params and recommendations', async () => {
    const { model, content } = await trained();
    const buf = serialiseModel(model);
    const back = deserialiseModel(buf);
    assert.deepEqual(back.userIds, model.userIds);
    assert.deepEqual(back.itemIds, model.itemIds);
    assert.deepEqual(back.params, model.params);
    assert.deepEqual(back.metrics, model.metrics);
    assert.equal(back.trainedAt, model.trainedAt);
    assert.deepEqual(Array.from(back.userFactors), Array.from(model.userFactors));
    assert.deepEqual(Array.from(back.itemFactors), Array.from(model.itemFactors));
    assert.deepEqual(Array.from(back.itemItem), Array.from(model.itemItem));
    assert.deepEqual(Array.from(back.itemGram), Array.from(model.itemGram));
    assert.deepEqual(Array.from(back.userItems.indices), Array.from(model.userItems.indices));
    assert.deepEqual(Array.from(back.contentMap?.weights ?? []), Array.from(model.contentMap?.weights ?? [1]));
    assert.ok(back.userFactors.buffer instanceof SharedArrayBuffer);
    const r1 = new HybridRecommender(model);
    r1.attachContent(content);
    const r2 = new HybridRecommender(back);
    r2.attachContent(content);
    assert.deepEqual((await r2.recommendForUser({ userId: 'u5', number: 6 })).results, (await r1.recommendForUser({ userId: 'u5', number: 6 })).results);
  });

  it('refuses bytes that are not a model', () => {
    assert.throws(() => deserialiseModel(Buffer.from('hello world, not a model')), /not a Kindred hybrid model/);
  });
});

describe('models/hybrid held-out evaluation', () => {
  it('scores a learnable fixture far above chance', async () => {
    const { pairs } = fixture();
    const m = await evaluateHoldout(interactionsFromPairs(pairs), PARAMS, { k: 3 });
    assert.equal(m.users, 40);
    // 2 of ~7 items per user held out among ~23 unseen candidates: chance P@3 is about 0.09
    assert.ok(m.precision > 0.2, JSON.stringify(m));
  });
});

describe('models/hybrid EASE item-item weights', () => {
  it('satisfies the closed form: zero diagonal and G B = G - diag(1 / diag(G^-1))', () => {
    const { pairs } = fixture();
    const data = interactionsFromPairs(pairs);
    const csr = buildCsr({ rows: data.users, cols: data.items, values: new Float32Array(data.users.length).fill(1) }, data.userIds.length, data.itemIds.length);
    const n = csr.cols;
    const lambda = 3;
    const g = itemGram(csr, lambda);
    const p = Float64Array.from(g);
    invertSpdInPlace(p, n);
    const b = easeFromInverse(Float64Array.from(p), n);
    for (let i = 0; i < n; i++) assert.equal(b[i * n + i], 0);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let q = 0; q < n; q++) s += g[i * n + q] * b[q * n + j];
        const expected = g[i * n + j] - (i === j ? 1 / p[i * n + i] : 0);
        assert.ok(Math.abs(s - expected) < 1e-3 * (1 + Math.abs(expected)), `(${i},${j}): ${s} vs ${expected}`);
      }
    }
  });
});
