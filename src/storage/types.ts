import type {
  ApiKeyRecord, DocumentRecord, PreferenceRecord, TaggingRecord, TagRecord, UserRecord,
} from '../domain';

export interface Page {
  offset: number;
  limit: number;
}

export const ALL: Page = { offset: 0, limit: Number.MAX_SAFE_INTEGER };

/**
 * Records with their own id, listed in creation order. `F` names the fields a table keeps at hand besides the
 * whole records (`scanFields`): what a restart compares with its indexes, read without decoding every record.
 */
export interface EntityTable<T extends { id: string }, F extends keyof T = never> {
  get(id: string): Promise<T | undefined>;
  getMany(ids: readonly string[]): Promise<Array<T | undefined>>;
  /** Whether each id has a record (read without decoding the records). */
  existMany(ids: readonly string[]): Promise<boolean[]>;
  /** Inserts unless the id is taken; resolves false when it is. */
  insert(record: T): Promise<boolean>;
  /** Replaces an existing record, keeping its place in the listing; resolves false when absent. */
  replace(record: T): Promise<boolean>;
  remove(id: string): Promise<T | undefined>;
  list(page: Page): Promise<T[]>;
  count(): Promise<number>;
  ids(): Promise<string[]>;
  scan(batchSize?: number): AsyncIterable<T[]>;
  /** Every record's id and `F` fields, in batches. */
  scanFields(batchSize?: number): AsyncIterable<Array<Pick<T, 'id' | F>>>;
  clear(): Promise<void>;
}

/** The fields of a document a restart needs: whether the indexes hold its current version, and its publication date. */
export const DOCUMENT_VERSION_FIELDS = ['updated_at', 'published_at'] as const;
export type DocumentVersion = Pick<DocumentRecord, 'id' | (typeof DOCUMENT_VERSION_FIELDS)[number]>;

/**
 * Records keyed by an ordered pair (first, second): taggings are (document, tag),
 * preferences are (user, document). Listings are ordered by the other member's id.
 */
export interface PairTable<P> {
  get(first: string, second: string): Promise<P | undefined>;
  put(first: string, second: string, record: P): Promise<void>;
  remove(first: string, second: string): Promise<P | undefined>;
  listByFirst(first: string, page: Page): Promise<P[]>;
  countByFirst(first: string): Promise<number>;
  /** The second members of every pair of `first`, ordered (no records read: a user's documents, a document's tags). */
  secondsOf(first: string): Promise<string[]>;
  listBySecond(second: string, page: Page): Promise<P[]>;
  countBySecond(second: string): Promise<number>;
  removeByFirst(first: string): Promise<P[]>;
  removeBySecond(second: string): Promise<P[]>;
  count(): Promise<number>;
  scan(batchSize?: number): AsyncIterable<P[]>;
  clear(): Promise<void>;
}

/** Small named values of one namespace: jobs, models, caches, counters' owners. */
export interface KeyValueTable<V> {
  get(key: string): Promise<V | undefined>;
  put(key: string, value: V): Promise<void>;
  remove(key: string): Promise<boolean>;
  list(): Promise<Array<{ key: string; value: V }>>;
  clear(): Promise<void>;
}

/** Everything one subscription key owns. Nothing here can reach another tenant's data. */
export interface TenantStore {
  readonly tenant: string;
  documents: EntityTable<DocumentRecord, (typeof DOCUMENT_VERSION_FIELDS)[number]>;
  tags: EntityTable<TagRecord>;
  users: EntityTable<UserRecord>;
  /** (document_id, tag_id) */
  taggings: PairTable<TaggingRecord>;
  /** (user_id, document_id) */
  preferences: PairTable<PreferenceRecord>;
  values(namespace: string): KeyValueTable<unknown>;
  /** Next value of a per-tenant counter, starting at 1 (v2's integer ids). */
  nextSequence(name: string): Promise<number>;
}

export interface KeyStore {
  get(hash: string): Promise<ApiKeyRecord | undefined>;
  put(record: ApiKeyRecord): Promise<void>;
  list(): Promise<ApiKeyRecord[]>;
}

/** One write as other processes learn of it: `seq` orders the log; `origin` names the writing process. */
export interface ChangeLogEntry {
  seq: number;
  origin: string;
  tenant: string;
  entity: string;
  op: string;
  id: string;
  /** Milliseconds since the epoch when it was appended. */
  at: number;
}

/**
 * The writes of every process sharing one database, in sequence order, so that each process can
 * bring its in-memory indexes up to date with the others' writes.
 */
export interface ChangeLog {
  /** Allocates consecutive sequence numbers to `entries` and stores them. */
  append(entries: ReadonlyArray<Omit<ChangeLogEntry, 'seq'>>): Promise<void>;
  /** Entries with a sequence number above `seq`, lowest first. */
  readAfter(seq: number, limit: number): Promise<ChangeLogEntry[]>;
  /** The highest sequence number allocated so far (0 when none). */
  head(): Promise<number>;
  /** Removes entries appended before `at` (ms since the epoch); resolves to how many. */
  pruneBefore(at: number): Promise<number>;
}

/** Named, expiring locks held by one process at a time: a training or a job runs once across processes. */
export interface LeaseTable {
  /** Takes or renews the lease for `ttlMs`; false when another holder has it and it has not expired. */
  acquire(name: string, holder: string, ttlMs: number): Promise<boolean>;
  release(name: string, holder: string): Promise<void>;
  /** Removes leases that expired before `at` (ms since the epoch). */
  pruneExpired(at: number): Promise<number>;
}

export interface Storage {
  readonly backend: 'embedded' | 'mongodb';
  keys: KeyStore;
  leases: LeaseTable;
  /** Present where several processes may share the data (MongoDB); the embedded store has one writer process. */
  changeLog?: ChangeLog;
  tenant(tenant: string): TenantStore;
  /**
   * Unmaps the pages the process holds only because reads and writes went through them (the embedded store's
   * file); resolves to the number of mappings released.
   */
  releaseMappedPages?(): number;
  close(): Promise<void>;
}
