import assert from 'node:assert/strict';
import os from 'node:os';
import { loadConfig } from '../../src/config';
import { Client } from '../helpers/client';
import { startServer, type RunningServer } from '../helpers/server';
import { CORPUS } from '../fixtures/corpus';
import { waitUntil } from '../helpers/invariants';

/**
 * KINDRED_INDEX_MEMORY: with more keys than fit the budget, the least recently used keys' indexes are snapshotted
 * and unloaded, and loaded again on their next request. Every answer stays what it was with everything loaded.
 */
const KEYS = ['budget-a', 'budget-b', 'budget-c', 'budget-d'];
const ADMIN = 'admin-secret';

interface Answers {
  similar: string[];
  owned: string[];
  matched: string[];
}

async function answers(api: Client, key: string): Promise<Answers> {
  const similar = await api.get('/documents/food-1/similar?number=5');
  assert.equal(similar.status, 200, similar.text);
  const search = async (query: unknown) => {
    const res = await api.post('/documents/by-keyword', { es_query: { query, size: 50 } });
    assert.equal(res.status, 200, res.text);
    return (res.body as { hits: { hits: Array<{ id: string }> } }).hits.hits.map((h) => h.id).sort();
  };
  return {
    similar: (similar.body as Array<{ id: string }>).map((r) => r.id),
    owned: await search({ term: { 'meta.owner.keyword': key } }),
    matched: await search({ match: { text: 'recipe' } }),
  };
}

async function memoryUse(server: RunningServer): Promise<{ budget: number; held: number; loaded: number; unloads: number }> {
  const text = await (await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${ADMIN}` } })).text();
  const figure = (pattern: string) => Number(new RegExp(`^${pattern} (\\S+)$`, 'm').exec(text)?.[1]);
  return {
    budget: figure('kindred_index_memory_bytes\\{kind="budget"\\}'),
    held: figure('kindred_index_memory_bytes\\{kind="held"\\}'),
    loaded: figure('kindred_index_keys_loaded'),
    unloads: figure('kindred_index_unloads_total'),
  };
}

/** The budget is checked after each load and every second: wait for it to be met. */
async function withinBudget(server: RunningServer): Promise<{ budget: number; held: number; loaded: number; unloads: number }> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const use = await memoryUse(server);
    if (use.held <= use.budget || Date.now() > deadline) return use;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('memory budget for indexes (KINDRED_INDEX_MEMORY)', function () {
  this.timeout(240_000);
  let server: RunningServer | undefined;
  after(() => server?.stop());

  it('reads the budget as a size, half the machine\'s memory by default', () => {
    assert.equal(loadConfig({ KINDRED_INDEX_MEMORY: '2GB' }).indexMemory, 2 * 1024 ** 3);
    assert.equal(loadConfig({ KINDRED_INDEX_MEMORY: '512mb' }).indexMemory, 512 * 1024 ** 2);
    assert.equal(loadConfig({ KINDRED_INDEX_MEMORY: '1000000' }).indexMemory, 1_000_000);
    assert.equal(loadConfig({}).indexMemory, Math.floor(os.totalmem() / 2));
    for (const bad of ['lots', '-1GB', '0']) assert.throws(() => loadConfig({ KINDRED_INDEX_MEMORY: bad }), /KINDRED_INDEX_MEMORY/);
  });

  it('hands memory back once indexing stops: every pool thread collects its garbage, the store’s pages are unmapped', async () => {
    const tidy = await startServer({ backend: 'embedded', keys: [KEYS[0]!], env: { KINDRED_ADMIN_TOKEN: ADMIN, KINDRED_WORKERS: '2' } });
    try {
      const api = new Client(tidy.url, KEYS[0]);
      for (const doc of CORPUS) assert.equal((await api.post(`/documents/${doc.id}`, { text: doc.text })).status, 201);
      const tidyTasks = async (): Promise<number> => {
        const text = await (await fetch(`${tidy.url}/metrics`, { headers: { Authorization: `Bearer ${ADMIN}` } })).text();
        return Number(/^kindred_pool_task_duration_seconds_count\{kind="tidy",outcome="ok"\} (\S+)$/m.exec(text)?.[1] ?? 0);
      };
      await waitUntil('a tidy task in each pool thread', async () => (await tidyTasks()) >= 2, 30_000, 250);
      await waitUntil('the log line', () => tidy.lines.some((l) => l.includes('memory handed back after indexing') && l.includes('"threads":2') && l.includes('"storeMappings":1')), 5000);
      // Once: no indexing since, no tidying again.
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(await tidyTasks(), 2);
    } finally {
      await tidy.stop();
    }
  });

  it('unloads the least recently used keys to stay within the budget and reloads them on request, answers unchanged', async () => {
    const env = { KINDRED_ADMIN_TOKEN: ADMIN };
    server = await startServer({ backend: 'embedded', keys: KEYS, env });
    const reference = new Map<string, Answers>();
    for (const key of KEYS) {
      const api: Client = new Client(server.url, key);
      for (const doc of CORPUS) assert.equal((await api.post(`/documents/${doc.id}`, { text: doc.text, meta: { owner: key } })).status, 201);
      // Each key loses a different document, so a key answering with another's index would show.
      await api.delete(`/documents/food-${KEYS.indexOf(key) + 2}`);
      reference.set(key, await answers(api, key));
    }
    const all = await memoryUse(server);
    assert.equal(all.loaded, KEYS.length);
    assert.equal(all.unloads, 0);
    await server.stop();

    // Room for two keys and a half.
    const budget = Math.floor((all.held / KEYS.length) * 2.5);
    server = await startServer({ backend: 'embedded', keys: KEYS, dataDir: server.dataDir, env: { ...env, KINDRED_INDEX_MEMORY: String(budget) } });
    await waitUntil('the server ready', async () => (await fetch(`${server!.url}/healthz`)).status === 200, 60_000);
    assert.ok((await memoryUse(server)).loaded <= 2, 'start-up loads only what fits');

    for (let round = 0; round < 2; round++) {
      for (const key of KEYS) {
        assert.deepEqual(await answers(new Client(server.url, key), key), reference.get(key), `${key}, round ${round}`);
        const use = await withinBudget(server);
        assert.equal(use.budget, budget);
        assert.ok(use.held <= budget, `held ${use.held} > budget ${budget}`);
        assert.ok(use.loaded <= 2, `${use.loaded} keys loaded`);
      }
    }
    const use = await memoryUse(server);
    assert.ok(use.unloads >= KEYS.length, `${use.unloads} unloads`);
    assert.ok(server.lines.some((l) => l.includes('indexes unloaded (memory budget)')));

    // A write to a key that is not loaded: it loads, and the write is searchable at once.
    const cold = new Client(server.url, KEYS[0]);
    await withinBudget(server);
    assert.equal((await cold.post('/documents/late', { text: 'A slow braised lamb shoulder recipe with rosemary', meta: { owner: KEYS[0] } })).status, 201);
    const later = await answers(cold, KEYS[0]);
    assert.deepEqual(later.owned, [...reference.get(KEYS[0])!.owned, 'late'].sort());
    assert.ok(later.matched.includes('late'));
  });
});
