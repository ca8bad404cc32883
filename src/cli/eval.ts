import { createHash } from 'node:crypto';
import { loadConfig } from '../config';
import type { ModelShape } from '../embedding/model';
import { Rng } from '../random';
import { MetricsAccumulator, splitPerUser } from '../models/hybrid/evaluate';
import type { HybridParams } from '../models/hybrid/model';
import { HybridRecommender } from '../models/hybrid/recommender';
import { interactionsFromPairs, trainHybrid, type Interactions } from '../models/hybrid/train';
import { WorkerPool } from '../pool';
import { allUserIds, preferencesOfUsers } from './api-lists';
import { numberOption, parseArgs, requiredOption, serverUrl, withUsage } from './args';
import { KindredClient, MAX_BATCH_OPS, messageOf } from './http-client';
import { trainParams } from './train';

export const EVAL_USAGE = `usage: kindred eval --key KEY [--url URL] [--k 10] [--holdout 0.2] [--seed N] [--users 200]
                   [--min-preferences 5] [--factors F] [--iterations N] [--alpha A] [--regularization L] [--json]

Leave-some-out precision@k and recall@k of the content and hybrid recommenders on the key's own data, with
the popularity baseline of the same split. For a seeded sample of users with enough preferences a share
(--holdout) of their preferences is held out; the recommenders get the rest and are judged on whether they
find the held-out documents. Nothing on the server is changed: content answers come from
POST /documents/similar-to-ids with the kept preferences, the hybrid model is trained in this process on
the kept preferences (the server's own model has seen the held-out ones).`;

export type RecommenderName = 'content' | 'hybrid' | 'popularity';

export interface RecommenderScore {
  precision: number;
  recall: number;
  ndcg: number;
  users: number;
  seconds: number;
}

export interface EvalOptions {
  /** the key evaluated (its content model is read from /healthz) */
  key?: string;
  k: number;
  holdout: number;
  seed: number;
  /** Users sampled for evaluation (the rest still train the hybrid model). */
  maxUsers: number;
  minPreferences: number;
  params?: HybridParams;
}

export interface EvalReport {
  k: number;
  holdout: number;
  seed: number;
  /** Users with at least minPreferences preferences, and how many of them were evaluated. */
  eligibleUsers: number;
  usersEvaluated: number;
  users: number;
  documents: number;
  preferences: number;
  seconds: number;
  results: Record<RecommenderName, RecommenderScore>;
  /** The key's content model as the server shows it (GET /healthz): its shape and the check that chose it (issue 32). */
  contentModel?: ContentModel;
}

export interface ContentModel {
  kind: string;
  dim: number;
  fittedDocs: number;
  shape?: ModelShape;
}

/** The key's content model from GET /healthz (listed by tenant id: the first 32 hex digits of the key's SHA-256). */
export async function contentModelOf(client: KindredClient, key: string): Promise<ContentModel | undefined> {
  const tenant = createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 32);
  const reply = await client.request('GET', `/healthz?tenant=${tenant}`);
  const entries = (reply.body as { indexing?: Array<{ tenant: string; model?: ContentModel }> } | undefined)?.indexing ?? [];
  return entries.find((e) => e.tenant === tenant)?.model;
}

/** One line: the content model's shape and what chose it. */
export function describeContentModel(m: ContentModel | undefined): string {
  if (!m) return 'content model: none loaded yet';
  const s = m.shape;
  const head = `content model: ${m.kind}, ${m.dim} dimensions, fitted on ${m.fittedDocs} documents`;
  if (!s) return head;
  const projection = m.kind === 'lsa' ? `, projection ${s.weighting} σ^${(s.singularValueExponent ?? 0.5) - 1}, SVD ${s.powerIterations ?? 1} power iterations` : '';
  const dense = s.weights ? `, dense λ ${s.weights.denseWeight} μ ${s.weights.denseFeedbackWeight}` : '';
  const stage = `${s.secondStage ? `second stage on (${s.candidates} candidates, terms ${s.sparseWeighting ?? 'sublinear-tfidf'}${dense})` : 'dense only (no second stage)'}${projection}`;
  const check = s.check
    ? `; chosen by the key's documents: median ${s.check.medianTerms} terms (quartiles ${s.check.quartileTerms[0]}–${s.check.quartileTerms[1]}), second stage from ${s.check.longTextTerms}; check ${s.check.checkMs} ms of a ${s.check.fitMs} ms fit`
    : `; chosen by ${s.chosenBy}`;
  return `${head}, ${stage}${check}`;
}

