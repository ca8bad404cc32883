// Session probe (issue 29, branch large82k): a key's similar query whole, in process, as a pool thread answers it
// (src/vector/query-task.ts with the worker's stages), on one thread, no HTTP: CPU a query (the least of three rounds;
// OPENBLAS_NUM_THREADS=1, so the process's CPU is this thread's), the time in the search (searchShared) and in the
// second stage's rerank, and recall@10 of the final answers against the exact search's final answers (the same
// second stage over every row), at each probe count given. Run from a build's tree against a copy of a key's data.
//   OPENBLAS_NUM_THREADS=1 node bench/probes/query-task-cpu.js <data dir> [probes,…|tuned] [queries]
const fs = require('fs');
const path = require('path');
const ROOT = path.join(__dirname, '..', '..');
const { loadContentSnapshot } = require(path.join(ROOT, 'dist/src/index/content-snapshot'));
const { answerQuery } = require(path.join(ROOT, 'dist/src/vector/query-task'));
const { KernelCache } = require(path.join(ROOT, 'dist/src/vector/kernel-cache'));
const { ModelCache } = require(path.join(ROOT, 'dist/src/embedding/model-cache'));
const { rerankCandidates } = require(path.join(ROOT, 'dist/src/embedding/rerank'));
const { combinedQuery } = require(path.join(ROOT, 'dist/src/index/rerank-query'));
const { loadFaissAddon } = require(path.join(ROOT, 'dist/src/vector/faiss-addon'));
const { usesSecondStage, modelInfo } = require(path.join(ROOT, 'dist/src/embedding'));

// CPU, not wall time: the machine is shared (process.cpuUsage is this thread's with no other thread busy)
const spent = { search: 0, rerank: 0 };
const timed = (key, fn) => (...args) => {
  const c0 = process.cpuUsage();
  try { return fn(...args); } finally { const c = process.cpuUsage(c0); spent[key] += c.user + c.system; }
};
const models = new ModelCache();
const kernels = new KernelCache();
const stages = {
  rerank: timed('rerank', (second, { terms, dense, denseFeedbackOf }, queryTerms) => {
    const model = models.get(second.model);
    return rerankCandidates(queryTerms ?? combinedQuery(model, second.texts ?? []), terms, { ...model.shape?.weights, denseScores: dense, denseFeedbackOf });
  }),
  embed: () => { throw new Error('no texts here'); },
  searchShared: timed('search', (handle, query, k, nprobe, rows) => loadFaissAddon().searchShared(handle, query, k, nprobe, rows)),
};
// The pool, on this thread: each task answered at once.
const pool = { threads: 1, runBatched: async (_name, task) => answerQuery(task, kernels.of(task.store, task.memory), stages) };

(async () => {
  const [dataDir, probesArg = 'tuned', queriesArg = '300'] = process.argv.slice(2);
  const [tenant] = fs.readdirSync(path.join(dataDir, 'index')).filter((f) => fs.statSync(path.join(dataDir, 'index', f)).isDirectory());
  const { model, index } = await loadContentSnapshot(path.join(dataDir, 'index', tenant), { pool });
  while (index.approximateState !== 'ready') await new Promise((r) => setTimeout(r, 50));
  const ids = [...index.ids()].sort(); // the same queries whatever order the rows lie in
  const second = usesSecondStage(model) ? { model, candidates: modelInfo(model).shape.candidates } : undefined;
  const queries = Array.from({ length: Number(queriesArg) }, (_, i) => ids[(i * 7919) % ids.length]);
  const ask = (id, opts) => {
    const exclude = new Set([id]);
    const query = opts.exact ? index.vectorOf(id) : { ids: [id] };
    return index.query(query, 10, { exclude, ...opts }, second && { ...second, ids: [id] });
  };
  // PROBE_NO_TRUTH=1: no exact answers (a profile of the approximate queries alone)
  const truth = [];
  if (!process.env.PROBE_NO_TRUTH) for (const id of queries) truth.push(await ask(id, { exact: true }));
  const snapshot = fs.readFileSync(path.join(dataDir, 'index', tenant, 'vectors.snapshot'));
  const tuned = JSON.parse(snapshot.subarray(12, 12 + snapshot.readUInt32LE(8)).toString('utf8')).extra?.ann?.nprobe;
  const probes = probesArg.split(',').map((p) => (p === 'tuned' ? undefined : Number(p)));
  for (const nprobe of probes) {
    let best = { cpu: Infinity };
    for (let round = 0; round < 3; round++) {
      spent.search = 0; spent.rerank = 0;
      const answers = [];
      const c0 = process.cpuUsage();
      for (const id of queries) answers.push(await ask(id, nprobe === undefined ? {} : { nprobe }));
      const c = process.cpuUsage(c0);
      const cpu = c.user + c.system;
      if (cpu < best.cpu) best = { cpu, search: spent.search, rerank: spent.rerank, answers };
    }
    let kept = 0; let total = 0;
    if (truth.length) best.answers.forEach((got, i) => {
      const want = new Set(truth[i].map((h) => h.id));
      kept += got.filter((h) => want.has(h.id)).length; total += truth[i].length;
    });
    const n = queries.length;
    const digest = require('crypto').createHash('sha1').update(JSON.stringify(best.answers)).digest('hex').slice(0, 12);
    console.log(`nprobe ${nprobe ?? `tuned (${tuned ?? '?'})`}: answers ${digest}, CPU µs a query ${(best.cpu / n).toFixed(0)} (search ${(best.search / n).toFixed(0)}, rerank ${(best.rerank / n).toFixed(0)}), recall@10 of the final answers ${truth.length ? (kept / total).toFixed(4) : '-'} over ${n}`);
  }
  process.exit(0);
})();
