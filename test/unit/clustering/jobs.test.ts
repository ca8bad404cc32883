import assert from 'node:assert/strict';
import pino from 'pino';
import { BusyError } from '../../../src/errors';
import { JobRunner, JOBS_NAMESPACE, type JobRecord } from '../../../src/jobs/runner';
import type { KeyValueTable, Storage, TenantStore } from '../../../src/storage';

/** Just the parts of Storage the job runner uses: key records (for tenants) and per-tenant values. */
function memoryStorage(tenants: string[]) {
  const tables = new Map<string, Map<string, unknown>>();
  const values = (tenant: string, namespace: string): KeyValueTable<unknown> => {
    const name = `${tenant}/${namespace}`;
    if (!tables.has(name)) tables.set(name, new Map());
    const map = tables.get(name)!;
    return {
      get: async (key) => structuredClone(map.get(key)),
      put: async (key, value) => { map.set(key, structuredClone(value)); },
      remove: async (key) => map.delete(key),
      list: async () => [...map].map(([key, value]) => ({ key, value: structuredClone(value) })),
      clear: async () => map.clear(),
    };
  };
  const leases = new Map<string, { holder: string; until: number }>();
  const storage = {
    keys: { list: async () => tenants.map((tenant) => ({ tenant })) },
    leases: {
      acquire: async (name: string, holder: string, ttlMs: number) => {
        const current = leases.get(name);
        if (current && current.until >= Date.now() && current.holder !== holder) return false;
        leases.set(name, { holder, until: Date.now() + ttlMs });
        return true;
      },
      release: async (name: string, holder: string) => {
        if (leases.get(name)?.holder === holder) leases.delete(name);
      },
      pruneExpired: async () => 0,
    },
    tenant: (tenant: string) => ({ tenant, values: (namespace: string) => values(tenant, namespace) }) as unknown as TenantStore,
  } as unknown as Storage;
  return { storage, jobs: (tenant: string) => values(tenant, JOBS_NAMESPACE) };
}

const silent = pino({ level: 'silent' });

describe('jobs/runner', () => {
  it('persists a job before running it and removes it when done', async () => {
    const { storage, jobs } = memoryStorage(['t1']);
    const runner = new JobRunner(storage, silent);
    const seen: Array<{ status: string; persisted: boolean }> = [];
    runner.register('work', async (store, job) => {
      const record = (await store.values(JOBS_NAMESPACE).get(job.id)) as JobRecord | undefined;
      seen.push({ status: job.status, persisted: record?.status === 'running' });
    });
    const job = await runner.submit('t1', 'work', { x: 1 });
    assert.equal(((await jobs('t1').get(job.id)) as JobRecord).status, 'queued');
    await runner.idle();
    assert.deepEqual(seen, [{ status: 'running', persisted: true }]);
    assert.deepEqual(await jobs('t1').list(), []);
  });

  it('retries a failing job, then marks it failed and tells the failure handler', async () => {
    const { storage, jobs } = memoryStorage(['t1']);
    const runner = new JobRunner(storage, silent);
    let runs = 0;
    let failedWith: unknown;
    runner.register('boom', async () => { runs++; throw new Error('bad data'); }, async (_store, _job, error) => { failedWith = error; });
    const job = await runner.submit('t1', 'boom', {});
    await runner.idle();
    assert.equal(runs, runner.maxAttempts);
    assert.equal((failedWith as Error).message, 'bad data');
    const record = (await jobs('t1').get(job.id)) as JobRecord;
    assert.equal(record.status, 'failed');
    assert.equal(record.attempts, 3);
    // a failed job is not resumed at the next start
    assert.equal(await new JobRunner(storage, silent).resumeAll(), 0);
  });

  it('waits out worker back-pressure without spending an attempt', async () => {
    const { storage } = memoryStorage(['t1']);
    const runner = new JobRunner(storage, silent);
    let runs = 0;
    const attempts: number[] = [];
    runner.register('busy', async (_store, job) => {
      runs++;
      attempts.push(job.attempts);
      if (runs < 2) throw new BusyError();
    });
    await runner.submit('t1', 'busy', {});
    await runner.idle();
    assert.equal(runs, 2);
    assert.deepEqual(attempts, [1, 1]);
  });

  it('reruns at start-up the jobs a previous process left queued or running, oldest first, across tenants', async () => {
    const { storage, jobs } = memoryStorage(['t1', 't2', 't1']);
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const record = (id: string, tenant: string, status: JobRecord['status'], s: number): JobRecord =>
      ({ id, kind: 'work', tenant, payload: { id }, status, attempts: status === 'running' ? 1 : 0, created_at: at(s), updated_at: at(s) });
    await jobs('t1').put('b', record('b', 't1', 'running', 2));
    await jobs('t1').put('a', record('a', 't1', 'queued', 1));
    await jobs('t2').put('c', record('c', 't2', 'running', 0));
    await jobs('t2').put('d', record('d', 't2', 'failed', 0));
    const runner = new JobRunner(storage, silent);
    const ran: string[] = [];
    runner.register('work', async (_store, job) => { ran.push(`${job.tenant}:${job.id}:${job.attempts}`); });
    assert.equal(await runner.resumeAll(), 3);
    await runner.idle();
    assert.deepEqual(ran, ['t1:a:1', 't1:b:2', 't2:c:2']);
    assert.deepEqual((await jobs('t1').list()).length, 0);
    assert.deepEqual((await jobs('t2').list()).map((e) => e.key), ['d']);
  });

  it('leaves a job interrupted by close() for the next start', async () => {
    const { storage, jobs } = memoryStorage(['t1']);
    const runner = new JobRunner(storage, silent);
    runner.register('slow', async () => {
      runner.close();
      throw new Error('pool destroyed');
    });
    const job = await runner.submit('t1', 'slow', {});
    await runner.idle();
    assert.equal(((await jobs('t1').get(job.id)) as JobRecord).status, 'running');
  });

  it('runs a job resumed by two processes on one database once', async () => {
    const { storage, jobs } = memoryStorage(['t1']);
    const at = new Date().toISOString();
    await jobs('t1').put('j', { id: 'j', kind: 'work', tenant: 't1', payload: {}, status: 'running', attempts: 1, created_at: at, updated_at: at } satisfies JobRecord);
    const runs: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const first = new JobRunner(storage, silent);
    const second = new JobRunner(storage, silent);
    first.register('work', async () => { runs.push('first'); await gate; });
    second.register('work', async () => { runs.push('second'); });
    await first.resumeAll();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await second.resumeAll();
    await second.idle();
    release();
    await first.idle();
    assert.deepEqual(runs, ['first']);
    assert.deepEqual(await jobs('t1').list(), []);
  });
});
