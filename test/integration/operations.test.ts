import assert from 'node:assert/strict';
import { Client } from '../helpers/client';
import { startServer, type RunningServer } from '../helpers/server';
import { v6Routes } from '../../src/api/v6/routes';
import { v5Routes } from '../../src/api/v5/routes';
import { v3Routes } from '../../src/api/v3/routes';
import { v2Routes } from '../../src/api/v2/routes';
import { v1Routes } from '../../src/api/v1/routes';

describe('operator surfaces: /openapi.json and /metrics', () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({ backend: 'embedded', env: { KINDRED_ADMIN_TOKEN: 'admin-secret' } });
    await new Client(server.url).post('/documents/m1', { text: 'measured' });
  });
  after(() => server?.stop());

  it('describes every route of every version in OpenAPI 3.1, from the validation schemas', async () => {
    const doc = await (await fetch(`${server.url}/openapi.json`)).json() as {
      openapi: string; paths: Record<string, Record<string, { parameters: Array<{ name: string; in: string }>; requestBody?: unknown }>>;
    };
    assert.equal(doc.openapi, '3.1.0');
    const tables: Array<[string, Array<{ method: string; path: string }>]> = [['/v6', v6Routes], ['/v5', v5Routes], ['/v3', v3Routes], ['/v2', v2Routes], ['/v1', v1Routes]];
    for (const [prefix, routes] of tables) {
      for (const route of routes) {
        const path = prefix + route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
        assert.ok(doc.paths[path]?.[route.method.toLowerCase()], `${route.method} ${path} is missing`);
      }
    }
    assert.ok(doc.paths['/parser/'].get);
    const list = doc.paths['/v6/documents'].get;
    assert.deepEqual(list.parameters.map((p) => p.name).sort(), ['fields', 'page', 'per_page']);
    assert.ok(doc.paths['/v6/documents/{id}'].put.requestBody);
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const op of Object.values(ops)) {
        const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        for (const name of names) assert.ok(op.parameters.some((p) => p.in === 'path' && p.name === name), `${path} lacks path parameter ${name}`);
      }
    }
  });

  it('serves Prometheus metrics to the admin token only', async () => {
    assert.equal((await fetch(`${server.url}/metrics`)).status, 401);
    assert.equal((await fetch(`${server.url}/metrics`, { headers: { Authorization: 'Bearer wrong-secret' } })).status, 401);
    const res = await fetch(`${server.url}/metrics`, { headers: { Authorization: 'Bearer admin-secret' } });
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /kindred_http_requests_total\{version="v6",route="\/documents\/:id",method="POST",status="201"\} 1/);
    assert.match(text, /kindred_http_request_duration_seconds_bucket/);
    assert.match(text, /kindred_pool_threads 1/);
    assert.match(text, /process_resident_memory_bytes/);
    // Memory by part: the resident set split by kind, and the heaps of the main thread and the keyword worker.
    const part = (name: string) => Number(new RegExp(`^kindred_memory_bytes\\{part="${name}"\\} (\\S+)$`, 'm').exec(text)?.[1]);
    assert.ok(part('rss') > 0 && part('anonymous') > 0 && part('anonymous') + part('fileBacked') === part('rss'), text);
    for (const name of ['mainHeap', 'keywordHeap', 'arrayBuffers']) assert.ok(part(name) > 0 && part(name) < part('rss'), name);
  });

  it('keeps /metrics off when no admin token is configured', async () => {
    const plain = await startServer({ backend: 'embedded' });
    try {
      assert.equal((await fetch(`${plain.url}/metrics`)).status, 404);
    } finally {
      await plain.stop();
    }
  });
});
