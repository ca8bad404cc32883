import { createServer, type Server } from 'node:http';
import path from 'node:path';
import cron from 'node-cron';
import { loadConfig, type Config } from './config';
import { defaultContentSettings } from './index/content';
import { prepareWordVectors } from './embedding';
import { Indexes } from './index/indexes';
import { memoryParts } from './runtime/memory';
import { tuneAllocator } from './runtime/memory-addon';
import { leaseCoordinator } from './jobs/cron-coordinator';
import { scheduleTraining } from './jobs/train-schedule';
import { Metrics } from './http/metrics';
import { createApp } from './http/app';
import { PrunedLimiter } from './rate-limit';
import { createLogger, type Logger } from './log';
import { WorkerPool } from './pool';
import { ChangeFeed } from './storage/change-feed';
import { ChangeBus } from './storage/changes';
import { KeyResolver, registerKey } from './services/keys';
import { openStorage, type Storage } from './storage';
import type { ApiVersion } from './http/route';
import { v1 } from './api/v1/routes';
import { v2 } from './api/v2/routes';
import { v3 } from './api/v3/routes';
import { v5 } from './api/v5/routes';
import { v6 } from './api/v6/routes';
import { parserVersion } from './api/parser/routes';
import { ArticleService } from './services/articles';
import { ClusterService } from './services/clusters';
import { TenantApis } from './services/tenant';
import { Operations } from './ops/operations';
import { ScheduleBoard } from './runtime/schedules';

const VERSIONS: Record<string, ApiVersion> = { v6, v5, v3, v2, v1 };

export interface Kindred {
  config: Config;
  server: Server;
  storage: Storage;
  pool: WorkerPool;
  logger: Logger;
  stop(): Promise<void>;
}

/**
 * Headers and whole-request deadlines against slow clients (slowloris): Node answers 408 and closes
 * the connection. It checks them every connectionsCheckingInterval (30 s by default), so the check
 * runs at a quarter of the shorter deadline: a late client is cut off within 1.25 × its deadline.
 */
export function applyTimeouts(server: Server, timeouts: Config['timeouts']): void {
  server.headersTimeout = timeouts.headersMs;
  server.requestTimeout = timeouts.requestMs;
  server.keepAliveTimeout = timeouts.keepAliveMs;
  // A createServer option in the typings; Node reads the property when listening starts.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    Math.max(50, Math.min(30_000, Math.floor(Math.min(timeouts.headersMs, timeouts.requestMs) / 4)));
}

