import { KindredError } from '../errors';
import type { Indexes } from '../index/indexes';
import type { Page, Storage } from '../storage';
import type { ChangeBus } from '../storage/changes';
import type { ArticleService } from './articles';
import type { ClusterService } from './clusters';
import type { TenantContext } from './context';
import { deleteAllData } from './data';
import * as documents from './documents';
import type { IdScope } from './ids';
import * as recommendations from './recommendations';
import * as search from './search';
import * as tags from './tags';
import * as users from './users';

export interface TenantApiParts {
  storage: Storage;
  changes: ChangeBus;
  indexes: Indexes;
  /** Absent where the app runs without them (some tests): their calls answer 503 `unavailable`. */
  clusters?: ClusterService;
  articles?: ArticleService;
}

/**
 * One key's door to the domain: the only thing a route handler receives. It holds the services' calls bound to
 * the key (each run while the key's indexes stay loaded), not the key's storage, indexes or change bus, so a
 * handler cannot reach past them.
 */
export class TenantApi {
  readonly documents;
  readonly tags;
  readonly users;
  readonly recommendations;
  readonly search;
  readonly clusters;
  readonly articles;
  readonly deleteAllData: () => Promise<void>;

  constructor(readonly tenant: string, parts: TenantApiParts) {
    const { storage, changes, indexes, clusters, articles } = parts;
    const ctx: TenantContext = { tenant, store: storage.tenant(tenant), changes, indexes: () => indexes.of(tenant) };
    const bind = <A extends unknown[], R>(call: (ctx: TenantContext, ...args: A) => Promise<R>) =>
      (...args: A): Promise<R> => indexes.hold(tenant, () => call(ctx, ...args));
    const unavailable = <A extends unknown[]>(what: string) => (..._args: A): Promise<never> => Promise.reject(new KindredError('unavailable', `${what} is not available`));

    this.documents = {
      listDocuments: bind(documents.listDocuments),
      readDocument: bind(documents.readDocument),
      createDocument: bind(documents.createDocument),
      updateDocument: bind(documents.updateDocument),
      deleteDocument: bind(documents.deleteDocument),
      documentIds: bind(documents.documentIds),
      tagsOfDocument: bind(documents.tagsOfDocument),
      preferencesOfDocument: bind(documents.preferencesOfDocument),
    };
    this.tags = {
      getTag: bind(tags.getTag),
      createTag: bind(tags.createTag),
      updateTag: bind(tags.updateTag),
      deleteTag: bind(tags.deleteTag),
      listTags: bind(tags.listTags),
      documentsOfTag: bind(tags.documentsOfTag),
      tagDocument: bind(tags.tagDocument),
      untagDocument: bind(tags.untagDocument),
    };
    this.users = {
      getUser: bind(users.getUser),
      createUser: bind(users.createUser),
      listUsers: bind(users.listUsers),
      deleteUser: bind(users.deleteUser),
      preferencesOfUser: bind(users.preferencesOfUser),
      getPreference: bind(users.getPreference),
      addPreference: bind(users.addPreference),
      deletePreference: bind(users.deletePreference),
    };
    this.recommendations = {
      similarToDocument: bind(recommendations.similarToDocument),
      similarToIds: bind(recommendations.similarToIds),
      similarToText: bind(recommendations.similarToText),
      forUser: bind(recommendations.forUser),
      popular: bind(recommendations.popular),
      suggestTagsForDocument: bind(recommendations.suggestTagsForDocument),
      suggestTagsForText: bind(recommendations.suggestTagsForText),
    };
    this.search = {
      searchByKeyword: bind(search.searchByKeyword),
      filteredDocuments: bind(search.filteredDocuments),
    };
    const viaClusters = <A extends unknown[], R>(call: (service: ClusterService, ctx: TenantContext, ...args: A) => Promise<R>): ((...args: A) => Promise<R>) =>
      (clusters ? bind((c: TenantContext, ...args: A) => call(clusters, c, ...args)) : unavailable('Clustering'));
    this.clusters = {
      create: viaClusters((service, c, numberClusters: number) => service.create(c, numberClusters)),
      list: viaClusters((service, c, page: Page) => service.list(c, page)),
      get: viaClusters((service, c, id: number) => service.get(c, id)),
      delete: viaClusters((service, c, id: number) => service.delete(c, id)),
      clusters: viaClusters((service, c, id: number) => service.clusters(c, id)),
      words: viaClusters((service, c, id: number, cluster: number) => service.words(c, id, cluster)),
      wordCloud: viaClusters((service, c, id: number, cluster: number) => service.wordCloud(c, id, cluster)),
      documents: viaClusters((service, c, id: number, cluster: number, scope?: IdScope) => service.documents(c, id, cluster, scope)),
    };
    this.articles = {
      parse: articles ? bind((c: TenantContext, url: string | undefined) => articles.parse(c, url)) : unavailable<[string | undefined]>('Article extraction'),
    };
    this.deleteAllData = bind(deleteAllData);
  }
}

/** Every key's `TenantApi`, made once per key at its first request. */
export class TenantApis {
  private readonly apis = new Map<string, TenantApi>();

  constructor(private readonly parts: TenantApiParts) {}

  of(tenant: string): TenantApi {
    let api = this.apis.get(tenant);
    if (!api) {
      api = new TenantApi(tenant, this.parts);
      this.apis.set(tenant, api);
    }
    return api;
  }
}
