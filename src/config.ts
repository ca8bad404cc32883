import bytes from 'bytes';
import os from 'node:os';
import cron from 'node-cron';
import path from 'node:path';

export type StorageBackend = 'embedded' | 'mongodb';

/** Origins allowed to call the API from a browser: every origin, or the listed ones (KINDRED_CORS_ORIGINS). */
export type CorsOrigins = '*' | string[];

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Derived files that can be rebuilt (word-vector cache): default <dataDir>/cache. */
  cacheDir: string;
  apiKeys: string[];
  mongodbUri?: string;
  backend: StorageBackend;
  workers: number;
  logLevel: string;
  maxBodyBytes: number;
  /** Host name → version name (`v6`, `v5`, `v3`, `v2`, `v1`, `parser`): that host is served by that version at its root. */
  versionHosts: Map<string, string>;
  /** node-cron expression: when every key's content model is refitted and its index rebuilt. */
  refitCron: string;
  /** The content model is refitted when a key holds this many times the documents it was fitted on. */
  refitGrowth: number;
  /** Once a key's writes pause this long, a model behind them is refitted on every document (KINDRED_REFIT_AT_REST_SECONDS, default 10; 0: never). */
  refitAtRestMs: number;
  /** Bearer token for admin surfaces (/metrics, dashboard); unset disables them. */
  adminToken?: string;
  /** Origins whose browser scripts may call the API (KINDRED_CORS_ORIGINS). */
  corsOrigins: CorsOrigins;
  /** Names this process in each response's Kindred-Node header (KINDRED_NODE_ID); default host name:port. */
  nodeId?: string;
  /** Per-key hybrid training schedules: tenant id (from `kindred keys list`) → node-cron expression. */
  trainSchedules: Map<string, string>;
  parser: {
    allowPrivate: boolean;
    timeoutMs: number;
    maxBytes: number;
    cacheTtlMs: number;
    ratePerSecond: number;
  };
  // --- crash safety ---
  /** Bytes every key's indexes may hold together before the least recently used are unloaded. */
  indexMemory: number;
  /** How often a key's changed content index is snapshotted (KINDRED_SNAPSHOT_SECONDS, default 300). */
  snapshotEveryMs: number;
  /** Content recommendations scan every vector instead of the approximate index (KINDRED_EXACT_SEARCH). */
  exactSearch: boolean;
  /** Documents from which a key's content index builds its approximate search (KINDRED_APPROXIMATE_FROM; unset: the index's default). */
  approximateFrom?: number;
  // --- end crash safety ---
  // --- limits (docs/decisions/limits.md) ---
  /** Per-key request rate over the whole API: KINDRED_RATE_LIMIT requests/s (0: off), KINDRED_RATE_BURST bucket size. */
  rateLimit: { perSecond: number; burst: number };
  /** Slow-client defences, milliseconds: whole headers, whole request (headers + body), idle keep-alive. */
  timeouts: { headersMs: number; requestMs: number; keepAliveMs: number };
}

function rateLimitFrom(env: NodeJS.ProcessEnv): Config['rateLimit'] {
  const raw = env.KINDRED_RATE_LIMIT;
  const perSecond = raw === undefined || raw === '' ? 0 : Number(raw);
  if (!Number.isFinite(perSecond) || perSecond < 0) throw new Error(`KINDRED_RATE_LIMIT must be a number >= 0 (requests per second per key, 0 = off), got '${raw}'`);
  const burst = intFrom('KINDRED_RATE_BURST', env.KINDRED_RATE_BURST, Math.max(1, Math.ceil(2 * perSecond)), 1);
  return { perSecond, burst };
}

function timeoutsFrom(env: NodeJS.ProcessEnv): Config['timeouts'] {
  const headersMs = intFrom('KINDRED_HEADERS_TIMEOUT_MS', env.KINDRED_HEADERS_TIMEOUT_MS, 66_000, 1);
  const requestMs = intFrom('KINDRED_REQUEST_TIMEOUT_MS', env.KINDRED_REQUEST_TIMEOUT_MS, 120_000, 1);
  const keepAliveMs = intFrom('KINDRED_KEEP_ALIVE_TIMEOUT_MS', env.KINDRED_KEEP_ALIVE_TIMEOUT_MS, 65_000, 1);
  if (headersMs > requestMs) throw new Error('KINDRED_HEADERS_TIMEOUT_MS must not exceed KINDRED_REQUEST_TIMEOUT_MS');
  return { headersMs, requestMs, keepAliveMs };
}
// --- end limits ---

function parseTrainSchedules(value: string | undefined): Map<string, string> {
  const schedules = new Map<string, string>();
  for (const entry of (value ?? '').split(';').map((s) => s.trim()).filter(Boolean)) {
    const at = entry.indexOf('=');
    const tenant = entry.slice(0, at).trim();
    const expression = entry.slice(at + 1).trim();
    if (at <= 0 || !/^[0-9a-f]{32}$/.test(tenant) || !cron.validate(expression)) {
      throw new Error(`KINDRED_TRAIN_CRON: '${entry}' is not <tenant id>=<cron expression>`);
    }
    schedules.set(tenant, expression);
  }
  return schedules;
}

const VERSION_NAMES = ['v6', 'v5', 'v3', 'v2', 'v1', 'parser'];

