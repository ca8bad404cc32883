// Session probe (issue 29): the row-scored IVF search at 82k, CPU a search (the least of five rounds; with one BLAS thread the process's CPU is the calling thread's) and what it keeps, for this build's addon
// (run the same file from another build's tree to compare): recall@10 and @801 of 200 searches (k = 801) against
// every row scored, at the given probes of round(4 √rows) lists trained on 40 √rows points, as the server builds them.
//   OPENBLAS_NUM_THREADS=1 node bench/probes/ivf-codes-shortlist.js <vectors.snapshot> [probes,…]
const { snapshotRows } = require('./snapshot-rows');
(async () => {
  const { addon, ids, dim, stride, all, vectors, labels, labelRows } = await snapshotRows(process.argv[2]);
  const probes = (process.argv[3] ?? '144,288').split(',').map(Number);
  const root = Math.sqrt(ids.length);
  const ivf = new addon.FaissIndex(dim, `IVF${Math.round(4 * root)},SQ8`, 'ip');
  const n = Math.min(ids.length, Math.ceil(40 * root)); const step = ids.length / n; const sample = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) sample.set(all.subarray(Math.floor(i * step) * dim, (Math.floor(i * step) + 1) * dim), i * dim);
  await ivf.train(sample); await ivf.add(all, labels);
  const h = ivf.share();
  const K = 801; const queries = Array.from({ length: 200 }, (_, i) => (i * 7919) % ids.length);
  const exactTop = (qi) => {
    const q = all.subarray(qi * dim, (qi + 1) * dim); const s = new Float32Array(ids.length);
    for (let r = 0; r < ids.length; r++) { let d = 0; for (let j = 0; j < dim; j++) d += all[r * dim + j] * q[j]; s[r] = d; }
    return Array.from(s.keys()).sort((a, b) => s[b] - s[a] || a - b).slice(0, K).map((r) => BigInt(r + 1));
  };
  const truth = queries.map(exactTop);
  for (const p of probes) {
    let at10 = 0; let atK = 0; let answers; let cpu = Infinity;
    for (let round = 0; round < 5; round++) { // the quickest of five rounds: a shared machine's load only adds
      const c0 = process.cpuUsage();
      answers = queries.map((qi) => addon.searchShared(h, all.subarray(qi * dim, (qi + 1) * dim), K, p, { vectors, stride, labelRows }).labels);
      const c = process.cpuUsage(c0);
      cpu = Math.min(cpu, c.user + c.system);
    }
    answers.forEach((got, i) => {
      const set = new Set(got);
      at10 += truth[i].slice(0, 10).filter((l) => set.has(l)).length / 10;
      atK += truth[i].filter((l) => set.has(l)).length / K;
    });
    console.log(`nprobe ${p}: CPU µs a search ${(cpu / queries.length).toFixed(0)}, recall@10 ${(at10 / queries.length).toFixed(4)}, recall@${K} ${(atK / queries.length).toFixed(4)}`);
  }
  process.exit(0);
})();
