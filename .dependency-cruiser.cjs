/**
 * Kindred's layers (../shared/DESIGN.md), checked in `make test` by test/unit/layers.test.ts.
 * Type-only imports count too: a type from a lower layer's internals is still a dependency on them.
 */
module.exports = {
  forbidden: [
    {
      name: 'workers-are-pure-compute',
      comment: 'Worker tasks get arrays and return results: they never touch storage, HTTP, routes or services.',
      severity: 'error',
      from: { path: '^workers/' },
      to: { path: '^src/(storage|http|api|services)/' },
    },
    {
      name: 'services-know-no-http',
      comment: 'Services know no HTTP and no versions.',
      severity: 'error',
      from: { path: '^src/services/' },
      to: { path: '^src/(http|api)/' },
    },
    {
      name: 'storage-knows-no-domain',
      comment: 'Storage knows no domain logic: it never imports services, indexes, routes or HTTP.',
      severity: 'error',
      from: { path: '^src/storage/' },
      to: { path: '^src/(services|index|api|http)/' },
    },
    {
      name: 'api-through-services',
      comment: 'Route tables and the HTTP layer reach the domain only through services (a TenantApi per key).',
      severity: 'error',
      from: { path: '^src/(api|http)/' },
      to: { path: '^src/(storage|index)/' },
    },
    {
      name: 'index-below-services',
      comment: 'Indexes follow storage; they never import services, routes or HTTP.',
      severity: 'error',
      from: { path: '^src/index/' },
      to: { path: '^src/(services|api|http)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|node_modules)/' },
  },
};