/** P@k, NDCG@k (the project's MetricsAccumulator) and recall@k = hits / held-out, averaged over users. */
class Scores {
  private readonly metrics: MetricsAccumulator;
  private recall = 0;
  seconds = 0;

  constructor(private readonly k: number) {
    this.metrics = new MetricsAccumulator(k);
  }

  add(ranked: number[], relevant: Set<number>): void {
    if (relevant.size === 0) return;
    const top = ranked.slice(0, this.k);
    this.metrics.add(top, relevant);
    this.recall += top.filter((i) => relevant.has(i)).length / relevant.size;
  }

  result(): RecommenderScore {
    const m = this.metrics.result();
    return { precision: m.precision, recall: m.users ? this.recall / m.users : 0, ndcg: m.ndcg, users: m.users, seconds: this.seconds };
  }
}

async function timed<T>(scores: Scores, work: () => Promise<T>): Promise<T> {
  const started = process.hrtime.bigint();
  try {
    return await work();
  } finally {
    scores.seconds += Number(process.hrtime.bigint() - started) / 1e9;
  }
}

/** The largest id list POST /documents/similar-to-ids takes. */
const MAX_SIMILAR_IDS = 1000;

/**
 * Reads the key's preferences over the API, holds out a share of a sample of users' preferences, and scores
 * the server's content recommender, an in-process hybrid model trained on the kept preferences, and
 * popularity, on the same split.
 */
export async function evaluateKey(client: KindredClient, pool: WorkerPool, o: EvalOptions, say: (line: string) => void = () => undefined): Promise<EvalReport> {
  const started = Date.now();
  const contentModel = o.key === undefined ? undefined : await contentModelOf(client, o.key).catch(() => undefined);
  say(describeContentModel(contentModel));
  const userIds = await allUserIds(client);
  const pairs: Array<[string, string]> = [];
  for await (const list of preferencesOfUsers(client, userIds)) for (const p of list) pairs.push([p.user_id, p.document_id]);
  const data = interactionsFromPairs(pairs);
  say(`read ${pairs.length} preferences of ${data.userIds.length} users on ${data.itemIds.length} documents`);

  const byUser: number[][] = data.userIds.map(() => []);
  for (let e = 0; e < data.users.length; e++) byUser[data.users[e]].push(data.items[e]);
  const lists = byUser.map((l) => Int32Array.from(new Set(l)).sort());
  const eligible = lists.map((l, u) => (l.length >= o.minPreferences ? u : -1)).filter((u) => u >= 0);
  if (eligible.length === 0) throw new Error(`no user has ${o.minPreferences} or more preferences to hold some out`);
  const rng = new Rng(o.seed);
  rng.shuffle(eligible);
  const sample = eligible.slice(0, o.maxUsers).sort((a, b) => a - b);
  const split = splitPerUser(sample.map((u) => lists[u]), o.holdout, o.seed);
  const heldOut = new Map<number, Set<number>>();
  sample.forEach((u, s) => heldOut.set(u, new Set(split.test[s])));

  // Training data: every preference except the held-out ones, in the same index spaces.
  const users: number[] = [];
  const items: number[] = [];
  lists.forEach((l, u) => {
    const out = heldOut.get(u);
    for (const i of l) {
      if (out?.has(i)) continue;
      users.push(u);
      items.push(i);
    }
  });
  const train: Interactions = { userIds: data.userIds, itemIds: data.itemIds, users: Int32Array.from(users), items: Int32Array.from(items) };
  const scores: Record<RecommenderName, Scores> = { content: new Scores(o.k), hybrid: new Scores(o.k), popularity: new Scores(o.k) };

  say(`training a hybrid model on ${users.length} kept preferences (${pool.threads} worker threads)`);
  const model = await timed(scores.hybrid, () => trainHybrid(train, o.params, { runner: pool }));
  const rec = new HybridRecommender(model, { runner: pool });
  const indexOf = new Map<string, number>();
  data.itemIds.forEach((id, i) => indexOf.set(id, i));
  const ranked = (ids: string[], kept: Set<string>) => ids.filter((id) => !kept.has(id)).map((id) => indexOf.get(id) ?? -1);

  for (let s0 = 0; s0 < sample.length; s0 += MAX_BATCH_OPS) {
    const chunk = sample.slice(s0, s0 + MAX_BATCH_OPS);
    const keptIds = chunk.map((u) => [...lists[u]].filter((i) => !heldOut.get(u)!.has(i)).map((i) => data.itemIds[i]));
    const contentAnswers = await timed(scores.content, () => client.batch(keptIds.map((ids) => ({
      method: 'POST' as const,
      url: '/documents/similar-to-ids',
      // the most recent preferences stand for the user when there are more than the endpoint takes
      params: { ids: ids.slice(-MAX_SIMILAR_IDS), number: o.k + Math.max(0, ids.length - MAX_SIMILAR_IDS) },
    }))));
    for (let j = 0; j < chunk.length; j++) {
      const u = chunk[j];
      const relevant = heldOut.get(u)!;
      const kept = new Set(keptIds[j]);
      const answer = contentAnswers[j];
      if (answer.status !== 200) throw new Error(`similar-to-ids for user ${data.userIds[u]}: ${messageOf(answer)}`);
      scores.content.add(ranked((answer.body as Array<{ id: string }>).map((r) => r.id), kept), relevant);
      const hybrid = await timed(scores.hybrid, () => rec.recommendForUser({ userId: data.userIds[u], number: o.k }));
      scores.hybrid.add(ranked(hybrid.results.map((r) => r.id), kept), relevant);
      const popular = await timed(scores.popularity, () => rec.popular({ number: o.k, exclude: keptIds[j] }));
      scores.popularity.add(ranked(popular.map((r) => r.id), kept), relevant);
    }
    say(`evaluated ${Math.min(sample.length, s0 + MAX_BATCH_OPS)}/${sample.length} users`);
  }
  return {
    k: o.k, holdout: o.holdout, seed: o.seed,
    eligibleUsers: eligible.length, usersEvaluated: sample.length,
    users: data.userIds.length, documents: data.itemIds.length, preferences: pairs.length,
    seconds: (Date.now() - started) / 1000,
    results: { content: scores.content.result(), hybrid: scores.hybrid.result(), popularity: scores.popularity.result() },
    ...(contentModel ? { contentModel } : {}),
  };
}

