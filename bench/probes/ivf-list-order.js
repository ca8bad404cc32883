// Session probe (issue 29, branch large82k): the row-scored IVF search with the store's rows in the snapshot's order
// (ids) against rows laid out list by list (each list's labels side by side, as a snapshot written in list order would
// restore them), on the same FAISS index, alternated in one process: the least CPU a search over nine rounds each.
//   OPENBLAS_NUM_THREADS=1 node bench/probes/ivf-list-order.js <vectors.snapshot> <probes> <searches>
const { snapshotRows } = require('./snapshot-rows');
(async () => {
  const { addon, ids, dim, stride, all, vectors, labels, labelRows } = await snapshotRows(process.argv[2]);
  const p = Number(process.argv[3]); const N = Number(process.argv[4]);
  const root = Math.sqrt(ids.length);
  const ivf = new addon.FaissIndex(dim, `IVF${Math.round(Number(process.env.LPR ?? 4) * root)},SQ8`, 'ip');
  const n = Math.min(ids.length, Math.ceil(40 * root)); const step = ids.length / n; const sample = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) sample.set(all.subarray(Math.floor(i * step) * dim, (Math.floor(i * step) + 1) * dim), i * dim);
  await ivf.train(sample); await ivf.add(all, labels);
  const h = ivf.share();
  // each list's labels: a row's own vector probes its own list first (nprobe 1)
  const order = []; const placed = new Uint8Array(ids.length + 1); let lists = 0;
  for (let r = 0; r < ids.length; r++) {
    if (placed[r + 1]) continue;
    const got = addon.searchShared(h, all.subarray(r * dim, (r + 1) * dim), 4000, 1, { vectors, stride, labelRows }).labels;
    let inList = 0;
    for (const l of got) if (l > 0n && !placed[Number(l)]) { placed[Number(l)] = 1; order.push(Number(l)); inList++; }
    if (!placed[r + 1]) { placed[r + 1] = 1; order.push(r + 1); }
    lists++;
  }
  const byList = new Float32Array(vectors.length); const labelRowsByList = new Int32Array(labelRows.length);
  order.forEach((label, row) => { byList.set(vectors.subarray((label - 1) * stride, label * stride), row * stride); labelRowsByList[label] = row + 1; });
  console.log(`${lists} lists found, ${order.length} rows placed`);
  const layouts = [['id order', vectors, labelRows], ['list order', byList, labelRowsByList]];
  const best = layouts.map(() => Infinity); const first = layouts.map(() => []);
  for (let round = 0; round < 9; round++) {
    layouts.forEach(([, v, lr], a) => {
      const t0 = process.cpuUsage();
      for (let i = 0; i < N; i++) {
        const qi = (i * 7919) % ids.length;
        const r = addon.searchShared(h, all.subarray(qi * dim, (qi + 1) * dim), 801, p, { vectors: v, stride, labelRows: lr });
        if (round === 0 && i < 50) first[a].push(Buffer.from(r.labels.buffer).toString('hex') + Buffer.from(r.distances.buffer).toString('hex'));
      }
      const c = process.cpuUsage(t0);
      best[a] = Math.min(best[a], (c.user + c.system) / N);
    });
  }
  console.log(`probes ${p}: µs a search, min of 9 alternated rounds of ${N}: ${layouts.map(([name], a) => `${name} ${best[a].toFixed(0)}`).join(', ')}; same answers: ${first[0].every((x, i) => x === first[1][i])}`);
  process.exit(0);
})();
