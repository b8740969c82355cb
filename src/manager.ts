import { hostname } from 'node:os';
import { buildApp } from './api/app.js';
import { createRegistry } from './api/metrics.js';
import type { ManagerConfig } from './config.js';
import { forTarget, type Logger } from './logging/logger.js';
import { beat } from './store/heartbeat.js';
import { openDatabase } from './store/open.js';
import { readBuildInfo } from './version.js';

const HEARTBEAT_INTERVAL_MS = 10_000;

export interface RunningManager {
  url: string;
  close(): Promise<void>;
}

/**
 * `svc manager`: every component in one process. Today that is the API server; the compiler and
 * the runner join it as they are built.
 */
export async function startManager(config: ManagerConfig, rootLog: Logger): Promise<RunningManager> {
  const log = forTarget(rootLog, 'svc::manager');
  const build = readBuildInfo();
  const { db, where, applied } = await openDatabase(config.databaseUrl, config.dataDir);
  log.info({ database: where, migrations_applied: applied }, 'database ready: %s', where);

  const app = buildApp({ db, log: rootLog, build, metrics: createRegistry(), apiKey: config.apiKey });
  try {
    await app.listen({ port: config.port, host: config.bindAddress });
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.bindAddress.includes(':') ? `[${config.bindAddress}]` : config.bindAddress;
  const url = `http://${host}:${port}`;

  const instance = `${hostname()}:${process.pid}`;
  const heartbeat = async () =>
    beat(db, 'api-server', instance).catch((error: unknown) => log.warn({ error }, 'heartbeat failed'));
  await heartbeat();
  const timer = setInterval(() => void heartbeat(), HEARTBEAT_INTERVAL_MS);
  timer.unref();

  log.info({ url, version: build.version, auth: config.apiKey ? 'api-key' : 'none' }, 'svc manager ready at %s', url);
  return {
    url,
    async close() {
      clearInterval(timer);
      await app.close();
      await db.close();
      log.info('svc manager stopped');
    },
  };
}
