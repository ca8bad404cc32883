import assert from 'node:assert/strict';
import { crashDuringPreferenceIngestion, crashDuringTraining, type ScenarioResult } from '../helpers/invariants';
import { loadBlob, saveBlob } from '../../src/storage/blobs';
import type { KeyValueTable } from '../../src/storage/types';

function assertSurvived(result: ScenarioResult): void {
  assert.deepEqual(result.report.lost, [], result.notes.join('; '));
  assert.deepEqual(result.report.problems, [], result.notes.join('; '));
  assert.ok(result.report.checked > 0);
}

describe('kill -9 during ALS training and preference ingestion', function () {
  this.timeout(300_000);

  // Preferences keep arriving while the server trains, so this also kills a bulk preference ingestion
  // (checked: every acknowledged preference is there after the restart).
  it('server training on KINDRED_TRAIN_CRON, with preferences arriving: a whole model is served, the next one is picked up', async () => {
    const result = await crashDuringTraining({ backend: 'embedded', size: 1000, moment: 0.3, where: 'server' });
    assertSurvived(result);
  });

  // The re-run first waits out the killed process's 15 s training lease.
  it('`kindred train` killed mid-iteration: the server keeps the previous model; the re-run\'s model is picked up', async () => {
    const result = await crashDuringTraining({ backend: 'embedded', size: 1000, moment: 0.4, where: 'cli' });
    assert.ok(result.killedDuringWork, result.notes.join('; '));
    assertSurvived(result);
  });

  // Preference ingestion on its own is covered above and in `npm run crash:long`; set CRASH_FULL=1 to run it here too.
  (process.env.CRASH_FULL ? it : it.skip)('bulk preference ingestion: every acknowledged preference is there after the restart', async () => {
    const result = await crashDuringPreferenceIngestion({ backend: 'embedded', size: 3000, moment: 0.5 });
    assert.ok(result.killedDuringWork, result.notes.join('; '));
    assertSurvived(result);
  });
});

/** A key-value table in memory whose writes fail after `failAfter` of them: a process dying mid-save. */
class CrashingTable implements KeyValueTable<unknown> {
  readonly entries = new Map<string, unknown>();
  failAfter = Infinity;

  async get(key: string) { return this.entries.get(key); }
  async put(key: string, value: unknown) {
    if (this.failAfter-- <= 0) throw new Error('killed');
    this.entries.set(key, value);
  }
  async remove(key: string) { return this.entries.delete(key); }
  async list() { return [...this.entries].map(([key, value]) => ({ key, value })); }
  async clear() { this.entries.clear(); }
}

describe('model blobs across a crash mid-save', () => {
  const blob = (bytes: number, fill: number) => new Uint8Array(bytes).fill(fill);

  it('keeps serving the previous model, and the next save removes the chunks the crash left', async () => {
    const table = new CrashingTable();
    const first = await saveBlob(table, 'hybrid', blob(17 * 1024 * 1024, 1));
    table.failAfter = 2; // the pending record and one chunk of three are written, then the process dies
    await assert.rejects(saveBlob(table, 'hybrid', blob(17 * 1024 * 1024, 2)), /killed/);
    const served = await loadBlob(table, 'hybrid');
    assert.equal(served?.version, first);
    assert.equal(served?.data[0], 1);
    assert.equal(served?.data.byteLength, 17 * 1024 * 1024);

    table.failAfter = Infinity;
    const third = await saveBlob(table, 'hybrid', blob(1000, 3));
    assert.deepEqual([...table.entries.keys()].sort(), ['hybrid', `hybrid@${third}#0`]);
    assert.deepEqual((await loadBlob(table, 'hybrid'))?.data, Buffer.from(blob(1000, 3)));
  });
});