/** config → storage → keys → pool → app → listen. */
export async function start(config: Config = loadConfig()): Promise<Kindred> {
  const logger = createLogger(config.logLevel);
  // Before any worker thread exists: arenas made later obey the limit.
  if (!tuneAllocator()) logger.warn('malloc left untuned: native/build/memory.node missing (make native)');
  const storage = await openStorage(config);
  for (const key of config.apiKeys) await registerKey(storage, key, 'from KINDRED_API_KEYS');
  if ((await storage.keys.list()).length === 0) {
    logger.warn('no subscription keys yet: create one with `./bin/kindred keys create`, or set KINDRED_API_KEYS');
  }
  const pool = new WorkerPool({ threads: config.workers });
  const changes = new ChangeBus();
  // Several processes on one MongoDB database learn of each other's writes through its change log.
  const feed = storage.changeLog ? new ChangeFeed(storage.changeLog, storage.leases, changes, logger) : undefined;
  await feed?.start();
  const contentSettings = {
    ...defaultContentSettings(config.cacheDir, config.refitGrowth, path.join(config.dataDir, 'index'), config.snapshotEveryMs),
    exactSearch: config.exactSearch,
    approximateFrom: config.approximateFrom,
    refitAtRestMs: config.refitAtRestMs,
  };
  const indexes = new Indexes(storage, pool, changes, contentSettings, logger, config.indexMemory);
  const clusters = new ClusterService(storage, pool, indexes, logger);
  // The dashboard shows each schedule and records its runs.
  const schedules = new ScheduleBoard();
  const refit = cron.schedule(config.refitCron, () => schedules.track('refit', indexes.refitAll())
    .catch((error: unknown) => logger.error({ err: error }, 'scheduled refit failed')));
  schedules.add('refit', refit, { name: 'content refit', expression: config.refitCron });
  const coordinator = feed ? leaseCoordinator(storage.leases, feed.origin) : undefined;
  const trainings = [...config.trainSchedules].map(([tenant, expression]) => scheduleTraining(tenant, expression, { storage, pool, logger, schedules, coordinator }));
  const articles = new ArticleService({ pool, ...config.parser }, config.parser);
  const versions: Record<string, ApiVersion> = { ...VERSIONS, parser: parserVersion };
  const metrics = new Metrics(
    pool, () => indexes.list().map(([tenant, idx]) => ({ tenant, documents: idx.content.size })), () => memoryParts(() => indexes.keywordHeapUsed()),
    () => indexes.memoryUse(),
  );
  const operations = new Operations({ pool, storage, indexes, requests: metrics.requests, schedules });
  metrics.trackJobs(() => operations.jobStates());
  metrics.trackThreads(() => operations.threads());
  let ready = false;
  // Per-key rate over every version (off unless KINDRED_RATE_LIMIT > 0).
  const rateLimiter = config.rateLimit.perSecond > 0 ? new PrunedLimiter({ ratePerSecond: config.rateLimit.perSecond, burst: config.rateLimit.burst }) : undefined;
  const app = createApp({
    metrics,
    adminToken: config.adminToken,
    nodeId: config.nodeId,
    corsOrigins: config.corsOrigins,
    dashboard: () => operations.data(),
    services: {
      tenants: new TenantApis({ storage, changes, indexes, clusters, articles }), keys: new KeyResolver(storage), rateLimiter, logger,
      observe: (...args) => metrics.observe(...args),
    },
    logger,
    maxBodyBytes: config.maxBodyBytes,
    versions: [...Object.entries(versions).map(([name, version]) => ({ prefix: `/${name}`, version })), { prefix: '', version: v6 }],
    versionHosts: new Map([...config.versionHosts].map(([host, name]) => {
      if (!versions[name]) throw new Error(`KINDRED_VERSION_HOSTS: ${name} is not served by this build`);
      return [host, versions[name]];
    })),
    isReady: () => ready,
    indexing: () => indexes.progress(),
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = createServer(app).listen(config.port, config.host, () => resolve(s));
    // Slow-client timeouts, set before 'listening', when Node starts its connection-checking timer.
    applyTimeouts(s, config.timeouts);
    s.once('error', reject);
  });
  indexes.warm().then(() => {
    ready = true;
    logger.info('indexes ready');
    logger.flush();
  }, (error: unknown) => logger.error({ err: error }, 'building indexes failed')).finally(() => {
    // The word-vector table (what small keys embed with) loads once the keys are restored: on two cores, reading it
    // beside the restores held the first answer back (restart probe, 82k real texts: 3.0–3.5 → 2.5–2.8 s).
    prepareWordVectors(pool, { wordVectorCacheFile: contentSettings.wordVectorCacheFile })
      .catch((error: unknown) => logger.warn({ err: error }, 'loading word vectors ahead of requests failed'));
  });
  clusters.resume().catch((error: unknown) => logger.error({ err: error }, 'resuming cluster jobs failed'));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port, backend: storage.backend, workers: pool.threads }, 'kindred listening');
  logger.flush();

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      ready = false;
      await refit.stop();
      for (const training of trainings) await training.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      clusters.close();
      await feed?.stop();
      await indexes.close();
      articles.close();
      rateLimiter?.close();
      operations.close();
      await pool.close();
      await storage.close();
      logger.info('kindred stopped');
      logger.flush();
    })();
    return stopping;
  };
  return { config, server, storage, pool, logger, stop };
}

if (require.main === module) {
  start().then((kindred) => {
    const shutdown = (signal: string) => {
      kindred.logger.info({ signal }, 'shutting down');
      const force = setTimeout(() => process.exit(1), 30_000);
      force.unref();
      kindred.stop().then(() => process.exit(0), () => process.exit(1));
    };
    process.on('SIGTERM', () => shutdown('SIGTERM'));
    process.on('SIGINT', () => shutdown('SIGINT'));
  }, (error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
