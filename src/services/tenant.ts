import { ApiError } from '../errors';
import type { Indexes } from '../index/indexes';
import type { Storage } from '../storage';
import type { ChangeBus } from '../storage/changes';
import type { ArticleService } from './articles';
import type { ClusterService } from './clusters';
import type { TenantContext } from './context';
import { deleteAllData } from './data';
import * as documents from './documents';
import * as hybrid from './hybrid';
import * as recommend from './recommend';
import * as search from './search';
import * as tags from './tags';
import * as users from './users';

/** The members of `M` that work on a tenant (take a `TenantContext` first), with the tenant given. */
export type TenantBound<M> = {
  [K in keyof M as M[K] extends (ctx: TenantContext, ...args: never[]) => unknown ? K : never]:
    M[K] extends (ctx: TenantContext, ...args: infer A) => infer R ? (...args: A) => R : never;
};

/**
 * One key's door to the domain: the only thing a route handler receives. It holds services bound to the key,
 * not the key's storage, indexes or change bus, so a handler cannot reach past them.
 */
export interface TenantApi {
  readonly tenant: string;
  readonly documents: TenantBound<typeof documents>;
  readonly tags: TenantBound<typeof tags>;
  readonly users: TenantBound<typeof users>;
  readonly recommend: TenantBound<typeof recommend>;
  readonly hybrid: TenantBound<typeof hybrid>;
  readonly search: TenantBound<typeof search>;
  readonly clusters: TenantBound<ClusterService>;
  readonly articles: TenantBound<ArticleService>;
  deleteAllData(): Promise<void>;
}

/**
 * Calls to `target`'s members with the tenant first, each run under `hold` (the key's indexes stay loaded while
 * it runs); each bound function is made once.
 */
function bind<M extends object>(target: M | undefined, ctx: TenantContext, what: string, hold: <T>(call: () => T) => T): TenantBound<M> {
  const made = new Map<PropertyKey, unknown>();
  return new Proxy({}, {
    get(_, name) {
      let fn = made.get(name);
      if (fn === undefined) {
        const member: unknown = target ? (target as Record<PropertyKey, unknown>)[name] : undefined;
        if (target && typeof member !== 'function') return undefined;
        fn = target
          ? (...args: unknown[]) => hold(() => (member as (...a: unknown[]) => unknown).call(target, ctx, ...args))
          : () => Promise.reject(new ApiError(503, `${what} is not available`, {}, 'unavailable'));
        made.set(name, fn);
      }
      return fn;
    },
  }) as TenantBound<M>;
}

export interface TenantApiParts {
  storage: Storage;
  changes: ChangeBus;
  indexes: Indexes;
  /** Absent where the app runs without them (some tests): their calls answer 503. */
  clusters?: ClusterService;
  articles?: ArticleService;
}

/** Every key's `TenantApi`, made once per key at its first request. */
export class TenantApis {
  private readonly apis = new Map<string, TenantApi>();

  constructor(private readonly parts: TenantApiParts) {}

  of(tenant: string): TenantApi {
    let api = this.apis.get(tenant);
    if (!api) {
      const { storage, changes, indexes, clusters, articles } = this.parts;
      const ctx: TenantContext = { tenant, store: storage.tenant(tenant), changes, indexes: () => indexes.of(tenant) };
      const hold = <T>(call: () => T): T => indexes.hold(tenant, call);
      api = {
        tenant,
        documents: bind(documents, ctx, 'Documents', hold),
        tags: bind(tags, ctx, 'Tags', hold),
        users: bind(users, ctx, 'Users', hold),
        recommend: bind(recommend, ctx, 'Recommendations', hold),
        hybrid: bind(hybrid, ctx, 'The hybrid recommender', hold),
        search: bind(search, ctx, 'Search', hold),
        clusters: bind(clusters, ctx, 'Clustering', hold),
        articles: bind(articles, ctx, 'Article extraction', hold),
        deleteAllData: () => hold(() => deleteAllData(ctx)),
      };
      this.apis.set(tenant, api);
    }
    return api;
  }
}
