/**
 * The floors of the house, bottom first: the one list that .dependency-cruiser.cjs turns into layer rules and that
 * docs/architecture.md draws (test/unit/layers.test.ts checks that both agree with it and that every folder of src,
 * workers and bench is a room on some floor).
 * A module may import rooms of its own floor and of the floors below, never a floor above; no-circular keeps the
 * rooms of one floor from leaning on each other both ways.
 * A room is a folder (ending in `/`) or a single file.
 */
const floors = [
  {
    name: 'foundation',
    what: 'plain records, errors, settings, logging and the process machinery (worker pool, allocator, run-time figures)',
    rooms: ['src/domain.ts', 'src/errors.ts', 'src/config.ts', 'src/log.ts', 'src/random.ts', 'src/native-build.ts', 'src/runtime/', 'src/pool.ts', 'src/rate-limit.ts'],
  },
  {
    name: 'libraries',
    what: 'pure computation with no tenant state: text analysis, the keyword and vector engines, models, embeddings, the article parser, clustering',
    rooms: ['src/text/', 'src/keyword/', 'src/models/', 'src/embedding/', 'src/vector/', 'src/parser/', 'src/clustering/'],
  },
  {
    name: 'storage',
    what: 'the repository interface, its embedded and MongoDB backends, the change feed',
    rooms: ['src/storage/'],
  },
  {
    name: 'indexes',
    what: "each key's indexes over time: follow writes, snapshots, refits, memory budget",
    rooms: ['src/index/'],
  },
  {
    name: 'background',
    what: 'persisted jobs and the worker tasks the pool runs',
    rooms: ['src/jobs/', 'workers/'],
  },
  {
    name: 'services',
    what: "a tenant's operations, knowing no HTTP and no versions",
    rooms: ['src/services/'],
  },
  {
    name: 'edge',
    what: "HTTP, the versions' route tables and the dashboard's model",
    rooms: ['src/ops/', 'src/http/', 'src/api/'],
  },
  {
    name: 'entry',
    what: 'what starts things: the server process, the kindred command, the benchmarks',
    rooms: ['src/server.ts', 'src/cli/', 'bench/'],
  },
];

module.exports = { floors };
