import assert from 'node:assert/strict';
import { BusyError } from '../../../src/errors';
import { httpErrorOf } from '../../../src/http/error-reply';
import { WorkerPool } from '../../../src/pool';

describe('WorkerPool back-pressure', () => {
  it('refuses tasks beyond its queue with a BusyError (HTTP: 503 and Retry-After) instead of queueing without bound', async () => {
    const pool = new WorkerPool({ threads: 1, maxQueue: 2 });
    try {
      const runs = Array.from({ length: 20 }, (_, i) => pool.run<{ at: number }>('ping', { at: i }).then(
        (r) => ({ ok: true as const, at: r.at }),
        (e: unknown) => ({ ok: false as const, error: e }),
      ));
      const outcomes = await Promise.all(runs);
      const refused = outcomes.filter((o) => !o.ok);
      assert.ok(refused.length > 0, 'some tasks must be refused');
      for (const o of refused) {
        const error = (o as { error: unknown }).error;
        assert.ok(error instanceof BusyError);
        const answer = httpErrorOf(error);
        assert.equal(answer.status, 503);
        assert.equal(answer.code, 'busy');
        assert.equal(answer.headers['Retry-After'], '1');
      }
      assert.ok(outcomes.some((o) => o.ok));
    } finally {
      await pool.close();
    }
  });

  it('reaches every idle thread with a full collection', async () => {
    const pool = new WorkerPool({ threads: 2 });
    try {
      // both threads started and busy once, so that each has a heap to collect
      await Promise.all([pool.run('ping', { at: 0 }), pool.run('ping', { at: 1 })]);
      const reached = await pool.tidy();
      assert.equal(new Set(reached).size, 2, `threads reached: ${reached.join(', ')}`);
    } finally {
      await pool.close();
    }
  });
});
