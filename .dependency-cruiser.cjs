/**
 * Kindred's layer rules, checked in `make test` by test/unit/layers.test.ts (which also breaks each rule on purpose).
 * The floors come from floors.cjs (drawn in docs/architecture.md); the rules after them say what a floor alone cannot.
 * Type-only imports count too: a type from a higher floor's internals is still a dependency on it.
 */
const { floors } = require('./floors.cjs');

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A room's modules: everything under a folder, or the one file. */
const roomPattern = (room) => (room.endsWith('/') ? `^${escape(room)}` : `^${escape(room)}$`);
const anyRoom = (rooms) => `(${rooms.map(roomPattern).join('|')})`;
const KINDRED_CODE = '^(src|workers|bench)/';

/** One rule per floor below the top: none of its rooms imports a room of a floor above it. */
const noUpward = floors.slice(0, -1).map((floor, i) => ({
  name: `no-upward-from-${floor.name}`,
  comment: `The ${floor.name} floor (${floor.what}) imports only its own and lower floors.`,
  severity: 'error',
  from: { path: anyRoom(floor.rooms) },
  to: { path: anyRoom(floors.slice(i + 1).flatMap((above) => above.rooms)) },
}));

module.exports = {
  forbidden: [
    ...noUpward,
    {
      name: 'no-circular',
      comment: 'No module reaches itself through its imports, inside a room or across rooms.',
      severity: 'error',
      from: { path: KINDRED_CODE },
      to: { circular: true },
    },
    {
      name: 'every-module-on-a-floor',
      comment: 'Every folder of src, workers and bench is a room on a floor of floors.cjs: a new folder gets a floor first.',
      severity: 'error',
      from: { path: KINDRED_CODE, pathNot: anyRoom(floors.flatMap((floor) => floor.rooms)) },
      to: {},
    },
    {
      name: 'keyword-engine-stands-alone',
      comment: 'The keyword engine is a library: it uses the shared text scanner and isRecord, nothing else of Kindred.',
      severity: 'error',
      from: { path: '^src/keyword/' },
      to: { path: '^(src|workers)/', pathNot: '^src/(keyword/|text/|domain\\.ts$)' },
    },
    {
      name: 'workers-are-pure-compute',
      comment: 'Worker tasks get arrays and return results: they never touch storage, jobs, HTTP, routes or services.',
      severity: 'error',
      from: { path: '^workers/' },
      to: { path: '^src/(storage|jobs|http|api|services)/' },
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
