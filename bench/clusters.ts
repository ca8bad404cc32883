/**
 * Clustering quality on 20 Newsgroups (train split, headers stripped) with k = 20: purity and NMI against the
 * newsgroup labels, for k-means over Kindred's document embeddings (the corpus LSA model the service fits)
 * and, in the same run, k-means over plain TF-IDF vectors. Usage: node dist/bench/clusters.js [seeds=3]
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { embedBatch, fitModelSync } from '../src/embedding';
import { analyze } from '../src/text';
import { kmeans, DEFAULT_SEED } from '../src/clustering/kmeans';
import { nmi, purity } from '../src/clustering/metrics';
import { seededRandom } from '../src/random';
import { clusterWords, documentWords } from '../src/clustering/words';
import { RESTARTS } from '../src/clustering/task';

const DATA = process.env.NEWSGROUPS_FILE ?? '/work/shared/data/20newsgroups/20newsgroups-bydate-train.jsonl.gz';
const K = 20;

interface Post { label: string; text: string }

function load(): Post[] {
  const lines = zlib.gunzipSync(fs.readFileSync(DATA)).toString('utf8').split('\n').filter(Boolean);
  return lines.map((line) => {
    const { label, text } = JSON.parse(line) as Post;
    const blank = text.indexOf('\n\n');
    return { label, text: blank >= 0 ? text.slice(blank + 2) : text };
  });
}

let peakRss = 0;
const sampleMemory = () => { peakRss = Math.max(peakRss, process.memoryUsage().rss); };
const timer = setInterval(sampleMemory, 100);

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2; };

/** Sparse L2-normalised TF-IDF rows (sublinear tf, idf = ln(N/df)+1, terms in ≥ 2 and ≤ 50 % of documents). */
function tfidf(texts: string[]) {
  const docs = texts.map((t) => analyze(t).terms);
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  const vocab = new Map<string, number>();
  for (const [t, n] of df) if (n >= 2 && n <= docs.length / 2) vocab.set(t, vocab.size);
  const idf = new Float64Array(vocab.size);
  for (const [t, i] of vocab) idf[i] = Math.log(docs.length / df.get(t)!) + 1;
  const rows = docs.map((d) => {
    const counts = new Map<number, number>();
    for (const t of d) { const i = vocab.get(t); if (i !== undefined) counts.set(i, (counts.get(i) ?? 0) + 1); }
    const ids = Int32Array.from(counts.keys());
    const w = Float64Array.from(ids, (i) => (1 + Math.log(counts.get(i)!)) * idf[i]!);
    const norm = Math.hypot(...w) || 1;
    return { ids, weights: w.map((x) => x / norm) };
  });
  return { rows, dim: vocab.size };
}

type SparseRow = { ids: Int32Array; weights: Float64Array };

/** Euclidean k-means (k-means++ seeding, Lloyd) on sparse unit rows with dense centroids: ‖x−c‖² = 1 + ‖c‖² − 2x·c. */
function sparseKmeans(rows: SparseRow[], dim: number, k: number, seed: number, restarts: number): { assignments: Int32Array; inertia: number } {
  const random = seededRandom(seed);
  const n = rows.length;
  const dot = (r: SparseRow, c: Float64Array, off: number) => { let s = 0; for (let j = 0; j < r.ids.length; j++) s += r.weights[j]! * c[off + r.ids[j]!]!; return s; };
  let best: { assignments: Int32Array; inertia: number } | undefined;
  for (let run = 0; run < restarts; run++) {
    const centroids = new Float64Array(k * dim);
    const norms = new Float64Array(k);
    const nearest = new Float64Array(n).fill(Infinity);
    let chosen = Math.floor(random() * n);
    for (let c = 0; c < k; c++) {
      const r = rows[chosen]!;
      for (let j = 0; j < r.ids.length; j++) centroids[c * dim + r.ids[j]!] = r.weights[j]!;
      norms[c] = 1;
      let total = 0;
      for (let i = 0; i < n; i++) { const d = Math.max(0, 2 - 2 * dot(rows[i]!, centroids, c * dim)); if (d < nearest[i]!) nearest[i] = d; total += nearest[i]!; }
      let target = random() * total;
      chosen = n - 1;
      for (let i = 0; i < n; i++) { target -= nearest[i]!; if (target < 0) { chosen = i; break; } }
    }
    const assignments = new Int32Array(n).fill(-1);
    let inertia = 0;
    for (let iter = 0; iter < 100; iter++) {
      let changed = 0;
      inertia = 0;
      for (let i = 0; i < n; i++) {
        let bc = 0; let bd = Infinity;
        for (let c = 0; c < k; c++) { const d = 1 + norms[c]! - 2 * dot(rows[i]!, centroids, c * dim); if (d < bd) { bd = d; bc = c; } }
        inertia += bd;
        if (assignments[i] !== bc) { assignments[i] = bc; changed++; }
      }
      if (changed === 0) break;
      centroids.fill(0);
      const counts = new Int32Array(k);
      rows.forEach((r, i) => { const c = assignments[i]!; counts[c]!++; for (let j = 0; j < r.ids.length; j++) centroids[c * dim + r.ids[j]!] += r.weights[j]!; });
      for (let c = 0; c < k; c++) {
        let s = 0;
        for (let j = 0; j < dim; j++) { const v = counts[c] ? centroids[c * dim + j]! / counts[c]! : 0; centroids[c * dim + j] = v; s += v * v; }
        norms[c] = s;
      }
    }
    if (!best || inertia < best.inertia) best = { assignments, inertia };
  }
  return best!;
}

