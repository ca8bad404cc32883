import assert from 'node:assert/strict';
import { WorkerPool } from '../../../src/pool';
import { embedBatch } from '../../../src/embedding/embed';
import { embedQuery, embedTexts, embedTextsDetailed, fitModel, EMBED_BATCH_SIZE } from '../../../src/embedding/index';
import { deserializeModel, modelInfo } from '../../../src/embedding/serialize';
import { syntheticCorpus } from './corpus';

describe('embedding/workers (embed, embed-fit)', function () {
  this.timeout(300_000);
  let pool: WorkerPool;
  const texts = syntheticCorpus(100).map((d) => d.text); // 300 texts: more than one batch below

  before(() => {
    pool = new WorkerPool({ threads: 2 });
  });
  after(() => pool.close());

  it('fits in a worker and embeds in parallel batches, identical to the in-process functions', async () => {
    const bytes = await fitModel(pool, texts, { minDocsForCorpusModel: 50, dim: 8 });
    assert.ok(bytes.buffer instanceof SharedArrayBuffer, 'model bytes are shared, not copied');
    const info = modelInfo(bytes);
    assert.equal(info.kind, 'lsa');
    assert.equal(info.dim, 8);
    const many = [...texts, ...texts].slice(0, EMBED_BATCH_SIZE + 44);
    const viaPool = await embedTextsDetailed(pool, bytes, many);
    const local = embedBatch(deserializeModel(bytes), many);
    assert.equal(viaPool.vectors.length, many.length * 8);
    assert.deepEqual(viaPool.vectors, local.vectors);
    assert.equal(viaPool.sparse.length, many.length);
    assert.deepEqual(viaPool.sparse[17]!.ids, local.sparse[17]!.ids);
    assert.deepEqual(await embedTexts(pool, bytes, many.slice(0, 3)), local.vectors.subarray(0, 24));
    assert.equal((await embedTexts(pool, bytes, [])).length, 0);
    const fromStorage = Buffer.from(bytes); // e.g. read back from disk: not shared
    assert.deepEqual(await embedTexts(pool, fromStorage, many.slice(0, 3)), local.vectors.subarray(0, 24));
    const q = await embedQuery(pool, bytes, many[4]!);
    assert.deepEqual(q.vector, local.vectors.subarray(32, 40));
    assert.deepEqual(q.sparse.weights, local.sparse[4]!.weights);
  });

  it('fits the word-vector model below the threshold and embeds with it in workers', async () => {
    const bytes = await fitModel(pool, texts.slice(0, 20));
    assert.equal(modelInfo(bytes).kind, 'word-vectors');
    const vectors = await embedTexts(pool, bytes, ['orbit rocket', 'qzxqzxv']);
    assert.equal(vectors.length, 200);
    assert.ok(vectors.subarray(0, 100).some((x) => x !== 0));
    assert.ok(vectors.subarray(100).every((x) => x === 0));
  });
});
