// Session probe (issue 29, branch large-keys made mergeable); see docs/decisions/vector.md, "Lists scored from the store's rows".
//   node bench/probes/ivf-train-recall.js <vectors.snapshot> …
// node train-recall.js <vectors.snapshot> <nlist> <trainPoints,...>: recall@10 / @800 of lists scored from the rows by probes.
const { snapshotRows } = require('./snapshot-rows');
(async () => {
  const [file, nlistArg, trainsArg] = process.argv.slice(2);
  const { addon, ids, dim, stride, all, vectors, labels, labelRows } = await snapshotRows(file);
  const exact = new addon.FaissIndex(dim, 'IDMap,Flat', 'ip'); await exact.add(all, labels);
  const queries = Array.from({ length: 100 }, (_, i) => (i * 7919) % ids.length);
  const truth = [];
  for (const qi of queries) { const { labels: f } = await exact.search(all.subarray(qi * dim, (qi + 1) * dim), 801); truth.push(Array.from(f, Number).filter((l) => l !== qi + 1).slice(0, 800)); }
  const nlist = Number(nlistArg);
  for (const tp of trainsArg.split(',').map(Number)) {
    const ivf = new addon.FaissIndex(dim, `IVF${nlist},SQ8`, 'ip');
    const n = Math.min(ids.length, tp); const step = ids.length / n; const sample = new Float32Array(n * dim);
    for (let i = 0; i < n; i++) sample.set(all.subarray(Math.floor(i * step) * dim, (Math.floor(i * step) + 1) * dim), i * dim);
    const c0 = process.cpuUsage(); await ivf.train(sample); const c = process.cpuUsage(c0);
    await ivf.add(all, labels);
    const h = ivf.share();
    const line = [];
    for (const p of [64, 128, 256]) {
      let top = 0, deep = 0;
      queries.forEach((qi, i) => {
        const g = addon.searchShared(h, all.subarray(qi * dim, (qi + 1) * dim), 801, p, { vectors, stride, labelRows });
        const found = new Set(Array.from(g.labels, Number));
        top += truth[i].slice(0, 10).filter((l) => found.has(l)).length / 10; deep += truth[i].filter((l) => found.has(l)).length / 800;
      });
      line.push(`${p}: @10 ${(top / queries.length).toFixed(3)} @800 ${(deep / queries.length).toFixed(3)}`);
    }
    console.log(`IVF${nlist} trained on ${n} points (${((c.user + c.system) / 1e6).toFixed(1)} s CPU): ${line.join(' | ')}`);
    addon.unshare(h);
  }
  process.exit(0);
})();