/** The human-readable report: a header line and one row per recommender. */
export function reportTable(r: EvalReport): string {
  const rows = [
    `users evaluated ${r.usersEvaluated} (of ${r.eligibleUsers} with enough preferences; ${r.users} users, ${r.documents} documents, ${r.preferences} preferences)`,
    `held out ${Math.round(r.holdout * 100)}% per user, seed ${r.seed}, ${r.seconds.toFixed(1)} s`,
    describeContentModel(r.contentModel),
    '',
    `${'recommender'.padEnd(12)}${`P@${r.k}`.padStart(9)}${`R@${r.k}`.padStart(9)}${`NDCG@${r.k}`.padStart(10)}${'users'.padStart(8)}${'seconds'.padStart(9)}`,
  ];
  for (const name of ['content', 'hybrid', 'popularity'] as const) {
    const s = r.results[name];
    rows.push(`${name.padEnd(12)}${s.precision.toFixed(4).padStart(9)}${s.recall.toFixed(4).padStart(9)}${s.ndcg.toFixed(4).padStart(10)}${String(s.users).padStart(8)}${s.seconds.toFixed(2).padStart(9)}`);
  }
  return rows.join('\n');
}

/** `kindred eval`. */
export function evalCommand(args: string[]): Promise<number> {
  return withUsage(args, EVAL_USAGE, async () => {
    const parsed = parseArgs(args, ['--json']);
    const key = requiredOption(parsed, '--key');
    const positiveInt = (n: number) => Number.isInteger(n) && n > 0;
    const options: EvalOptions = {
      key,
      k: numberOption(parsed, '--k', 10, positiveInt, 'a positive integer'),
      holdout: numberOption(parsed, '--holdout', 0.2, (n) => n > 0 && n < 1, 'a share between 0 and 1'),
      seed: numberOption(parsed, '--seed', 1, Number.isInteger, 'an integer'),
      maxUsers: numberOption(parsed, '--users', 200, positiveInt, 'a positive integer'),
      minPreferences: numberOption(parsed, '--min-preferences', 5, (n) => Number.isInteger(n) && n >= 2, 'an integer >= 2'),
      params: trainParams(args),
    };
    const client = new KindredClient(serverUrl(parsed), key);
    const pool = new WorkerPool({ threads: loadConfig().workers });
    try {
      const json = parsed.flags.has('--json');
      const report = await evaluateKey(client, pool, options, json ? undefined : (line) => process.stderr.write(`${line}\n`));
      process.stdout.write(json ? `${JSON.stringify(report)}\n` : `${reportTable(report)}\n`);
      return 0;
    } finally {
      await pool.close();
    }
  });
}
