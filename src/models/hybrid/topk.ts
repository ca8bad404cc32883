/** Indices of the k highest scores, best first, skipping indices where `skip` is set (bounded min-heap). */
export function topK(scores: ArrayLike<number>, k: number, skip?: Uint8Array, candidates?: ArrayLike<number>): Int32Array {
  const heapIdx = new Int32Array(k);
  const heapVal = new Float64Array(k);
  let size = 0;
  const n = candidates ? candidates.length : scores.length;
  for (let q = 0; q < n; q++) {
    const i = candidates ? candidates[q] : q;
    if (skip && skip[i]) continue;
    const v = scores[i];
    if (v !== v) continue; // NaN never ranks
    if (size < k) {
      // sift up
      let c = size++;
      while (c > 0) {
        const parent = (c - 1) >> 1;
        if (heapVal[parent] <= v) break;
        heapVal[c] = heapVal[parent];
        heapIdx[c] = heapIdx[parent];
        c = parent;
      }
      heapVal[c] = v;
      heapIdx[c] = i;
    } else if (k > 0 && v > heapVal[0]) {
      // replace root, sift down
      let c = 0;
      for (;;) {
        const l = 2 * c + 1;
        if (l >= size) break;
        const r = l + 1;
        const m = r < size && heapVal[r] < heapVal[l] ? r : l;
        if (heapVal[m] >= v) break;
        heapVal[c] = heapVal[m];
        heapIdx[c] = heapIdx[m];
        c = m;
      }
      heapVal[c] = v;
      heapIdx[c] = i;
    }
  }
  const order = Array.from({ length: size }, (_, j) => j).sort((a, b) => heapVal[b] - heapVal[a] || heapIdx[a] - heapIdx[b]);
  const out = new Int32Array(size);
  for (let j = 0; j < size; j++) out[j] = heapIdx[order[j]];
  return out;
}
