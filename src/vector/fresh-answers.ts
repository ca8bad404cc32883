/** Something whose answers can change: `mutations` counts its changes. */
export interface Mutable {
  readonly mutations: number;
}

/**
 * Answers to queries against an index that may be written meanwhile, each reused only while the index has not
 * changed since it was computed (a change during the computation counts too).
 */
export class FreshAnswers<Q, A> {
  private readonly answers = new Map<string, { mutations: number; answer: A }>();

  constructor(private readonly source: Mutable, private readonly compute: (query: Q) => Promise<A>) {}

  async of(key: string, query: Q): Promise<A> {
    const known = this.answers.get(key);
    if (known && known.mutations === this.source.mutations) return known.answer;
    const mutations = this.source.mutations;
    const answer = await this.compute(query);
    this.answers.set(key, { mutations, answer });
    return answer;
  }
}
