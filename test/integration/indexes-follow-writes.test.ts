import assert from 'node:assert/strict';
import { Client } from '../helpers/client';
import { newsgroupTexts, tenantOf } from '../helpers/invariants';
import { startServer, type RunningServer } from '../helpers/server';

interface Health { status: string; indexing: Array<{ tenant: string; indexed: number; stored: number; refitting: boolean; approximate: string }> }

const DOCUMENTS = 1500;

/**
 * Issue 13: a key's indexes follow its writes from the first one, whether or not anyone queries it, and
 * GET /healthz shows each key's indexing progress (documents indexed / stored).
 */
describe('indexes follow writes', function () {
  this.timeout(180_000);
  let server: RunningServer;

  before(async () => {
    server = await startServer({ backend: 'embedded', keys: ['bulk-key'] });
  });
  after(() => server?.stop());

  it('indexes a bulk import that nobody has queried, and /healthz shows how far it is', async () => {
    const api = new Client(server.url, 'bulk-key');
    const tenant = tenantOf('bulk-key');
    const health = async () => ((await fetch(`${server.url}/healthz`)).json()) as Promise<Health>;
    assert.deepEqual((await health()).indexing, []);

    const docs = newsgroupTexts(DOCUMENTS);
    const seen: Array<{ indexed: number; stored: number }> = [];
    for (let i = 0; i < docs.length; i += 100) {
      const ops = docs.slice(i, i + 100).map((d) => ({ method: 'POST', url: `/documents/${d.id}`, headers: { 'Subscription-Key': 'bulk-key' }, params: { text: d.text } }));
      const res = await api.post('/batch', { sequential: false, ops });
      assert.equal(res.status, 200, res.text);
      const entry = (await health()).indexing.find((e) => e.tenant === tenant);
      assert.ok(entry, 'the key has indexes from its first write');
      seen.push(entry);
    }

    // No query has been made: the content index catches up with storage by itself.
    const until = Date.now() + 120_000;
    let last: Health['indexing'][number] | undefined;
    while (Date.now() < until) {
      last = (await health()).indexing.find((e) => e.tenant === tenant);
      if (last && last.indexed === DOCUMENTS && last.stored === DOCUMENTS) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.deepEqual(last && { tenant: last.tenant, indexed: last.indexed, stored: last.stored }, { tenant, indexed: DOCUMENTS, stored: DOCUMENTS }, `progress seen during the import: ${JSON.stringify(seen)}`);
    assert.ok(!server.lines.some((l) => l.includes('"url":"/documents/similar')), 'no query was needed');
    // Small keys are scanned exactly (an approximate index is built from 50,000 documents).
    assert.equal(last?.approximate, 'off');
    assert.ok(server.lines.some((l) => l.includes('content index built')), 'the corpus model was fitted while writes arrived');

    const probe = docs[DOCUMENTS - 1]!;
    const similar = await api.post('/documents/similar-to-text', { text: probe.text, number: 1 });
    assert.equal(similar.status, 200, similar.text);
    assert.deepEqual(similar.body.map((r: { id: string }) => r.id), [probe.id]);
  });
});
