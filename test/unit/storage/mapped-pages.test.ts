import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DocumentRecord } from '../../../src/domain';
import { releaseMappedFile } from '../../../src/runtime/memory-addon';
import { LmdbStorage } from '../../../src/storage/lmdb/storage';

const doc = (id: string, text: string): DocumentRecord => ({
  id, text, meta: {}, published_at: null, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z',
});

// Random-looking words, so that compression leaves each record a few hundred bytes.
const textOf = (i: number): string => Array.from({ length: 80 }, (_, w) => ((i * 7919 + w * 104729) % 1_000_003).toString(36)).join(' ');

/** This process's resident bytes mapped from `file`, from /proc/self/smaps. */
function residentOf(file: string): number {
  const real = fs.realpathSync(file);
  let inFile = false;
  let bytes = 0;
  for (const line of fs.readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) inFile = mapping[1] === real;
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && inFile) bytes += Number(rss[1]) * 1024;
  }
  return bytes;
}

describe('embedded store: mapped pages handed back', () => {
  it('unmaps the store file’s resident pages; reads afterwards return the same records', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kindred-mapped-'));
    const storage = new LmdbStorage(dir);
    try {
      const documents = storage.tenant('t').documents;
      const count = 3000;
      for (let i = 0; i < count; i += 500) {
        await Promise.all(Array.from({ length: 500 }, (_, j) => documents.insert(doc(`d${(i + j) * 7 % count}`, textOf(i + j)))));
      }
      for await (const batch of documents.scan(500)) assert.ok(batch.length > 0);
      const file = path.join(dir, 'lmdb', 'data.mdb');
      const before = residentOf(file);
      assert.ok(before > 512 * 1024, `${before} bytes of the store mapped after writing and reading it`);

      storage.releaseMappedPages();
      const after = residentOf(file);
      assert.ok(after < before / 10, `${before} → ${after} bytes mapped`);

      assert.equal((await documents.get('d7'))?.text, textOf(1));
      assert.ok(residentOf(file) < before / 2, 'a read maps back only the pages it touches');
      assert.equal(await documents.count(), count);
    } finally {
      await storage.close();
    }
  });

  it('leaves private and anonymous mappings alone', () => {
    // The node binary is mapped private: nothing to release, and the process goes on running.
    assert.equal(releaseMappedFile(process.execPath), 0);
    assert.throws(() => releaseMappedFile(path.join(os.tmpdir(), 'no-such-file-kindred')), /ENOENT/);
  });
});
