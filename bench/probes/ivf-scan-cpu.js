// Session probe (issue 29): CPU time of one search on the calling thread (process.cpuUsage over 300 searches, k = 801):
// FAISS's own scan of 8-bit codes (main before) against the probed lists scored from the key's rows
// (native/src/ivf_rows_scan.h: rows laid out as the store lays them, `stride` floats, in the snapshot's order).
//   node bench/probes/ivf-scan-cpu.js <vectors.snapshot>
const { snapshotRows } = require('./snapshot-rows');
(async () => {
  const { addon, ids, dim, stride, all, vectors, labels, labelRows } = await snapshotRows(process.argv[2]);
  const root = Math.sqrt(ids.length);
  const cases = [['IVF224,SQ8', 40 * 224, [128], false], [`IVF${Math.round(4 * root)},SQ8`, Math.ceil(40 * root), [16, 72, 144], true]];
  for (const [desc, trainPoints, probes, fromRows] of cases) {
    const ivf = new addon.FaissIndex(dim, desc, 'ip');
    const n = Math.min(ids.length, trainPoints); const step = ids.length / n; const sample = new Float32Array(n * dim);
    for (let i = 0; i < n; i++) sample.set(all.subarray(Math.floor(i * step) * dim, (Math.floor(i * step) + 1) * dim), i * dim);
    await ivf.train(sample); await ivf.add(all, labels);
    const h = ivf.share();
    for (const p of probes) {
      const c0 = process.cpuUsage(); const t0 = performance.now();
      for (let i = 0; i < 300; i++) {
        const qi = (i * 7919) % ids.length;
        addon.searchShared(h, all.subarray(qi * dim, (qi + 1) * dim), 801, p, fromRows ? { vectors, stride, labelRows } : undefined);
      }
      const c = process.cpuUsage(c0);
      console.log(desc, fromRows ? 'lists scored from the rows' : 'FAISS scan of the codes', 'nprobe', p, 'cpu µs/search', ((c.user + c.system) / 300).toFixed(0), 'wall', ((performance.now() - t0) / 300 * 1000).toFixed(0));
    }
  }
  process.exit(0);
})();
