import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from '../helpers/client';
import { CLI_ENTRY, startServer, type RunningServer } from '../helpers/server';

const run = promisify(execFile);

describe('kindred keys (CLI) against a running server', function () {
  this.timeout(60_000);
  let server: RunningServer;
  before(async () => {
    server = await startServer({ backend: 'embedded', keys: [] });
  });
  after(() => server?.stop());

  const cli = (...args: string[]) =>
    run(process.execPath, [CLI_ENTRY, ...args], { env: { ...process.env, KINDRED_DATA_DIR: server.dataDir, MONGODB_URI: '' } });

  it('creates a key the server accepts, lists it without the key, and revokes it', async () => {
    const created = await cli('keys', 'create', '--name', 'ops');
    const key = created.stdout.trim();
    assert.match(key, /^[A-Za-z0-9_-]{32}$/);
    const api = new Client(server.url, key);
    assert.equal((await api.post('/documents/k', { text: 'hello' })).status, 201);

    const listed = await cli('keys', 'list');
    assert.match(listed.stdout, /\tops\t.*\tactive/);
    assert.ok(!listed.stdout.includes(key));

    const revoked = await cli('keys', 'revoke', key);
    assert.match(revoked.stdout, /revoked/);
    await new Promise((r) => setTimeout(r, 5_500));
    assert.equal((await api.get('/documents/k')).status, 403);
    assert.match((await cli('keys', 'list')).stdout, /\tops\t.*\trevoked/);
  });

  it('explains its usage on a wrong command', async () => {
    await assert.rejects(cli('keys', 'frobnicate'), (error: { code: number; stderr: string }) => error.code === 2 && /usage: kindred/.test(error.stderr));
  });
});
