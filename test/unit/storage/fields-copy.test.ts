import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { open } from 'lmdb';
import type { DocumentRecord } from '../../../src/domain';
import { LmdbStorage } from '../../../src/storage/lmdb/storage';
import { MongoStorage } from '../../../src/storage/mongo/storage';
import type { Storage } from '../../../src/storage/types';
import { mongoDatabaseUri } from '../../helpers/mongo';

const doc = (id: string, updated: string, published: string | null): DocumentRecord => ({
  id, text: `text of ${id}`, meta: { title: id }, published_at: published, created_at: '2026-01-01T00:00:00.000Z', updated_at: updated,
});

async function versions(storage: Storage, tenant: string): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  for await (const batch of storage.tenant(tenant).documents.scanFields(3)) out.push(...batch);
  return out.sort((a, b) => String(a.id).localeCompare(String(b.id)));
}

/** Inserts, replaces, removes and clears; scanFields must follow every write, per tenant. */
async function followsWrites(storage: Storage): Promise<void> {
  const docs = storage.tenant('aa').documents;
  for (let i = 0; i < 10; i++) await docs.insert(doc(`d${i}`, `2026-01-0${i % 9 + 1}T00:00:00.000Z`, i % 2 ? '2025-05-05T00:00:00.000Z' : null));
  await docs.replace(doc('d3', '2026-02-02T00:00:00.000Z', '2024-04-04T00:00:00.000Z'));
  await docs.remove('d7');
  await storage.tenant('bb').documents.insert(doc('other', '2026-03-03T00:00:00.000Z', null));
  const expected = (await docs.ids()).map((id) => id).sort().map(async (id) => {
    const d = (await docs.get(id))!;
    return { id, updated_at: d.updated_at, published_at: d.published_at };
  });
  assert.deepEqual(await versions(storage, 'aa'), await Promise.all(expected));
  assert.equal((await versions(storage, 'aa')).find((v) => v.id === 'd3')?.updated_at, '2026-02-02T00:00:00.000Z');
  assert.deepEqual((await versions(storage, 'bb')).map((v) => v.id), ['other']);
  await docs.clear();
  assert.deepEqual(await versions(storage, 'aa'), []);
  assert.deepEqual((await versions(storage, 'bb')).map((v) => v.id), ['other']);
}

describe('documents: version fields read without whole documents (scanFields)', () => {
  it('follow every write on the embedded store', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-fields-'));
    const storage = new LmdbStorage(dir);
    try {
      await followsWrites(storage);
    } finally {
      await storage.close();
    }
    // A table that started empty is marked as keeping the copy: no fill-in pass over its records at a restart.
    const root = open({ path: path.join(dir, 'lmdb'), maxDbs: 16 });
    assert.equal(root.openDB('counters', {}).get(['bb', 'documents', 'fields-copy']), 2);
    await root.close();
  });

  it('are filled in once for an embedded store written before they were kept', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-fields-'));
    let storage = new LmdbStorage(dir);
    for (let i = 0; i < 7; i++) await storage.tenant('aa').documents.insert(doc(`d${i}`, `2026-01-0${i + 1}T00:00:00.000Z`, null));
    await storage.close();
    // An older store: creation-order entries hold the id alone, and no mark.
    const root = open({ path: path.join(dir, 'lmdb'), maxDbs: 16 });
    const order = root.openDB<unknown[] | string>('order', {});
    const counters = root.openDB('counters', {});
    await root.transaction(() => {
      for (const { key, value } of Array.from(order.getRange({}))) if (Array.isArray(value)) order.put(key, value[0] as string);
      counters.remove(['aa', 'documents', 'fields-copy']);
    });
    await root.close();
    storage = new LmdbStorage(dir);
    try {
      assert.deepEqual((await versions(storage, 'aa')).map((v) => v.updated_at), Array.from({ length: 7 }, (_, i) => `2026-01-0${i + 1}T00:00:00.000Z`));
    } finally {
      await storage.close();
    }
  });

  it('follow every write on MongoDB (a projection)', async () => {
    const storage = await MongoStorage.connect(await mongoDatabaseUri());
    try {
      await followsWrites(storage);
    } finally {
      await storage.close();
    }
  });
});
