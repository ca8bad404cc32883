// Session probe (issue 29, branch large-keys made mergeable); see docs/decisions/vector.md, "Lists scored from the store's rows".
//   node bench/probes/ann-recall-by-probes.js <vectors.snapshot> …
// node recall-ann.js <vectors.snapshot>: the snapshot's own FAISS file searched with the rows (as a pool thread does)
// at several probe counts against the exact top 10 (the document itself excluded), strict and with ties counted.
const path = require('path');
const ROOT = path.join(__dirname, '..', '..');
const { VectorIndex } = require(path.join(ROOT, 'dist/src/vector'));
const { loadFaissAddon } = require(path.join(ROOT, 'dist/src/vector/faiss-addon'));
const { scoreRowsInto } = require(path.join(ROOT, 'dist/src/vector/dense-kernel'));
const fs = require('fs');
(async () => {
  const file = process.argv[2];
  const { index } = await VectorIndex.load(file, { approximate: false });
  const hdr = (() => { const fd = fs.openSync(file, 'r'); const b = Buffer.alloc(12); fs.readSync(fd, b, 0, 12, 0); const n = b.readUInt32LE(8); const h = Buffer.alloc(n); fs.readSync(fd, h, 0, n, 12); return JSON.parse(h.toString()); })();
  const ann = hdr.extra.ann; const addon = loadFaissAddon();
  const faiss = await addon.readIndex(path.join(path.dirname(file), hdr.extra.annFile));
  const ids = hdr.ids; const dim = index.dim; const stride = Math.ceil(dim / 4) * 4;
  const vectors = new Float32Array(ids.length * stride); ids.forEach((id, i) => vectors.set(index.vectorOf(id), i * stride));
  const labelRows = new Int32Array(ann.nextLabel + 1); ann.labels.forEach((l, i) => { if (l >= 0) labelRows[l] = i + 1; });
  const h = faiss.share();
  const rowOf = new Map(ids.map((id, i) => [id, i]));
  let n = Number(process.env.QUERIES || 200);
  const queries = process.env.SAMPLE ? Array.from({ length: Number(process.env.SAMPLE) }, (_, i) => Math.floor((i + 0.5) * ids.length / Number(process.env.SAMPLE))) : Array.from({ length: n }, (_, i) => rowOf.get(`d${(i * 7919) % Number(process.env.DOCS || 82000)}`));
  if (process.env.SAMPLE) n = queries.length;
  const all = new Float32Array(ids.length); const rowsAll = Int32Array.from(ids, (_, i) => i);
  const truth = queries.map((qi) => {
    const q = vectors.subarray(qi * stride, (qi + 1) * stride);
    scoreRowsInto(vectors, stride, rowsAll, q, all);
    const order = Array.from(all.keys()).filter((r) => r !== qi).sort((a, b) => all[b] - all[a] || (ids[a] < ids[b] ? -1 : 1)).slice(0, 10);
    return { rows: order, last: all[order[9]] };
  });
  console.log(`${file}: ${ann.description}, tuned nprobe ${ann.nprobe} at ${ann.tunedRows} rows`);
  for (const p of [8, 16, 24, 32, 48, 64, 96, 128]) {
    let strict = 0; let ties = 0;
    queries.forEach((qi, i) => {
      const q = vectors.subarray(qi * stride, (qi + 1) * stride);
      const got = addon.searchShared(h, q.subarray(0, dim), 11, p, { vectors, stride, labelRows });
      const rows = Array.from(got.labels, (l) => labelRows[Number(l)] - 1).filter((r) => r !== qi).slice(0, 10);
      const scores = Array.from(got.distances);
      const want = new Set(truth[i].rows);
      strict += rows.filter((r) => want.has(r)).length / 10;
      ties += Math.min(10, rows.filter((r, j) => want.has(r) || all && scores[Array.from(got.labels, (l) => labelRows[Number(l)] - 1).indexOf(r)] === truth[i].last).length) / 10;
    });
    console.log(`nprobe ${p}: recall@10 ${(strict / n).toFixed(3)} (ties at the 10th counted ${(ties / n).toFixed(3)})`);
  }
  process.exit(0);
})();
