/** External clustering quality against reference labels. */

function contingency(labels: readonly string[], clusters: ArrayLike<number>) {
  const table = new Map<number, Map<string, number>>();
  const labelTotals = new Map<string, number>();
  labels.forEach((label, i) => {
    const c = clusters[i]!;
    let row = table.get(c);
    if (!row) table.set(c, (row = new Map()));
    row.set(label, (row.get(label) ?? 0) + 1);
    labelTotals.set(label, (labelTotals.get(label) ?? 0) + 1);
  });
  return { table, labelTotals };
}

/** Share of points whose cluster's majority label is their own label. */
export function purity(labels: readonly string[], clusters: ArrayLike<number>): number {
  if (labels.length === 0) return 1;
  let majority = 0;
  for (const row of contingency(labels, clusters).table.values()) majority += Math.max(...row.values());
  return majority / labels.length;
}

function entropy(counts: Iterable<number>, n: number): number {
  let h = 0;
  for (const c of counts) if (c > 0) h -= (c / n) * Math.log(c / n);
  return h;
}

/** Normalised mutual information, arithmetic-mean normalisation (scikit-learn's default): I / ((H(L)+H(C))/2). */
export function nmi(labels: readonly string[], clusters: ArrayLike<number>): number {
  const n = labels.length;
  const { table, labelTotals } = contingency(labels, clusters);
  const clusterTotals = new Map<number, number>();
  for (const [c, row] of table) clusterTotals.set(c, [...row.values()].reduce((a, b) => a + b, 0));
  let mi = 0;
  for (const [c, row] of table) {
    for (const [label, count] of row) {
      mi += (count / n) * Math.log((n * count) / (clusterTotals.get(c)! * labelTotals.get(label)!));
    }
  }
  const hl = entropy(labelTotals.values(), n);
  const hc = entropy(clusterTotals.values(), n);
  if (hl === 0 && hc === 0) return 1;
  return mi / ((hl + hc) / 2);
}
