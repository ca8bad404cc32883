// Session probe (issue 29, eleventh session): CPU time of one search on the calling thread (process.cpuUsage over 300
// searches, k = 801) for FAISS 8-bit codes against float32 lists scanned by the addon (native/src/ivf_flat_scan.h).
//   node bench/probes/ivf-scan-cpu.js <vectors.snapshot>
const { VectorIndex } = require('../../dist/src/vector');
const { loadFaissAddon } = require('../../dist/src/vector/faiss-addon');
(async () => {
  const { index } = await VectorIndex.load(process.argv[2], { approximate: false });
  const addon = loadFaissAddon();
  const ids = [...index.ids()]; const dim = index.dim;
  const all = new Float32Array(ids.length * dim); ids.forEach((id, i) => all.set(index.vectorOf(id), i * dim));
  const labels = BigInt64Array.from(ids, (_, i) => BigInt(i));
  for (const [desc, probes] of [['IVF1147,Flat', [16, 72, 144]], ['IVF224,SQ8', [128]], ['IVF224,Flat', [128]]]) {
    const nlist = Number(/IVF(\d+)/.exec(desc)[1]);
    const ivf = new addon.FaissIndex(dim, desc, 'ip');
    const n = Math.min(ids.length, 40 * nlist); const step = ids.length / n; const sample = new Float32Array(n * dim);
    for (let i = 0; i < n; i++) sample.set(all.subarray(Math.floor(i * step) * dim, (Math.floor(i * step) + 1) * dim), i * dim);
    await ivf.train(sample); await ivf.add(all, labels);
    const h = ivf.share();
    for (const p of probes) {
      const c0 = process.cpuUsage(); const t0 = performance.now();
      for (let i = 0; i < 300; i++) { const qi = (i * 7919) % ids.length; addon.searchShared(h, all.subarray(qi * dim, (qi + 1) * dim), 801, p); }
      const c = process.cpuUsage(c0);
      console.log(desc, 'nprobe', p, 'cpu µs/search', ((c.user + c.system) / 300).toFixed(0), 'wall', ((performance.now() - t0) / 300 * 1000).toFixed(0));
    }
  }
  process.exit(0);
})();
