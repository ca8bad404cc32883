import assert from 'node:assert/strict';
import { embedBatch, embedText, isZeroVector } from '../../../src/embedding/embed';
import { fitLsa, fitModel } from '../../../src/embedding/fit';
import { seededRandom } from '../../../src/random';
import { MIN_DOCS_FOR_CORPUS_MODEL, type LsaModel } from '../../../src/embedding/model';
import { ModelCache } from '../../../src/embedding/model-cache';
import { deserializeModel, modelInfo, serializeModel } from '../../../src/embedding/serialize';
import { Vocabulary } from '../../../src/embedding/vocabulary';
import { syntheticCorpus } from './corpus';

function norm(v: Float32Array): number {
  let s = 0;
  for (const x of v) s += x * x;
  return Math.sqrt(s);
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** The layout version 2 wrote: header, the terms joined by '\n' in UTF-8, then idf, projection, singular values. */
function version2Bytes(model: LsaModel): Uint8Array {
  const terms = Array.from({ length: model.vocabulary.size }, (_, i) => model.vocabulary.term(i));
  const termsBytes = Buffer.from(terms.join('\n'), 'utf8');
  const arrays = [model.idf, model.projection, model.singularValues];
  const header = Buffer.from(JSON.stringify({
    kind: 'lsa', id: model.id, dim: model.dim, fittedDocs: model.fittedDocs, language: model.language, terms: terms.length,
    termsBytes: termsBytes.length, arrays: [{ name: 'idf', length: model.idf.length }, { name: 'projection', length: model.projection.length },
      { name: 'singularValues', length: model.singularValues.length }],
  }));
  const pad = (b: Buffer): Buffer => Buffer.concat([b, Buffer.alloc((8 - (b.length % 8)) % 8)]);
  const prefix = Buffer.alloc(12);
  prefix.write('KEMB', 0, 'latin1');
  prefix.writeUInt32LE(2, 4);
  prefix.writeUInt32LE(header.length, 8);
  return new Uint8Array(Buffer.concat([pad(Buffer.concat([prefix, header])), pad(termsBytes),
    ...arrays.map((a) => pad(Buffer.from(a.buffer, a.byteOffset, a.byteLength)))]));
}

describe('embedding/lsa model', () => {
  const corpus = syntheticCorpus(40); // 120 documents: below the corpus-model threshold
  const texts = corpus.map((d) => d.text);
  let model: LsaModel;

  before(() => {
    model = fitLsa(texts, { dim: 16 });
  });

  it('has the dimension asked for, or the corpus rank when that is smaller', () => {
    assert.equal(model.dim, 16);
    assert.equal(model.projection.length, model.vocabulary.size * 16);
    const tiny = fitLsa(texts.slice(0, 6), { dim: 16, minDf: 1 });
    assert.equal(tiny.dim, 6);
    assert.equal(embedText(tiny, texts[0]!).vector.length, 6);
  });

  it('produces L2-normalised vectors', () => {
    for (const t of texts.slice(0, 20)) assert.ok(Math.abs(norm(embedText(model, t).vector) - 1) < 1e-5);
  });

  it('is deterministic: same corpus → same model bytes and id; same text → same vector', () => {
    const again = fitLsa(texts, { dim: 16 });
    assert.equal(again.id, model.id);
    assert.deepEqual(Buffer.from(serializeModel(again)), Buffer.from(serializeModel(model)));
    assert.deepEqual(embedText(model, texts[3]!).vector, embedText(again, texts[3]!).vector);
    assert.notEqual(fitLsa(texts.slice(1), { dim: 16 }).id, model.id, 'a different corpus gives a different id');
  });

  it('log-entropy weighting: the projection carries it, the second stage\'s terms stay idf-weighted (issue 32)', () => {
    const entropyBoth = fitLsa(texts, { dim: 8, weighting: 'log-entropy', sparseWeighting: 'log-entropy' });
    const entropyDense = fitLsa(texts, { dim: 8, weighting: 'log-entropy' });
    const idf = fitLsa(texts, { dim: 8 });
    assert.deepEqual(entropyDense.idf, idf.idf, 'the sparse terms keep idf');
    assert.notDeepEqual(entropyBoth.idf, idf.idf);
    // A term in every document weighs nothing in log-entropy, so the weights are not idf's in another scale.
    for (const t of texts.slice(0, 10)) {
      const a = embedText(entropyBoth, t).vector;
      const b = embedText(entropyDense, t).vector;
      assert.ok(dot(a, b) > 1 - 1e-4, `same dense vector from idf-weighted terms: ${dot(a, b)}`);
      assert.ok(Math.abs(norm(b) - 1) < 1e-5);
    }
    assert.ok(texts.slice(0, 10).some((t) => dot(embedText(idf, t).vector, embedText(entropyDense, t).vector) < 0.999), 'idf and log-entropy projections differ');
  });

  it('short texts: the shape check projects on the singular vectors unscaled (textbook LSA), longer texts by σ^-0.5 (issue 32)', () => {
    const shortTexts = texts.map((t) => t.split(/\s+/).slice(0, 12).join(' '));
    const short = fitLsa(shortTexts);
    const long = fitLsa(texts.map((t) => `${t} ${t} ${t} ${t} ${t}`));
    assert.ok(short.shape!.check!.medianTerms < short.shape!.check!.longTextTerms, JSON.stringify(short.shape));
    assert.ok(long.shape!.check!.medianTerms >= long.shape!.check!.longTextTerms, JSON.stringify(long.shape));
    assert.equal(short.shape!.singularValueExponent, 1);
    assert.equal(long.shape!.singularValueExponent, 0.5);
    // 120 documents: too few for the second stage, so long texts too keep the one-iteration SVD (4 with it: model-shape.test)
    assert.equal(short.shape!.powerIterations, 1);
    assert.equal(long.shape!.powerIterations, 1);
    const settled = fitLsa(shortTexts, { powerIterations: 4 });
    assert.equal(settled.shape!.powerIterations, 4);
    assert.notEqual(settled.id, short.id, 'the iterations are part of the id');
    // Without the second stage the terms stay idf-weighted whatever the length (log-entropy from ENTROPY_TERMS_FROM with it).
    assert.equal(long.shape!.sparseWeighting, 'sublinear-tfidf');
    const entropyTerms = fitLsa(shortTexts, { sparseWeighting: 'log-entropy' });
    assert.equal(entropyTerms.shape!.sparseWeighting, 'log-entropy');
    assert.notEqual(entropyTerms.id, short.id, 'the terms\' weighting is part of the id');
    assert.notDeepEqual(Array.from(entropyTerms.idf), Array.from(short.idf));
    assert.equal(fitLsa(shortTexts, { dim: 8 }).shape!.singularValueExponent, undefined, 'dimensions asked for: the size rule, σ^-0.5');
    // The same fit with σ^-0.5 asked for: the same singular vectors, column j scaled by σⱼ^-0.5, and another id.
    const scaled = fitLsa(shortTexts, { singularValueExponent: 0.5 });
    assert.equal(scaled.shape!.singularValueExponent, 0.5);
    assert.equal(scaled.dim, short.dim);
    assert.notEqual(scaled.id, short.id);
    for (let j = 0; j < short.dim; j++) {
      const sigma = short.singularValues[j]!;
      for (let t = 0; t < short.vocabulary.size; t += 7) {
        const expected = short.projection[t * short.dim + j]! * Math.pow(sigma, -0.5);
        assert.ok(Math.abs(scaled.projection[t * short.dim + j]! - expected) <= 1e-5 * (1 + Math.abs(expected)), `term ${t}, component ${j}`);
      }
    }
  });

  it('short texts rank by the dense score alone at 96 dimensions from 4,000 documents (issue 32)', function () {
    this.timeout(120_000);
    // 4,200 one-line texts over 3,000 made-up words (letters only, so each is one analysed term): many documents, short texts.
    const rand = seededRandom(3);
    const word = (n: number): string => Array.from({ length: 4 }, (_, i) => 'bcdfghjklmnprstvz'[Math.floor(n / 17 ** i) % 17]).join('') + 'a';
    const oneLiners = Array.from({ length: 4200 }, () => Array.from({ length: 10 }, () => word(Math.floor(rand() * 3000))).join(' '));
    const fitted = fitLsa(oneLiners);
    assert.ok(fitted.shape!.check!.medianTerms < fitted.shape!.check!.longTextTerms, JSON.stringify(fitted.shape));
    assert.equal(fitted.shape!.secondStage, false);
    assert.equal(fitted.dim, 96, 'not 64, as keys of 4,000 documents and more had before');
    assert.equal(fitted.shape!.dim, fitted.dim);
  });

  it('places same-topic texts closer than other-topic texts', () => {
    // 3 topics: only the top 4 components carry signal here, the rest is sampling noise
    const model = fitLsa(texts, { dim: 4 });
    const space = embedText(model, 'the rocket launch put a satellite in orbit').vector;
    const spaceToo = embedText(model, 'nasa shuttle mission with astronaut and payload').vector;
    const hockey = embedText(model, 'the team scored a goal with the puck in the playoff').vector;
    assert.ok(dot(space, spaceToo) > dot(space, hockey) + 0.2, `${dot(space, spaceToo)} vs ${dot(space, hockey)}`);
  });

  it('embeds one-word texts to a non-zero unit vector, and unknown or empty texts to a zero vector', () => {
    const one = embedText(model, 'Rockets!');
    assert.ok(Math.abs(norm(one.vector) - 1) < 1e-5);
    assert.equal(one.sparse.ids.length, 1);
    for (const t of ['', '   ', 'zzzq qqxv', '12345']) {
      const e = embedText(model, t);
      assert.ok(isZeroVector(e.vector), `"${t}" should embed to zeros`);
      assert.equal(e.sparse.ids.length, 0);
    }
  });

  it('embeds a batch into rows equal to one-by-one embedding', () => {
    const batch = embedBatch(model, texts.slice(0, 5));
    assert.equal(batch.vectors.length, 5 * 16);
    for (let i = 0; i < 5; i++) assert.deepEqual(batch.vectors.subarray(i * 16, (i + 1) * 16), embedText(model, texts[i]!).vector);
  });

  it('keeps decoded models per thread until the thread\'s caches are emptied', () => {
    const bytes = serializeModel(model);
    const cache = new ModelCache();
    const first = cache.get(bytes);
    assert.equal(cache.get(bytes), first);
    ModelCache.clearAll();
    const again = cache.get(bytes);
    assert.notEqual(again, first);
    assert.deepEqual(embedText(again, texts[0]!).vector, embedText(first, texts[0]!).vector);
  });

  it('round-trips through serialisation with identical embeddings', () => {
    const bytes = serializeModel(model);
    assert.ok(bytes.buffer instanceof SharedArrayBuffer);
    const info = modelInfo(bytes);
    assert.deepEqual({ kind: info.kind, id: info.id, dim: info.dim, version: info.version }, { kind: 'lsa', id: model.id, dim: 16, version: 3 });
    const back = deserializeModel(bytes);
    assert.equal(back.kind, 'lsa');
    for (const t of texts.slice(0, 10)) assert.deepEqual(embedText(back, t).vector, embedText(model, t).vector);
    // a copy in an ordinary (unaligned) buffer decodes too
    const copy = Buffer.concat([Buffer.from([0]), Buffer.from(bytes)]).subarray(1);
    assert.deepEqual(embedText(deserializeModel(copy), texts[0]!).vector, embedText(model, texts[0]!).vector);
  });

  it('reads a version-2 model (its terms as UTF-8) with identical embeddings', () => {
    const back = deserializeModel(version2Bytes(model));
    assert.equal(modelInfo(version2Bytes(model)).version, 2);
    for (const t of texts.slice(0, 10)) assert.deepEqual(embedText(back, t).vector, embedText(model, t).vector);
    const empty: LsaModel = { ...model, dim: 1, vocabulary: Vocabulary.build([]), idf: new Float32Array(0), projection: new Float32Array(0), singularValues: new Float32Array(1) };
    assert.equal((deserializeModel(version2Bytes(empty)) as LsaModel).vocabulary.size, 0, 'a version-2 model without terms reads too');
  });

  it('rejects corrupt or foreign bytes', () => {
    assert.throws(() => deserializeModel(new Uint8Array(8)), /not a serialized embedding model/);
    const bytes = Buffer.from(serializeModel(model));
    bytes.writeUInt32LE(99, 4);
    assert.throws(() => deserializeModel(bytes), /format 99/);
    const truncated = Buffer.from(serializeModel(model)).subarray(0, 2000);
    assert.throws(() => deserializeModel(truncated));
  });

  it('fitModel picks the word-vector model below the corpus threshold', () => {
    assert.equal(fitModel(texts).kind, 'word-vectors');
    assert.ok(texts.length < MIN_DOCS_FOR_CORPUS_MODEL);
    assert.equal(fitModel(texts, { minDocsForCorpusModel: 10, dim: 8 }).kind, 'lsa');
  });
});
