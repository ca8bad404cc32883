// Session probe (issue 29, branch large-keys made mergeable); see docs/decisions/vector.md, "Lists scored from the store's rows".
//   node bench/probes/ivf-build-memory.js <vectors.snapshot> …
// node ivf-build.js <vectors.snapshot> <description> [trainPoints]: times FAISS train and add in process, RSS before/after.
const path = require('path');
const ROOT = path.join(__dirname, '..', '..');
const { readSnapshot } = require(path.join(ROOT, 'dist/src/vector/snapshot'));
const { loadFaissAddon } = require(path.join(ROOT, 'dist/src/vector/faiss-addon'));
const fs = require('fs');
function rssMB() { const s = fs.readFileSync('/proc/self/status', 'utf8'); return Number(/VmRSS:\s+(\d+)/.exec(s)[1]) / 1024; }
(async () => {
  const [file, desc, trainArg] = process.argv.slice(2);
  let dim = 0; let all;
  await readSnapshot(file, (h) => { dim = h.dim; all = new Float32Array(h.ids.length * dim); }, (first, count) => all.subarray(first * dim, (first + count) * dim), () => {});
  const n = all.length / dim;
  const addon = loadFaissAddon();
  if (process.env.THREADS) addon.setThreads(Number(process.env.THREADS));
  const mem = require(path.join(ROOT, 'native/build/memory.node'));
  const nlist = Number(/IVF(\d+)/.exec(desc)[1]);
  const want = Math.min(n, Number(trainArg || nlist * 40));
  const sample = new Float32Array(want * dim);
  const step = n / want;
  for (let i = 0; i < want; i++) sample.set(all.subarray(Math.floor(i * step) * dim, Math.floor(i * step) * dim + dim), i * dim);
  global.gc && global.gc(); mem.trim();
  const r0 = rssMB();
  let idx = new addon.FaissIndex(dim, desc, 'ip');
  let t = performance.now();
  const cpu0 = process.cpuUsage();
  await idx.train(sample);
  const trainMs = performance.now() - t;
  const cpu1 = process.cpuUsage(cpu0);
  t = performance.now();
  for (let s = 0; s < n; s += 4096) {
    const m = Math.min(4096, n - s);
    await idx.add(all.slice(s * dim, (s + m) * dim), BigInt64Array.from({ length: m }, (_, i) => BigInt(s + i + 1)));
  }
  const addMs = performance.now() - t;
  const cpu2 = process.cpuUsage(cpu0);
  global.gc && global.gc(); mem.trim();
  let r1 = rssMB();
  let reread;
  if (process.env.REREAD) {
    const tmp = path.join(require('os').tmpdir(), `reread-${process.pid}.faiss`);
    await idx.write(tmp);
    reread = await addon.readIndex(tmp);
    fs.rmSync(tmp);
    idx = null;
    for (let i = 0; i < 5; i++) { global.gc(); await new Promise((r) => setTimeout(r, 50)); }
    mem.trim();
    const r2 = rssMB();
    console.log('reread: rss growth per row', Math.round((r2 - r0) * 2 ** 20 / n), 'before', Math.round((r1 - r0) * 2 ** 20 / n));
  }
  console.log(JSON.stringify({ threads: process.env.THREADS || 'all', desc, rows: n, dim, trainPoints: want, trainMs: Math.round(trainMs), trainCpuMs: Math.round((cpu1.user + cpu1.system) / 1000), addMs: Math.round(addMs), totalCpuMs: Math.round((cpu2.user + cpu2.system) / 1000), rssGrowthBytesPerRow: Math.round((r1 - r0) * 2 ** 20 / n) }));
})();
