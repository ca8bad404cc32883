import assert from 'node:assert/strict';
import { Router } from '../../../src/http/router';
import type { RouteDef } from '../../../src/http/route';

const route = (method: RouteDef['method'], path: string): RouteDef => ({ method, path, handle: async () => ({ status: 200 }), responses: {} });

describe('Router', () => {
  it('prefers literal segments over parameters whatever the table order', () => {
    const table = [
      route('POST', '/documents'), route('POST', '/documents/:id'), route('POST', '/documents/similar-to-text'),
      route('POST', '/documents/similar-to-ids'), route('POST', '/documents/:document_id/tags/:tag_id'),
      route('POST', '/documents/:id/tags'), route('POST', '/tags/:id'), route('POST', '/tags/recommend-by-text'),
    ];
    for (let shift = 0; shift < table.length; shift++) {
      const router = new Router([...table.slice(shift), ...table.slice(0, shift)]);
      assert.equal(router.match('POST', '/documents/similar-to-ids')?.route.path, '/documents/similar-to-ids');
      assert.equal(router.match('POST', '/documents/similar-to-text')?.route.path, '/documents/similar-to-text');
      assert.equal(router.match('POST', '/tags/recommend-by-text')?.route.path, '/tags/recommend-by-text');
      assert.deepEqual(router.match('POST', '/documents/abc')?.params, { id: 'abc' });
      assert.deepEqual(router.match('POST', '/documents/a/tags/b')?.params, { document_id: 'a', tag_id: 'b' });
    }
  });

  it('decodes parameters and refuses undecodable ones', () => {
    const router = new Router([route('GET', '/documents/:id')]);
    assert.equal(router.match('GET', '/documents/a%20b')?.params.id, 'a b');
    assert.equal(router.match('GET', '/documents/%E0%A4%A'), undefined);
    assert.equal(router.match('PUT', '/documents/a'), undefined);
    assert.equal(router.match('GET', '/documents/a/b'), undefined);
  });
});
