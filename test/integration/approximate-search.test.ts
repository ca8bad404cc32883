import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config';
import { Client, createInBatches } from '../helpers/client';
import { newsgroupTexts, tenantOf } from '../helpers/invariants';
import { startServer, type RunningServer } from '../helpers/server';

interface Entry { tenant: string; indexed: number; stored: number; refitting: boolean; approximate: string }
interface Hit { id: string; similarity: number }

const APPROXIMATE_FROM = 1000;
const DOCUMENTS = 1300;
const SMALL = 300;
const QUERIES = 30;

/**
 * A key's content index builds its approximate (FAISS) search once it holds KINDRED_APPROXIMATE_FROM documents
 * (50,000 by default, which no other test reaches): built, its probes tuned on the key's own documents, and
 * served through the pool, with writes it has not taken yet still found and answers close to an exact scan's.
 */
describe('approximate search from KINDRED_APPROXIMATE_FROM documents', function () {
  this.timeout(300_000);
  let server: RunningServer;
  const posts = newsgroupTexts(DOCUMENTS + 1);
  const fresh = posts[DOCUMENTS]!;
  const queried = Array.from({ length: QUERIES }, (_, i) => posts[(i * 37) % DOCUMENTS]!.id);

  async function entry(key: string): Promise<Entry | undefined> {
    const body = (await (await fetch(`${server.url}/healthz?tenant=${tenantOf(key)}`)).json()) as { indexing?: Entry[] };
    return body.indexing?.[0];
  }

  async function load(key: string, docs: Array<{ id: string; text: string }>): Promise<void> {
    await createInBatches(new Client(server.url, key), docs);
  }

  async function waitFor(key: string, done: (e: Entry) => boolean): Promise<Entry> {
    const until = Date.now() + 240_000;
    let last: Entry | undefined;
    while (Date.now() < until) {
      last = await entry(key);
      if (last && done(last)) return last;
      await new Promise((r) => setTimeout(r, 300));
    }
    assert.fail(`key ${key} never got there: ${JSON.stringify(last)}`);
  }

  async function similar(key: string, ids: string[]): Promise<Map<string, Hit[]>> {
    const api = new Client(server.url, key);
    const answers = new Map<string, Hit[]>();
    for (const id of ids) {
      const res = await api.get<Hit[]>(`/documents/${id}/similar?number=10`);
      assert.equal(res.status, 200, res.text);
      answers.set(id, res.body);
    }
    return answers;
  }

  it('takes a whole number of documents, at least 1, or the index\'s default when unset', () => {
    assert.equal(loadConfig({}).approximateFrom, undefined);
    assert.equal(loadConfig({ KINDRED_APPROXIMATE_FROM: '2000' }).approximateFrom, 2000);
    for (const bad of ['0', '-5', '1.5', 'many']) assert.throws(() => loadConfig({ KINDRED_APPROXIMATE_FROM: bad }), /KINDRED_APPROXIMATE_FROM/);
  });

  before(async () => {
    server = await startServer({ backend: 'embedded', keys: ['big-key', 'small-key'], env: { KINDRED_APPROXIMATE_FROM: String(APPROXIMATE_FROM) } });
  });
  after(() => server?.stop());

  it('builds and tunes it for a key past the threshold only, serves its answers, and finds a write it has not taken yet', async () => {
    await load('big-key', posts.slice(0, DOCUMENTS));
    await load('small-key', posts.slice(0, SMALL));
    await waitFor('big-key', (e) => e.indexed === DOCUMENTS && !e.refitting && e.approximate === 'ready');
    const small = await waitFor('small-key', (e) => e.indexed === SMALL);
    assert.equal(small.approximate, 'off', 'a key below the threshold scans exactly');
    // The log line is written asynchronously (pino's transport): it may follow the state by a moment.
    const tuned = () => server.lines.some((l) => l.includes('approximate search probes tuned') && l.includes(tenantOf('big-key')));
    for (let i = 0; i < 50 && !tuned(); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(tuned(), 'the probes were tuned on the key\'s own documents');

    for (const [id, hits] of await similar('big-key', queried)) {
      assert.equal(hits.length, 10, `${id}: ${JSON.stringify(hits)}`);
      assert.ok(hits.every((h) => h.id !== id), `${id} is not its own neighbour`);
      assert.ok(hits.every((h, i) => i === 0 || hits[i - 1]!.similarity >= h.similarity), `${id}: best first`);
    }

    // Written after the index was built: searched beside it until the index takes it.
    const api = new Client(server.url, 'big-key');
    assert.equal((await api.post(`/documents/${fresh.id}`, { text: fresh.text })).status, 201);
    const found = await api.post<Hit[]>('/documents/similar-to-text', { text: fresh.text, number: 3 });
    assert.equal(found.status, 200, found.text);
    assert.equal(found.body[0]?.id, fresh.id, `the write is in the next answer: ${found.text}`);
  });

  it('answers close to an exact scan of the same key (KINDRED_EXACT_SEARCH=1 on the same data)', async () => {
    await waitFor('big-key', (e) => !e.refitting && e.approximate === 'ready');
    const approximate = await similar('big-key', queried);
    const dataDir = server.dataDir;
    await server.stop();
    server = await startServer({ backend: 'embedded', dataDir, keys: ['big-key', 'small-key'], env: { KINDRED_APPROXIMATE_FROM: String(APPROXIMATE_FROM), KINDRED_EXACT_SEARCH: '1' } });
    await waitFor('big-key', (e) => e.indexed === DOCUMENTS + 1 && !e.refitting);
    const exact = await similar('big-key', queried);
    let kept = 0;
    for (const id of queried) {
      const got = new Set(approximate.get(id)!.map((h) => h.id));
      kept += exact.get(id)!.filter((h) => got.has(h.id)).length;
    }
    const recall = kept / (10 * QUERIES);
    assert.ok(recall >= 0.9, `recall@10 against the exact scan: ${recall}`);
  });
});
