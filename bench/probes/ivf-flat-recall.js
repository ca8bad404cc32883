// Session probe (issue 29, eleventh session): how much of the exact dense answer an IVF index of float32 codes keeps,
// scored exactly in the probed lists (native/src/ivf_flat_scan.h), by lists built and lists probed: the first 10 and
// the second stage's 800 candidates, and the time of one search on the calling thread.
//   node bench/probes/ivf-flat-recall.js <vectors.snapshot> [lists,lists…] [queries]
const { VectorIndex } = require('../../dist/src/vector');
const { loadFaissAddon } = require('../../dist/src/vector/faiss-addon');

const [file, listsArg = '224,448,1024', queriesArg = '200'] = process.argv.slice(2);
const DEEP = 800;
(async () => {
  const { index } = await VectorIndex.load(file, { approximate: false });
  const addon = loadFaissAddon();
  const ids = [...index.ids()];
  const dim = index.dim;
  const all = new Float32Array(ids.length * dim);
  ids.forEach((id, i) => all.set(index.vectorOf(id), i * dim));
  const labels = BigInt64Array.from(ids, (_, i) => BigInt(i));
  const queries = Array.from({ length: Number(queriesArg) }, (_, i) => (i * 7919) % ids.length);
  const exactIndex = new addon.FaissIndex(dim, 'IDMap,Flat', 'ip');
  await exactIndex.add(all, labels);
  const truth = [];
  for (const qi of queries) {
    const { labels: found } = await exactIndex.search(all.subarray(qi * dim, (qi + 1) * dim), DEEP + 1);
    truth.push(Array.from(found, Number).filter((l) => l !== qi).slice(0, DEEP));
  }
  console.log(`${ids.length} vectors of ${dim} dims, ${queries.length} queries (each itself excluded)`);
  for (const nlist of listsArg.split(',').map(Number)) {
    const ivf = new addon.FaissIndex(dim, `IVF${nlist},Flat`, 'ip');
    const step = ids.length / Math.min(ids.length, 40 * nlist);
    const sample = new Float32Array(Math.min(ids.length, 40 * nlist) * dim);
    for (let i = 0; i < sample.length / dim; i++) sample.set(all.subarray(Math.floor(i * step) * dim, (Math.floor(i * step) + 1) * dim), i * dim);
    let t0 = performance.now();
    await ivf.train(sample);
    await ivf.add(all, labels);
    const buildS = (performance.now() - t0) / 1000;
    const handle = ivf.share();
    for (const nprobe of [4, 8, 16, 24, 32, 48, 64, 96, 128].filter((p) => p <= nlist)) {
      let top = 0;
      let deep = 0;
      t0 = performance.now();
      const got = queries.map((qi) => addon.searchShared(handle, all.subarray(qi * dim, (qi + 1) * dim), DEEP + 1, nprobe));
      const ms = (performance.now() - t0) / queries.length;
      got.forEach((g, i) => {
        const found = new Set(Array.from(g.labels, Number));
        top += truth[i].slice(0, 10).filter((l) => found.has(l)).length / 10;
        deep += truth[i].filter((l) => found.has(l)).length / DEEP;
      });
      console.log(`IVF${nlist} (built in ${buildS.toFixed(1)} s) nprobe ${nprobe}: recall@10 ${(top / queries.length).toFixed(3)}, recall@${DEEP} ${(deep / queries.length).toFixed(3)}, ${ms.toFixed(2)} ms a search`);
    }
    addon.unshare(handle);
  }
  process.exit(0);
})();
