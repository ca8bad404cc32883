import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { defaultContentSettings, TenantContent } from '../../../src/index/content';
import { WorkerPool } from '../../../src/pool';
import { openStorage, type Storage, type TenantStore } from '../../../src/storage';
import { newsgroupTexts } from '../../helpers/invariants';

/**
 * A key's approximate index tunes its probes by asking "similar to" some of its documents, read from storage. When
 * that fails (storage or the pool unavailable for a while), the tuning is tried again after a pause, until it
 * succeeds: the key does not stay 'tuning' until its next write.
 */
describe('content index: a probe tuning that fails is tried again', function () {
  this.timeout(180_000);
  let dir: string;
  let storage: Storage;
  let pool: WorkerPool;
  let content: TenantContent | undefined;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-tuning-'));
    storage = await openStorage({ dataDir: dir, mongodbUri: undefined });
    pool = new WorkerPool({ threads: 2 });
  });
  after(async () => {
    await content?.close();
    await pool?.close();
    await storage?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('retries after a pause, longer each time, and ends tuned once storage answers again', async () => {
    const real = storage.tenant('tuning-key');
    const now = new Date().toISOString();
    for (const d of newsgroupTexts(1300)) await real.documents.insert({ ...d, meta: {}, published_at: null, created_at: now, updated_at: now });
    // Reads of documents by id fail while `failing`: only the tuning reads them here (no writes to apply).
    let failing = true;
    const failedAt: number[] = [];
    const documents = new Proxy(real.documents, {
      get(target, name) {
        if (name === 'getMany' && failing) {
          return async () => {
            failedAt.push(Date.now());
            throw new Error('storage unavailable');
          };
        }
        const value: unknown = Reflect.get(target, name);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const store = new Proxy(real, { get: (target, name) => (name === 'documents' ? documents : Reflect.get(target, name)) }) as TenantStore;
    content = new TenantContent(store, pool, { ...defaultContentSettings(dir), approximateFrom: 1000, tuneRetryMs: 200 },
      pino({ level: 'silent' }), { storedVersions: async () => ({ ids: [], updatedAt: new Float64Array(0) }) });
    await content.ready;
    const state = (): string => content!.approximateState;

    const until = Date.now() + 60_000;
    while (failedAt.length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.ok(failedAt.length >= 3, `tried ${failedAt.length} times`);
    assert.equal(state(), 'tuning');
    const pauses = failedAt.slice(1).map((t, i) => t - failedAt[i]!);
    assert.ok(pauses[0]! >= 150 && pauses[1]! >= 1.5 * pauses[0]!, `the pauses grow: ${pauses.join(', ')} ms`);

    failing = false;
    while (state() !== 'ready' && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.equal(state(), 'ready');
    assert.equal(content.isBusy, false);
    const [first] = await content.similar({ ids: ['ng-0'] }, 10, { exclude: new Set(['ng-0']) });
    assert.ok(first && first.id !== 'ng-0', 'answers from the tuned index');
  });
});
