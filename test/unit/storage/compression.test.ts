import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { open } from 'lmdb';
import type { DocumentRecord } from '../../../src/domain';
import { LmdbStorage } from '../../../src/storage/lmdb/storage';

const doc = (id: string, text: string): DocumentRecord => ({
  id, text, meta: { title: id }, published_at: null, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z',
});

const longText = Array.from({ length: 60 }, (_, i) => `The rocket engine test number ${i} burned for a while.`).join(' ');

describe('embedded store: records compressed', () => {
  it('stores long records compressed and short ones as they are, and reads both', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-lz4-'));
    let storage = new LmdbStorage(dir);
    await storage.tenant('t').documents.insert(doc('long', longText));
    await storage.tenant('t').documents.insert(doc('short', 'a rocket'));
    await storage.close();

    const raw = open({ path: path.join(dir, 'lmdb'), maxDbs: 16 });
    const bytes = raw.openDB<Buffer>('records', { encoding: 'binary' });
    const stored = (id: string) => bytes.get(['t', 'documents', id])!;
    assert.ok(stored('long')[0]! >= 250, 'a compressed value is marked by its first byte');
    assert.ok(stored('long').length < longText.length / 2, `${stored('long').length} bytes for ${longText.length} characters`);
    assert.ok(stored('short')[0]! < 250);
    await raw.close();

    storage = new LmdbStorage(dir);
    assert.equal((await storage.tenant('t').documents.get('long'))?.text, longText);
    assert.equal((await storage.tenant('t').documents.get('short'))?.text, 'a rocket');
    await storage.close();
  });

  it('reads records written before compression was on', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-lz4-'));
    await new LmdbStorage(dir).close();
    // as an earlier version wrote them: the same encoding, no compression
    const before = open({ path: path.join(dir, 'lmdb'), maxDbs: 16 });
    await before.openDB('records', {}).put(['t', 'documents', 'old'], { seq: 1, record: doc('old', longText) });
    await before.close();

    const storage = new LmdbStorage(dir);
    assert.deepEqual(await storage.tenant('t').documents.get('old'), doc('old', longText));
    await storage.close();
  });
});
