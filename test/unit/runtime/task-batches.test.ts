import assert from 'node:assert/strict';
import { BusyError } from '../../../src/errors';
import { TaskBatches, type BatchOutcome } from '../../../src/runtime/task-batches';

/** A pool of `lanes` threads whose batches the test finishes by hand. */
function manualPool() {
  const sent: Array<{ payloads: unknown[]; finish: (outcomes: Array<BatchOutcome<unknown>>) => void; fail: (error: unknown) => void }> = [];
  const send = (payloads: unknown[]) => new Promise<Array<BatchOutcome<unknown>>>((finish, fail) => sent.push({ payloads, finish, fail }));
  return { sent, send };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('TaskBatches', () => {
  it('sends alone while a thread is free, and together what waited', async () => {
    const { sent, send } = manualPool();
    const batches = new TaskBatches(send, 2, 100);
    const answers = Promise.allSettled([1, 2, 3, 4, 5, 6].map((n) => batches.run(n)));
    assert.deepEqual(sent.map((s) => s.payloads), [[1], [2]]);
    sent[0]!.finish([{ value: 'one' }]);
    await settled();
    // four waited; the freed thread takes its share, half of them
    assert.deepEqual(sent.map((s) => s.payloads), [[1], [2], [3, 4]]);
    sent[1]!.finish([{ value: 'two' }]);
    await settled();
    // two wait, one thread is free: it takes one, the other is left for the thread that frees next
    assert.deepEqual(sent[3]!.payloads, [5]);
    sent[2]!.finish([{ value: 'three' }, { error: new RangeError('four') }]);
    await settled();
    assert.deepEqual(sent[4]!.payloads, [6]);
    sent[3]!.fail(new Error('thread lost'));
    sent[4]!.finish([{ value: 'six' }]);
    const results = await answers;
    assert.deepEqual(results.map((r) => r.status === 'fulfilled' && r.value), ['one', 'two', 'three', false, false, 'six']);
    assert.ok(results[3]!.status === 'rejected' && results[3]!.reason instanceof RangeError);
    assert.ok(results[4]!.status === 'rejected' && (results[4]!.reason as Error).message === 'thread lost');
  });

  it('refuses payloads beyond what may wait', async () => {
    const { sent, send } = manualPool();
    const batches = new TaskBatches(send, 1, 2);
    const running = batches.run('a');
    const waiting = [batches.run('b'), batches.run('c')];
    await assert.rejects(batches.run('d'), BusyError);
    sent[0]!.finish([{ value: 'A' }]);
    assert.equal(await running, 'A');
    await settled();
    sent[1]!.finish([{ value: 'B' }, { value: 'C' }]);
    assert.deepEqual(await Promise.all(waiting), ['B', 'C']);
  });

  it('fails a payload its batch answered no outcome for', async () => {
    const { sent, send } = manualPool();
    const batches = new TaskBatches(send, 1, 10);
    const answer = batches.run('x');
    sent[0]!.finish([]);
    await assert.rejects(answer, /fewer outcomes/);
  });
});
