import assert from 'node:assert/strict';
import { seededRandom } from '../../../src/random';
import { fitLsa } from '../../../src/embedding/fit';
import { rankByScore, rerankCandidates } from '../../../src/embedding/rerank';
import { packSparse, sparseDot, textToTfidf } from '../../../src/embedding/sparse';
import { denseCentroid, sparseCentroid } from '../../../src/embedding/centroid';
import { syntheticCorpus } from './corpus';

describe('embedding/rerank', () => {
  const corpus = syntheticCorpus(30);
  const model = fitLsa(corpus.map((d) => d.text), { dim: 8 });
  const candidates = corpus.slice(0, 30).map((d) => textToTfidf(model, d.text));
  const packed = packSparse(candidates);

  it('sparse TF-IDF vectors are normalised with ascending ids', () => {
    const v = candidates[0]!;
    assert.ok(Math.abs(sparseDot(v, v) - 1) < 1e-5);
    for (let i = 1; i < v.ids.length; i++) assert.ok(v.ids[i]! > v.ids[i - 1]!);
  });

  it('ranks an identical candidate first and keeps scores in [0, 1]', () => {
    const query = textToTfidf(model, corpus[7]!.text);
    const scores = rerankCandidates(query, packed);
    assert.equal(scores.length, candidates.length);
    for (const s of scores) assert.ok(s >= 0 && s <= 1);
    assert.equal(rankByScore(scores)[0], 7);
  });

  it('ranks candidates of the query topic above the others', () => {
    const query = textToTfidf(model, 'orbit rocket launch');
    const ranked = rankByScore(rerankCandidates(query, packed));
    const top = ranked.slice(0, 5).map((i) => corpus[i]!.topic);
    assert.deepEqual(top, ['space', 'space', 'space', 'space', 'space']);
  });

  it('with no feedback equals the plain cosine; feedback changes the scores', () => {
    const query = textToTfidf(model, 'goal puck the and');
    const plain = rerankCandidates(query, packed, { feedbackDocs: 0 });
    candidates.forEach((c, i) => assert.ok(Math.abs(plain[i]! - sparseDot(query, c)) < 1e-6));
    const withFeedback = rerankCandidates(query, packed);
    assert.notDeepEqual(Array.from(withFeedback), Array.from(plain));
  });

  it('matches the formula computed directly with sparse dot products', () => {
    const query = textToTfidf(model, 'encryption key puck orbit');
    const dense = Float32Array.from(candidates, (_, i) => (i % 7) / 7);
    const scores = rerankCandidates(query, packed, { denseScores: dense });
    const direct = candidates.map((c) => sparseDot(query, c));
    const top3 = direct.map((s, i) => [s, i] as const).sort((x, y) => y[0] - x[0] || x[1] - y[1]).slice(0, 3).map(([, i]) => candidates[i]!);
    candidates.forEach((c, i) => {
      const fb = top3.reduce((s, f) => s + sparseDot(f, c), 0) / 3;
      const expected = (direct[i]! + 2 * fb + 0.6 * dense[i]!) / 3.6;
      assert.ok(Math.abs(scores[i]! - expected) < 1e-5, `candidate ${i}: ${scores[i]} vs ${expected}`);
    });
  });

  it('adds dense pseudo-relevance feedback from the candidates\' rows', () => {
    const query = textToTfidf(model, 'orbit rocket launch');
    const dim = 2;
    const rows = new Float32Array(candidates.length * dim);
    candidates.forEach((_, i) => rows.set(i % 3 === 0 ? [1, 0] : [0, 1], i * dim)); // corpus order is space, hockey, crypto
    const plain = rerankCandidates(query, packed);
    const withRows = rerankCandidates(query, packed, { candidateVectors: rows, denseFeedbackWeight: 1 });
    const direct = candidates.map((c) => sparseDot(query, c));
    const top3 = direct.map((s, i) => [s, i] as const).sort((x, y) => y[0] - x[0] || x[1] - y[1]).slice(0, 3).map(([, i]) => i);
    const meanRow = [0, 1].map((j) => top3.reduce((s, f) => s + rows[f * dim + j]!, 0) / 3);
    candidates.forEach((_, i) => {
      const denseFb = meanRow[0]! * rows[i * dim]! + meanRow[1]! * rows[i * dim + 1]!;
      const expected = (plain[i]! * 3 + denseFb) / 4;
      assert.ok(Math.abs(withRows[i]! - expected) < 1e-5, `candidate ${i}: ${withRows[i]} vs ${expected}`);
    });
    assert.throws(() => rerankCandidates(query, packed, { candidateVectors: new Float32Array(7) }), /one row per candidate/);
    // The same feedback computed where the vectors are (a pool thread's kernel), told the feedback positions.
    const told: number[][] = [];
    const byCallback = rerankCandidates(query, packed, {
      denseFeedbackWeight: 1,
      denseFeedbackOf: (positions) => {
        told.push([...positions]);
        const mean = [0, 1].map((j) => positions.reduce((s, f) => s + rows[f * dim + j]!, 0) / positions.length);
        return Float32Array.from(candidates, (_, i) => mean[0]! * rows[i * dim]! + mean[1]! * rows[i * dim + 1]!);
      },
    });
    assert.deepEqual(told, [top3]);
    assert.deepEqual(byCallback, withRows);
  });

  it('reads candidates\' terms in place (spans into shared arrays) as it reads them packed', () => {
    const query = textToTfidf(model, 'orbit rocket launch');
    // The packed terms behind some unrelated ones, each candidate's span moved by that much.
    const shift = 5;
    const ids = new Uint32Array(packed.ids.length + shift);
    const weights = new Float32Array(packed.weights.length + shift);
    ids.set(packed.ids, shift);
    weights.set(packed.weights, shift);
    const n = packed.offsets.length - 1;
    const spans = {
      starts: Uint32Array.from(packed.offsets.subarray(0, n), (o) => o + shift),
      ends: Uint32Array.from(packed.offsets.subarray(1), (o) => o + shift),
      ids, weights,
    };
    assert.deepEqual(rerankCandidates(query, spans), rerankCandidates(query, packed));
  });

  it('blends dense scores when given and checks their length', () => {
    const query = textToTfidf(model, 'encryption key');
    const dense = new Float32Array(candidates.length).fill(0);
    dense[5] = 1;
    const a = rerankCandidates(query, packed, { denseScores: dense, feedbackDocs: 0 });
    const b = rerankCandidates(query, packed, { feedbackDocs: 0 });
    assert.ok(a[5]! > b[5]! / 1.6, 'the dense score lifts candidate 5');
    assert.throws(() => rerankCandidates(query, packed, { denseScores: new Float32Array(2) }), /one score per candidate/);
  });

  it('handles an empty candidate list and an empty query', () => {
    assert.equal(rerankCandidates(textToTfidf(model, 'orbit'), packSparse([])).length, 0);
    const scores = rerankCandidates(textToTfidf(model, ''), packed);
    for (const s of scores) assert.ok(s >= 0 && s <= 1);
  });

  it('builds normalised centroid queries for several documents', () => {
    const c = sparseCentroid([candidates[0]!, candidates[1]!]);
    assert.ok(Math.abs(sparseDot(c, c) - 1) < 1e-5);
    for (let i = 1; i < c.ids.length; i++) assert.ok(c.ids[i]! > c.ids[i - 1]!);
    assert.ok(sparseDot(c, candidates[0]!) > sparseDot(candidates[1]!, candidates[0]!), 'closer to each member than the members are to each other');
    assert.equal(sparseCentroid([]).ids.length, 0);
    const d = denseCentroid([Float32Array.from([1, 0]), Float32Array.from([0, 1])], 2);
    assert.ok(Math.abs(d[0]! - Math.SQRT1_2) < 1e-6 && Math.abs(d[1]! - Math.SQRT1_2) < 1e-6);
    assert.deepEqual(denseCentroid([Float32Array.from([1, 0]), Float32Array.from([-1, 0])], 2), new Float32Array(2));
  });

  it('sums a sparse centroid as a map of sums in first-appearance order did, to the bit, twice in a row', () => {
    const random = seededRandom(5);
    const vectors = Array.from({ length: 12 }, () => {
      const ids = Uint32Array.from(new Set(Array.from({ length: 80 }, () => Math.floor(random() * 3000)))).sort();
      return { ids, weights: Float32Array.from(ids, () => random()) };
    });
    const sums = new Map<number, number>();
    for (const v of vectors) v.ids.forEach((id, k) => sums.set(id, (sums.get(id) ?? 0) + v.weights[k]!));
    const norm = Math.sqrt([...sums.values()].reduce((acc, w) => acc + w * w, 0));
    const ids = Uint32Array.from(sums.keys()).sort();
    const expected = { ids, weights: Float32Array.from(ids, (id) => sums.get(id)! / norm) };
    assert.deepEqual(sparseCentroid(vectors), expected);
    // The scratch is left clean: the same documents give the same query again.
    assert.deepEqual(sparseCentroid(vectors), expected);
  });
});

