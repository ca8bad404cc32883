import assert from 'node:assert/strict';
import { Client, createInBatches } from '../helpers/client';
import { newsgroupTexts, tenantOf } from '../helpers/invariants';
import { loadConfig } from '../../src/config';
import { startServer, type RunningServer } from '../helpers/server';

interface Entry { tenant: string; indexed: number; stored: number; refitting: boolean; refitDue: boolean; model?: { kind: string; fittedDocs: number } }

const GROWTH = 1.3;
const DOCUMENTS = 3000;

/**
 * A key bulk-loaded faster than its model is refitted: each growth refit fits the documents stored when it
 * started, and writes made meanwhile count toward the next, so once the writes stop the key rests on a model
 * that no further growth would refit (fitted on at least 1 / growth of its documents), not on the one the
 * import's last refit happened to start from. Then, its writes paused, it is refitted on every document.
 */
describe('growth refits catch up with a bulk import', function () {
  this.timeout(300_000);
  let server: RunningServer;
  const docs = newsgroupTexts(DOCUMENTS);

  before(async () => {
    server = await startServer({ backend: 'embedded', keys: ['bulk-key', 'rest-key'], env: { KINDRED_REFIT_GROWTH: String(GROWTH) } });
  });
  after(() => server?.stop());

  async function entry(key: string): Promise<Entry | undefined> {
    const body = (await (await fetch(`${server.url}/healthz?tenant=${tenantOf(key)}`)).json()) as { indexing: Entry[] };
    return body.indexing[0];
  }

  const seen = new Set<number>();
  async function waitFor(key: string, done: (e: Entry) => boolean, what: string): Promise<Entry> {
    const until = Date.now() + 120_000;
    let last: Entry | undefined;
    while (Date.now() < until) {
      last = await entry(key);
      if (last?.model) seen.add(last.model.fittedDocs);
      if (last && done(last)) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`${what}: ${JSON.stringify(last)}`);
  }

  /** Writes the first `first` documents, then the rest while the refit they started is under way. */
  async function importDuringRefit(key: string, first: number): Promise<void> {
    const api = new Client(server.url, key);
    await createInBatches(api, docs.slice(0, first));
    for (let polls = 0; polls < 3000 && !(await entry(key))?.refitting; polls++) await new Promise((r) => setTimeout(r, 10));
    const rest = docs.slice(first);
    const parts = Array.from({ length: 10 }, (_x, i) => rest.filter((_d, j) => j % 10 === i));
    await Promise.all(parts.map((part) => createInBatches(api, part)));
  }

  it('rests on a model fitted on all but the last growth step of the documents once the writes stop', async () => {
    // 3,000 ≥ 1.3 × 2,000: the refit of the first 2,000 is followed by another.
    await importDuringRefit('bulk-key', 2000);
    const last = await waitFor('bulk-key', (e) => e.indexed === DOCUMENTS && !e.refitting, 'never at rest');
    assert.equal(last.model?.kind, 'lsa', JSON.stringify(last));
    assert.ok(last.model.fittedDocs * GROWTH > DOCUMENTS,
      `the key rests on a model fitted on ${last.model.fittedDocs} of ${DOCUMENTS} documents (models seen: ${[...seen].sort((a, b) => a - b).join(', ')})`);
  });

  it('is refitted on every document once its writes have paused', async () => {
    const api = new Client(server.url, 'rest-key');
    await createInBatches(api, docs.slice(0, 2400));
    await waitFor('rest-key', (e) => e.model?.fittedDocs === 2400 && !e.refitting, 'no model of the first 2,400 documents');
    // 3,000 < 1.3 × 2,400: no growth refit follows these writes; the pause after them does.
    await createInBatches(api, docs.slice(2400));
    const written = Date.now();
    const resting = await waitFor('rest-key', (e) => e.indexed === DOCUMENTS, 'the writes never indexed');
    assert.equal(resting.model?.fittedDocs, 2400);
    assert.equal(resting.refitDue, true, '/healthz says a refit is due once the writes pause');
    const fitted = await waitFor('rest-key', (e) => e.model?.fittedDocs === DOCUMENTS && !e.refitting, 'no model of every document');
    assert.ok(Date.now() - written >= 9_000, 'the refit waited for the pause');
    // Nothing more is due: nothing more starts.
    await new Promise((r) => setTimeout(r, 1500));
    const after = await entry('rest-key');
    assert.equal(after?.refitting, false);
    assert.equal(after?.refitDue, false);
    assert.equal(after?.model?.fittedDocs, fitted.model?.fittedDocs);
  });
});

describe('refits at rest can be turned off (KINDRED_REFIT_AT_REST_SECONDS=0)', function () {
  this.timeout(300_000);
  let server: RunningServer;

  before(async () => {
    // Growth refits only at tenfold growth: what the key rests on is the pause's doing alone.
    server = await startServer({ backend: 'embedded', keys: ['off-key'], env: { KINDRED_REFIT_GROWTH: '10', KINDRED_REFIT_AT_REST_SECONDS: '0' } });
  });
  after(() => server?.stop());

  async function entry(): Promise<Entry | undefined> {
    const body = (await (await fetch(`${server.url}/healthz?tenant=${tenantOf('off-key')}`)).json()) as { indexing: Entry[] };
    return body.indexing[0];
  }

  it('reads the setting: seconds, 0 for never, 10 when unset', () => {
    assert.equal(loadConfig({}).refitAtRestMs, 10_000);
    assert.equal(loadConfig({ KINDRED_REFIT_AT_REST_SECONDS: '0' }).refitAtRestMs, 0);
    assert.equal(loadConfig({ KINDRED_REFIT_AT_REST_SECONDS: '3' }).refitAtRestMs, 3000);
    for (const bad of ['-1', '1.5', 'soon']) assert.throws(() => loadConfig({ KINDRED_REFIT_AT_REST_SECONDS: bad }), /KINDRED_REFIT_AT_REST_SECONDS/);
  });

  it('leaves a key behind its documents on its model when the pause is off', async () => {
    const docs = newsgroupTexts(1200);
    const api = new Client(server.url, 'off-key');
    await createInBatches(api, docs.slice(0, 1000));
    let rested: Entry | undefined;
    for (const until = Date.now() + 120_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
      rested = await entry();
      if (rested?.model?.kind === 'lsa' && rested.indexed === 1000 && !rested.refitting) break;
    }
    const fitted = rested?.model?.fittedDocs ?? 0;
    assert.ok(fitted > 0 && fitted <= 1000, JSON.stringify(rested));
    await createInBatches(api, docs.slice(1000));
    // 1,200 documents against a model of at most 1,000: behind by the pause's measure, not by tenfold growth.
    await new Promise((r) => setTimeout(r, 12_000));
    const after = await entry();
    assert.equal(after?.indexed, 1200);
    assert.equal(after?.refitting, false);
    assert.equal(after?.refitDue, false);
    assert.equal(after?.model?.fittedDocs, fitted, 'no refit at rest');
  });
});
