// Session probe (issue 29, branch large82k): rewrites a copy of a key's content snapshot with its rows in the order of
// the approximate index's inverted lists (each list's labels side by side; rows no list holds last), the same ids,
// vectors, terms, labels and FAISS file: restored, the store's rows of a list lie together, as a snapshot written in
// list order would leave them. For measuring whole queries on both layouts (query-task-cpu.js).
//   node bench/probes/snapshot-list-order.js <data dir copy>
const fs = require('fs');
const path = require('path');
const ROOT = path.join(__dirname, '..', '..');
const { loadFaissAddon } = require(path.join(ROOT, 'dist/src/vector/faiss-addon'));
const { SparseRows } = require(path.join(ROOT, 'dist/src/vector/sparse-rows'));
const { writeTermsFile } = require(path.join(ROOT, 'dist/src/vector/snapshot'));

(async () => {
  const dataDir = process.argv[2];
  const [tenant] = fs.readdirSync(path.join(dataDir, 'index')).filter((f) => fs.statSync(path.join(dataDir, 'index', f)).isDirectory());
  const file = path.join(dataDir, 'index', tenant, 'vectors.snapshot');
  const bytes = fs.readFileSync(file);
  const headerLength = bytes.readUInt32LE(8);
  const header = JSON.parse(bytes.subarray(12, 12 + headerLength).toString('utf8'));
  const start = 12 + headerLength + ((4 - ((12 + headerLength) % 4)) % 4);
  const { dim, ids } = header;
  const n = ids.length;
  const rows = new Float32Array(bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + start + n * dim * 4));
  const stride = Math.ceil(dim / 4) * 4;
  const vectors = new Float32Array(n * stride);
  for (let r = 0; r < n; r++) vectors.set(rows.subarray(r * dim, (r + 1) * dim), r * stride);
  const { ann } = header.extra;
  const labelRows = new Int32Array(ann.nextLabel + 1);
  ann.labels.forEach((label, row) => { if (label > 0) labelRows[label] = row + 1; });
  const addon = loadFaissAddon();
  const faiss = await addon.readIndex(path.join(path.dirname(file), header.extra.annFile));
  const handle = faiss.share();
  // A row's own vector probes its own list first (nprobe 1): every label of that list comes back.
  const order = [];
  const placed = new Uint8Array(n);
  const place = (row) => { if (row >= 0 && !placed[row]) { placed[row] = 1; order.push(row); } };
  for (let r = 0; r < n; r++) {
    if (placed[r] || ann.labels[r] <= 0) continue;
    const found = addon.searchShared(handle, vectors.subarray(r * stride, r * stride + dim), 4096, 1, { vectors, stride, labelRows });
    for (const label of found.labels) if (label > 0n) place(labelRows[Number(label)] - 1);
    place(r);
  }
  for (let r = 0; r < n; r++) place(r);
  const reordered = new Float32Array(n * dim);
  order.forEach((row, at) => reordered.set(rows.subarray(row * dim, (row + 1) * dim), at * dim));
  header.ids = order.map((row) => ids[row]);
  header.extra.ann.labels = order.map((row) => ann.labels[row]);
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const pad = (4 - ((12 + json.length) % 4)) % 4;
  const head = Buffer.alloc(12 + json.length + pad);
  bytes.copy(head, 0, 0, 8);
  head.writeUInt32LE(json.length, 8);
  json.copy(head, 12);
  const { rows: terms } = await SparseRows.readFile(`${file}.terms`);
  const termsFile = await terms.packFile(Int32Array.from(order), async () => undefined);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(reordered.buffer)]));
  await writeTermsFile(`${file}.terms`, termsFile);
  console.log(`${n} rows rewritten in list order (${order.filter((row, at) => row !== at).length} moved)`);
  process.exit(0);
})();
