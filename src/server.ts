import type { Server } from 'node:http';
import path from 'node:path';
import cron from 'node-cron';
import { loadConfig, type Config } from './config';
import { defaultContentSettings } from './index/content';
import { Indexes } from './index/indexes';
import { trainTenantModel } from './jobs/train-hybrid';
import { DEFAULT_HYBRID_PARAMS } from './models/hybrid/train';
import { Metrics } from './http/metrics';
import { createApp } from './http/app';
import { createLogger, type Logger } from './log';
import { WorkerPool } from './pool';
import { ChangeBus } from './services/context';
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
import { ClusterService, registerClusterService } from './services/clusters';

const VERSIONS: Record<string, ApiVersion> = { v6, v5, v3, v2, v1 };

export interface Kindred {
  config: Config;
  server: Server;
  storage: Storage;
  pool: WorkerPool;
  logger: Logger;
  stop(): Promise<void>;
}

/** config → storage → keys → pool → app → listen. */
export async function start(config: Config = loadConfig()): Promise<Kindred> {
  const logger = createLogger(config.logLevel);
  const storage = await openStorage(config);
  for (const key of config.apiKeys) await registerKey(storage, key, 'from KINDRED_API_KEYS');
  if ((await storage.keys.list()).length === 0) {
    logger.warn('no subscription keys yet: create one with `./bin/kindred keys create`, or set KINDRED_API_KEYS');
  }
  const pool = new WorkerPool({ threads: config.workers });
  const changes = new ChangeBus();
  const indexes = new Indexes(storage, pool, changes, defaultContentSettings(config.cacheDir, config.refitGrowth, path.join(config.dataDir, 'index')), logger);
  const clusters = new ClusterService(storage, pool, indexes, logger);
  registerClusterService(clusters);
  const refit = cron.schedule(config.refitCron, () => {
    indexes.refitAll().catch((error: unknown) => logger.error({ err: error }, 'scheduled refit failed'));
  });
  const trainings = [...config.trainSchedules].map(([tenant, expression]) => cron.schedule(expression, () => {
    trainTenantModel(storage.tenant(tenant), pool, DEFAULT_HYBRID_PARAMS, (line) => logger.info({ tenant }, line))
      .catch((error: unknown) => logger.error({ err: error, tenant }, 'scheduled training failed'));
  }, { noOverlap: true }));
  const articles = new ArticleService({ pool, ...config.parser }, config.parser);
  const versions: Record<string, ApiVersion> = { ...VERSIONS, parser: parserVersion(articles) };
  const metrics = new Metrics(pool, () => indexes.list().map(([tenant, idx]) => ({ tenant, documents: idx.content.size })));
  let ready = false;
  const app = createApp({
    metrics,
    adminToken: config.adminToken,
    services: { storage, keys: new KeyResolver(storage), changes, indexes, observe: (...args) => metrics.observe(...args) },
    logger,
    maxBodyBytes: config.maxBodyBytes,
    versions: [...Object.entries(versions).map(([name, version]) => ({ prefix: `/${name}`, version })), { prefix: '', version: v6 }],
    versionHosts: new Map([...config.versionHosts].map(([host, name]) => {
      if (!versions[name]) throw new Error(`KINDRED_VERSION_HOSTS: ${name} is not served by this build`);
      return [host, versions[name]];
    })),
    isReady: () => ready,
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(config.port, config.host, () => resolve(s));
    s.once('error', reject);
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 120_000;
  indexes.warm().then(() => {
    ready = true;
    logger.info('indexes ready');
    logger.flush();
  }, (error: unknown) => logger.error({ err: error }, 'building indexes failed'));
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
      await indexes.close();
      articles.close();
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
