// Shared by the session probes: a saved vector snapshot's rows, packed (dim floats a row) and as the store lays them
// (stride floats a row), with FAISS labels 1…n and the label → row table the addon's row scan takes.
const path = require('path');
const ROOT = path.join(__dirname, '..', '..');
const { VectorIndex } = require(path.join(ROOT, 'dist/src/vector'));
const { loadFaissAddon } = require(path.join(ROOT, 'dist/src/vector/faiss-addon'));

async function snapshotRows(file) {
  const { index } = await VectorIndex.load(file, { approximate: false });
  const addon = loadFaissAddon();
  const ids = [...index.ids()]; const dim = index.dim; const stride = Math.ceil(dim / 4) * 4;
  const all = new Float32Array(ids.length * dim); ids.forEach((id, i) => all.set(index.vectorOf(id), i * dim));
  const vectors = new Float32Array(ids.length * stride); ids.forEach((id, i) => vectors.set(index.vectorOf(id), i * stride));
  const labels = BigInt64Array.from(ids, (_, i) => BigInt(i + 1));
  const labelRows = Int32Array.from({ length: ids.length + 1 }, (_, l) => l);
  return { index, addon, ids, dim, stride, all, vectors, labels, labelRows };
}

module.exports = { snapshotRows };