function main(): void {
  const seeds = Number(process.argv[2] ?? 3);
  const t0 = Date.now();
  const posts = load();
  const labels = posts.map((p) => p.label);
  const texts = posts.map((p) => p.text);
  console.log(`20NG train: ${posts.length} posts, ${new Set(labels).size} labels, k = ${K}, ${seeds} seeds × ${RESTARTS} k-means++ restarts`);

  let t = Date.now();
  const model = fitModelSync(texts);
  const embedded = embedBatch(model, texts);
  const fitEmbedMs = Date.now() - t;
  sampleMemory();
  const dim = embedded.dim;
  const vectors = embedded.vectors;
  for (let i = 0; i < posts.length; i++) {
    let s = 0;
    for (let j = 0; j < dim; j++) s += vectors[i * dim + j]! ** 2;
    const norm = Math.sqrt(s) || 1;
    for (let j = 0; j < dim; j++) vectors[i * dim + j]! /= norm;
  }
  t = Date.now();
  const sparse = tfidf(texts);
  const tfidfMs = Date.now() - t;

  const kindred: Array<{ purity: number; nmi: number; ms: number; iterations: number }> = [];
  const baseline: Array<{ purity: number; nmi: number; ms: number }> = [];
  let firstAssignments: Int32Array | undefined;
  for (let s = 0; s < seeds; s++) {
    t = Date.now();
    const r = kmeans({ data: vectors, rows: posts.length, dim }, { k: K, seed: DEFAULT_SEED + s, restarts: RESTARTS });
    kindred.push({ purity: purity(labels, r.assignments), nmi: nmi(labels, r.assignments), ms: Date.now() - t, iterations: r.iterations });
    firstAssignments ??= r.assignments;
    sampleMemory();
    t = Date.now();
    const b = sparseKmeans(sparse.rows, sparse.dim, K, DEFAULT_SEED + s, RESTARTS);
    baseline.push({ purity: purity(labels, b.assignments), nmi: nmi(labels, b.assignments), ms: Date.now() - t });
    sampleMemory();
    console.log(`seed ${s}: kindred purity ${kindred[s]!.purity.toFixed(3)} nmi ${kindred[s]!.nmi.toFixed(3)} (${kindred[s]!.ms} ms) | tf-idf purity ${baseline[s]!.purity.toFixed(3)} nmi ${baseline[s]!.nmi.toFixed(3)} (${baseline[s]!.ms} ms)`);
  }
  t = Date.now();
  const words = clusterWords(texts.map(documentWords), firstAssignments!, K);
  const wordsMs = Date.now() - t;
  clearInterval(timer);
  const summary = {
    posts: posts.length, dim, vocabulary: sparse.dim, fitEmbedMs, tfidfMs, wordsMs,
    kindred: { purity: median(kindred.map((x) => x.purity)), nmi: median(kindred.map((x) => x.nmi)), ms: median(kindred.map((x) => x.ms)), runs: kindred },
    tfidf: { purity: median(baseline.map((x) => x.purity)), nmi: median(baseline.map((x) => x.nmi)), ms: median(baseline.map((x) => x.ms)), runs: baseline },
    peakRssMiB: Math.round(peakRss / 2 ** 20), totalMs: Date.now() - t0,
  };
  console.log(JSON.stringify(summary, null, 2));
  // The biggest labels per cluster beside its words: a readable check that the words fit the cluster.
  for (let c = 0; c < K; c++) {
    const counts = new Map<string, number>();
    firstAssignments!.forEach((a, i) => { if (a === c) counts.set(labels[i]!, (counts.get(labels[i]!) ?? 0) + 1); });
    const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 2).map(([l, n]) => `${l} ${n}`).join(', ');
    console.log(`cluster ${c} [${top}]: ${words[c]!.slice(0, 8).map((w) => w.word).join(' ')}`);
  }
  const out = process.env.CLUSTERS_BENCH_JSON;
  if (out) fs.writeFileSync(path.resolve(out), JSON.stringify(summary, null, 2));
}

main();
