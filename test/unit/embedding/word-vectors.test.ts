import assert from 'node:assert/strict';
import { embedText, isZeroVector } from '../../../src/embedding/embed';
import { wordVectorModel } from '../../../src/embedding/fit';
import { deserializeModel, serializeModel } from '../../../src/embedding/serialize';
import { loadWordVectors, WORD_VECTOR_DIM, type WordVectors } from '../../../src/embedding/word-vectors';

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

describe('embedding/word-vector model', function () {
  // the first run converts the 307 MB package JSON into the binary cache (~15-40 s); later runs load it in ~1-3 s
  this.timeout(300_000);
  let wv: WordVectors;
  const model = wordVectorModel();

  before(() => {
    wv = loadWordVectors();
  });

  it('loads all 341k 100-d GloVe vectors, most frequent first', () => {
    assert.equal(wv.dim, WORD_VECTOR_DIM);
    assert.equal(wv.size, 341_479);
    assert.equal(wv.index.get('the'), 0);
    assert.equal(wv.vectors.length, wv.size * wv.dim);
    assert.ok(loadWordVectors() === wv, 'memoised per thread');
  });

  it('lives in shared memory that another thread adopts without a copy', () => {
    assert.ok(wv.vectors.buffer instanceof SharedArrayBuffer);
    assert.ok(wv.shared.words.chars.buffer instanceof SharedArrayBuffer);
    // Another cache path, so the memo of this thread does not answer: what a second worker thread does.
    const adopted = loadWordVectors('/nonexistent/adopted-from-another-thread.bin', wv.shared);
    assert.ok(adopted.vectors.buffer === wv.vectors.buffer, 'the same memory, not a copy');
    assert.equal(adopted.size, wv.size);
    for (const word of ['the', 'rocket', 'hockey']) assert.equal(adopted.index.get(word), wv.index.get(word));
  });

  it('embeds related texts closer than unrelated ones, as unit vectors', () => {
    const space = embedText(model, 'the rocket launch put a satellite in orbit', wv).vector;
    const spaceToo = embedText(model, 'NASA astronauts on the shuttle mission', wv).vector;
    const hockey = embedText(model, 'the goalie stopped the puck in overtime', wv).vector;
    assert.ok(Math.abs(dot(space, space) - 1) < 1e-5);
    assert.ok(dot(space, spaceToo) > dot(space, hockey) + 0.1, `${dot(space, spaceToo)} vs ${dot(space, hockey)}`);
  });

  it('embeds a single word, and gives zeros when no word is known', () => {
    const one = embedText(model, 'Hockey', wv);
    assert.ok(!isZeroVector(one.vector));
    assert.ok(isZeroVector(embedText(model, 'qzxqzxv zzyzzq', wv).vector));
    assert.ok(isZeroVector(embedText(model, '', wv).vector));
  });

  it('round-trips through serialisation', () => {
    const back = deserializeModel(serializeModel(model));
    assert.deepEqual(back, model);
    assert.deepEqual(embedText(back, 'orbit', wv).vector, embedText(model, 'orbit', wv).vector);
  });
});
