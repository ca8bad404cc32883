/** The k smallest items under `cmp`, sorted: a bounded max-heap when k is much smaller than n. */
export function topK(n: number, k: number, cmp: (a: number, b: number) => number): number[] {
  if (k <= 0 || n === 0) return [];
  if (n <= k * 4 || k > 2000) {
    const all = Array.from({ length: n }, (_, i) => i);
    all.sort(cmp);
    return all.slice(0, k);
  }
  // heap[0] is the worst of the kept items
  const heap: number[] = [];
  const worse = (a: number, b: number): boolean => cmp(a, b) > 0;
  const siftUp = (i: number): void => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!worse(heap[i], heap[p])) break;
      [heap[i], heap[p]] = [heap[p], heap[i]];
      i = p;
    }
  };
  const siftDown = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l], heap[m])) m = l;
      if (r < heap.length && worse(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  for (let i = 0; i < n; i++) {
    if (heap.length < k) {
      heap.push(i);
      siftUp(heap.length - 1);
    } else if (cmp(i, heap[0]) < 0) {
      heap[0] = i;
      siftDown(0);
    }
  }
  return heap.sort(cmp);
}
