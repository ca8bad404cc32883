// Session probe (issue 29, branch large82k): the row-scored IVF search of two or more builds of the FAISS addon on
// the same vectors, alternated in one process (each its own index, trained the same way): the least CPU a search over
// seven rounds each, and whether their first 50 answers are the same to the bit. Two copies of one build read up to
// 15 % apart on the shared machine of the session (the lists lie at other addresses): only larger gaps are read.
//   OPENBLAS_NUM_THREADS=1 node bench/probes/ivf-addons-ab.js <vectors.snapshot> <probes> <searches> <addon.node>…
process.env.KINDRED_FAISS_ADDON = process.argv[5];
const { snapshotRows } = require('./snapshot-rows');
(async () => {
  const { ids, dim, stride, all, vectors, labels, labelRows } = await snapshotRows(process.argv[2]);
  const addons = process.argv.slice(5).map((f) => { const m = { exports: {} }; process.dlopen(m, f); return m.exports; });
  const probes = Number(process.argv[3]); const searches = Number(process.argv[4]);
  const root = Math.sqrt(ids.length);
  const n = Math.min(ids.length, Math.ceil(40 * root)); const step = ids.length / n; const sample = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) sample.set(all.subarray(Math.floor(i * step) * dim, (Math.floor(i * step) + 1) * dim), i * dim);
  const handles = [];
  for (const addon of addons) {
    const ivf = new addon.FaissIndex(dim, `IVF${Math.round(4 * root)},SQ8`, 'ip');
    await ivf.train(sample); await ivf.add(all, labels); handles.push(ivf.share());
  }
  const best = addons.map(() => Infinity);
  const answers = addons.map(() => []);
  for (let round = 0; round < 7; round++) {
    addons.forEach((addon, a) => {
      const c0 = process.cpuUsage();
      for (let i = 0; i < searches; i++) {
        const qi = (i * 7919) % ids.length;
        const r = addon.searchShared(handles[a], all.subarray(qi * dim, (qi + 1) * dim), 801, probes, { vectors, stride, labelRows });
        if (round === 0 && i < 50) answers[a].push(Buffer.from(r.labels.buffer).toString('hex') + Buffer.from(r.distances.buffer).toString('hex'));
      }
      const c = process.cpuUsage(c0);
      best[a] = Math.min(best[a], (c.user + c.system) / searches);
    });
  }
  const same = answers.every((list) => list.every((x, i) => x === answers[0][i]));
  console.log(`${probes} probes: CPU µs a search, the least of 7 alternated rounds of ${searches}: ${best.map((b) => b.toFixed(0)).join(' / ')}; first 50 answers the same: ${same}`);
  process.exit(0);
})();