function parseVersionHosts(value: string | undefined): Map<string, string> {
  const hosts = new Map<string, string>();
  for (const entry of (value ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const [host, version] = entry.split('=').map((s) => s.trim().toLowerCase());
    if (!host || !VERSION_NAMES.includes(version)) {
      throw new Error(`KINDRED_VERSION_HOSTS: '${entry}' is not host=version with a version among ${VERSION_NAMES.join(', ')}`);
    }
    hosts.set(host, version);
  }
  return hosts;
}

/** The machine's memory the indexes may hold by default: the rest is left to storage, the OS cache and requests. */
const INDEX_MEMORY_SHARE = 0.5;

/** A size such as `2GB`, `512mb` or a number of bytes (the `bytes` package's notation, 1 KB = 1024 bytes). */
function bytesFrom(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const parsed = bytes.parse(value.trim());
  if (parsed === null || !Number.isFinite(parsed) || parsed <= 0) throw new Error(`${name}: '${value}' is not a size (e.g. 2GB, 512MB, or bytes)`);
  return Math.floor(parsed);
}

function intFrom(name: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got '${value}'`);
  return n;
}

/** A header value: printable ASCII, so no response can fail on it. */
function nodeIdFrom(value: string | undefined): string | undefined {
  const id = value?.trim();
  if (!id) return undefined;
  if (!/^[!-~]+(?: [!-~]+)*$/.test(id)) throw new Error(`KINDRED_NODE_ID must be printable ASCII, got '${id}'`);
  return id;
}

/** `*` (the default) or a comma-separated list of origins such as `https://app.example.com`. */
function corsOriginsFrom(value: string | undefined): CorsOrigins {
  const listed = (value ?? '').split(',').map((o) => o.trim()).filter(Boolean);
  if (listed.length === 0 || listed.includes('*')) return '*';
  for (const origin of listed) {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw new Error(`KINDRED_CORS_ORIGINS: '${origin}' is not an origin (scheme://host[:port])`);
    }
    if (url.origin !== origin.replace(/\/$/, '')) throw new Error(`KINDRED_CORS_ORIGINS: '${origin}' is not an origin (scheme://host[:port])`);
  }
  return listed.map((o) => o.replace(/\/$/, ''));
}

/** Every setting comes from the environment and is validated once, here. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const mongodbUri = env.MONGODB_URI?.trim() || undefined;
  return {
    port: intFrom('PORT', env.PORT, 8080, 0),
    host: env.HOST || '0.0.0.0',
    dataDir: path.resolve(env.KINDRED_DATA_DIR || './data'),
    cacheDir: path.resolve(env.KINDRED_CACHE_DIR || path.join(env.KINDRED_DATA_DIR || './data', 'cache')),
    apiKeys: (env.KINDRED_API_KEYS || '').split(',').map((k) => k.trim()).filter(Boolean),
    mongodbUri,
    backend: mongodbUri ? 'mongodb' : 'embedded',
    workers: intFrom('KINDRED_WORKERS', env.KINDRED_WORKERS, os.availableParallelism(), 1),
    logLevel: env.LOG_LEVEL || 'info',
    maxBodyBytes: intFrom('KINDRED_MAX_BODY_BYTES', env.KINDRED_MAX_BODY_BYTES, 10 * 1024 * 1024, 1024),
    versionHosts: parseVersionHosts(env.KINDRED_VERSION_HOSTS),
    refitCron: env.KINDRED_REFIT_CRON || '30 3 * * *',
    refitGrowth: Number(env.KINDRED_REFIT_GROWTH) > 1 ? Number(env.KINDRED_REFIT_GROWTH) : 2,
    refitAtRestMs: intFrom('KINDRED_REFIT_AT_REST_SECONDS', env.KINDRED_REFIT_AT_REST_SECONDS, 10, 0) * 1000,
    adminToken: env.KINDRED_ADMIN_TOKEN || undefined,
    corsOrigins: corsOriginsFrom(env.KINDRED_CORS_ORIGINS),
    nodeId: nodeIdFrom(env.KINDRED_NODE_ID),
    trainSchedules: parseTrainSchedules(env.KINDRED_TRAIN_CRON),
    parser: {
      allowPrivate: env.KINDRED_PARSER_ALLOW_PRIVATE === '1' || env.KINDRED_PARSER_ALLOW_PRIVATE === 'true',
      timeoutMs: intFrom('KINDRED_PARSER_TIMEOUT_MS', env.KINDRED_PARSER_TIMEOUT_MS, 10_000, 1),
      maxBytes: intFrom('KINDRED_PARSER_MAX_BYTES', env.KINDRED_PARSER_MAX_BYTES, 5 * 1024 * 1024, 1024),
      cacheTtlMs: intFrom('KINDRED_PARSER_CACHE_SECONDS', env.KINDRED_PARSER_CACHE_SECONDS, 86_400, 0) * 1000,
      ratePerSecond: intFrom('KINDRED_PARSER_RATE', env.KINDRED_PARSER_RATE, 1, 1),
    },
    indexMemory: bytesFrom('KINDRED_INDEX_MEMORY', env.KINDRED_INDEX_MEMORY, Math.floor(os.totalmem() * INDEX_MEMORY_SHARE)),
    snapshotEveryMs: intFrom('KINDRED_SNAPSHOT_SECONDS', env.KINDRED_SNAPSHOT_SECONDS, 300, 1) * 1000,
    exactSearch: env.KINDRED_EXACT_SEARCH === '1' || env.KINDRED_EXACT_SEARCH === 'true',
    approximateFrom: env.KINDRED_APPROXIMATE_FROM ? intFrom('KINDRED_APPROXIMATE_FROM', env.KINDRED_APPROXIMATE_FROM, 0, 1) : undefined,
    rateLimit: rateLimitFrom(env),
    timeouts: timeoutsFrom(env),
  };
}
