import { Rng } from '../../random';

/** One user's held-out items and the ranked recommendations to judge. */
export interface RankingMetrics {
  precision: number;
  ndcg: number;
  map: number;
  users: number;
}

/** Per-user random split: about `testFraction` of each user's items (rounded) go to test, at least one stays in train. */
export function splitPerUser(
  itemsByUser: Int32Array[],
  testFraction: number,
  seed: number,
): { train: Int32Array[]; test: Int32Array[] } {
  const rng = new Rng(seed);
  const train: Int32Array[] = [];
  const test: Int32Array[] = [];
  for (const items of itemsByUser) {
    const shuffled = Int32Array.from(items);
    rng.shuffle(shuffled);
    const nTest = Math.min(items.length - 1, Math.round(items.length * testFraction));
    test.push(Int32Array.from(shuffled.subarray(0, Math.max(0, nTest))).sort());
    train.push(Int32Array.from(shuffled.subarray(Math.max(0, nTest))).sort());
  }
  return { train, test };
}

/** Accumulates P@k, NDCG@k (binary relevance) and MAP@k (normalised by min(k, |relevant|)) over users. */
export class MetricsAccumulator {
  private p = 0;
  private n = 0;
  private m = 0;
  private users = 0;

  constructor(readonly k: number) {}

  add(ranked: ArrayLike<number>, relevant: Set<number>): void {
    if (relevant.size === 0) return;
    const k = this.k;
    let hits = 0;
    let dcg = 0;
    let ap = 0;
    for (let r = 0; r < Math.min(k, ranked.length); r++) {
      if (relevant.has(ranked[r])) {
        hits++;
        dcg += 1 / Math.log2(r + 2);
        ap += hits / (r + 1);
      }
    }
    let idcg = 0;
    const ideal = Math.min(k, relevant.size);
    for (let r = 0; r < ideal; r++) idcg += 1 / Math.log2(r + 2);
    this.p += hits / k;
    this.n += dcg / idcg;
    this.m += ap / ideal;
    this.users++;
  }

  result(): RankingMetrics {
    const u = Math.max(1, this.users);
    return { precision: this.p / u, ndcg: this.n / u, map: this.m / u, users: this.users };
  }
}

/** (user, item) pairs from per-user item lists, in user order: the inverse of grouping by user. */
export function pairsFromLists(lists: readonly Int32Array[]): { users: Int32Array; items: Int32Array } {
  let n = 0;
  for (const l of lists) n += l.length;
  const users = new Int32Array(n);
  const items = new Int32Array(n);
  let e = 0;
  lists.forEach((l, u) => {
    for (const i of l) {
      users[e] = u;
      items[e++] = i;
    }
  });
  return { users, items };
}
