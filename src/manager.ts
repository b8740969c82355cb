import { hostname } from 'node:os';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildApp } from './api/app.js';
import type { PipelineLogs } from './http/log-lines.js';
import { runnerLogs } from './api/runner-logs.js';
import { createRegistry } from './http/metrics.js';
import { startCompiler } from './compiler/index.js';
import { startLocalRunner } from './runner/index.js';
import { buildRunnerApp } from './runner/http.js';
import { createRunnerMetrics } from './runner/metrics.js';
import type { ApiServerConfig, CombinedConfig, ManagerConfig, RunnerConfig } from './config.js';
import type { Registry } from 'prom-client';
import { forTarget, type Logger } from './logging/logger.js';
import type { Database } from './store/database.js';
import { beat } from './store/heartbeat.js';
import { openDatabase } from './store/open.js';
import { readBuildInfo } from './version.js';

const HEARTBEAT_INTERVAL_MS = 10_000;

export interface RunningManager {
  url: string;
  close(): Promise<void>;
}

export interface Parts {
  compiler: boolean;
  runner: boolean;
}

type Closer = () => Promise<void>;

const compilerDir = (config: ManagerConfig): string => join(config.dataDir, 'compiler');

/**
 * `svc manager`: every component in one process: API, compiler and the runner with the local
 * backend. `svc api-server` is the API alone.
 */
export async function startManager(
  config: ManagerConfig | CombinedConfig | ApiServerConfig,
  rootLog: Logger,
  parts: Parts = { compiler: true, runner: true },
): Promise<RunningManager> {
  const log = forTarget(rootLog, 'svc::manager');
  const build = readBuildInfo();
  const { db, where, applied } = await openDatabase(config.databaseUrl, config.dataDir, log);
  log.info({ database: where, migrations_applied: applied }, 'database ready: %s', where);
  const closers: Closer[] = [() => db.close()];
  const registry = createRegistry();
  let pipelineLogs: PipelineLogs | undefined;
  const closeAll = async () => {
    for (const close of closers.reverse())
      await close().catch((error: unknown) => log.error({ error }, 'close failed'));
  };
  try {
    if (parts.compiler) {
      const compiler = await startCompiler({
        db,
        log: rootLog,
        dataDir: compilerDir(config),
        unstableFeatures: config.unstableFeatures,
        // Pipeline processes fetch their program from here (local processes on loopback; pods at
        // the address the chart gives).
        artifactServer: { ...artifactServerAddress(config), preferredPort: await previousArtifactPort(config) },
      });
      if (compiler.artifactUrl) await rememberArtifactPort(config, compiler.artifactUrl);
      closers.push(() => compiler.close());
      // Only `svc manager` (a CombinedConfig) runs a runner in-process.
      if (parts.runner && compiler.artifactUrl && 'runner' in config) {
        const artifactUrl = config.compilerUrl?.replace(/\/+$/, '') || compiler.artifactUrl;
        const runner = await startAnyRunner(config.runner, config, { db, rootLog, artifactUrl, registry });
        closers.push(() => runner.close());
        pipelineLogs = runner.logs;
      }
    }
    // `svc api-server --runner-url`: the logs are with a runner in another process.
    if ('runnerUrl' in config && config.runnerUrl) pipelineLogs = runnerLogs(config.runnerUrl);
    const app = buildApp({ db, log: rootLog, build, metrics: registry, apiKey: config.apiKey, pipelineLogs });
    await app.listen({ port: config.port, host: config.bindAddress });
    closers.push(() => app.close());
    const url = urlOf(config, app.server.address());
    closers.push(await heartbeatLoop(db, 'api-server', log));
    log.info({ url, version: build.version, auth: config.apiKey ? 'api-key' : 'none' }, 'svc manager ready at %s', url);
    return {
      url,
      async close() {
        await closeAll();
        log.info('svc manager stopped');
      },
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/** `svc compiler-server`: the compiler and its artifact server (on --port) alone. */
export async function startCompilerServer(config: ManagerConfig, rootLog: Logger): Promise<RunningManager> {
  const log = forTarget(rootLog, 'svc::compiler-server');
  const { db, where } = await openDatabase(config.databaseUrl, config.dataDir, log);
  try {
    const compiler = await startCompiler({
      db,
      log: rootLog,
      dataDir: compilerDir(config),
      unstableFeatures: config.unstableFeatures,
      artifactServer: { host: config.bindAddress, port: config.port },
    });
    const url = compiler.artifactUrl ?? '';
    log.info({ url, database: where }, 'svc compiler-server ready at %s', url);
    return {
      url,
      async close() {
        await compiler.close();
        await db.close();
        log.info('svc compiler-server stopped');
      },
    };
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}

/**
 * `svc runner`: the runner alone; pipelines fetch programs from --compiler-url. Serves /healthz,
 * /readyz and /metrics on --port.
 */
export async function startRunnerServer(config: RunnerConfig, rootLog: Logger): Promise<RunningManager> {
  const log = forTarget(rootLog, 'svc::runner');
  const { db, where } = await openDatabase(config.databaseUrl, config.dataDir, log);
  const closers: Closer[] = [() => db.close()];
  const closeAll = async () => {
    for (const close of closers.reverse())
      await close().catch((error: unknown) => log.error({ error }, 'close failed'));
  };
  try {
    const registry = createRegistry();
    const artifactUrl = config.compilerUrl.replace(/\/+$/, '');
    const runner = await startAnyRunner(config.backend, config, { db, rootLog, artifactUrl, registry });
    closers.push(() => runner.close());
    const app = buildRunnerApp({ db, registry, leading: runner.leading, logs: runner.logs });
    await app.listen({ port: config.port, host: config.bindAddress });
    closers.push(() => app.close());
    const url = urlOf(config, app.server.address());
    log.info(
      { database: where, backend: config.backend, url },
      'svc runner ready (%s backend) at %s',
      config.backend,
      url,
    );
    return {
      url,
      async close() {
        await closeAll();
        log.info('svc runner stopped');
      },
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

interface AnyRunner {
  leading: () => boolean;
  /** The local backend's log streams (Kubernetes pipelines log to their pods). */
  logs?: PipelineLogs;
  close(): Promise<void>;
}

/** The runner of either backend, on the process's metrics registry; losing the Lease ends the process. */
async function startAnyRunner(
  backend: 'local' | 'kubernetes',
  config: CombinedConfig | RunnerConfig,
  deps: { db: Database; rootLog: Logger; artifactUrl: string; registry: Registry },
): Promise<AnyRunner> {
  const { db, rootLog, artifactUrl } = deps;
  const metrics = createRunnerMetrics(deps.registry);
  if (backend === 'kubernetes') {
    // Loaded only here: the Kubernetes client is a large module tree a local manager never needs.
    const { startKubernetesRunner } = await import('./runner/kubernetes.js');
    const runner = await startKubernetesRunner({
      db,
      log: rootLog,
      config,
      artifactUrl,
      metrics,
      onLeadershipLost: () => process.kill(process.pid, 'SIGTERM'),
    });
    return { leading: () => runner.leading(), close: () => runner.close() };
  }
  const runner = await startLocalRunner({
    db,
    log: rootLog,
    dataDir: config.dataDir,
    artifactUrl,
    childEnv: config.childEnv,
    metrics,
  });
  return {
    leading: () => true,
    logs: ({ id }, signal) => runner.backend.followLogs(id, signal),
    close: () => runner.close(),
  };
}

/** Loopback for local pipeline processes; with the Kubernetes runner, where pods can reach it. */
function artifactServerAddress(config: ManagerConfig | CombinedConfig): { host: string; port: number } {
  if ('runner' in config && config.runner === 'kubernetes')
    return { host: config.bindAddress, port: config.compilerPort };
  return { host: '127.0.0.1', port: 'compilerPort' in config ? config.compilerPort : 0 };
}

/** Where the artifact server's port is kept between runs of one data dir. */
const artifactPortFile = (config: ManagerConfig): string => join(compilerDir(config), 'artifact-port');

async function previousArtifactPort(config: ManagerConfig): Promise<number | undefined> {
  const text = await readFile(artifactPortFile(config), 'utf8').catch(() => '');
  const port = Number(text.trim());
  return Number.isInteger(port) && port > 0 && port < 65_536 ? port : undefined;
}

async function rememberArtifactPort(config: ManagerConfig, url: string): Promise<void> {
  await mkdir(compilerDir(config), { recursive: true });
  await writeFile(artifactPortFile(config), new URL(url).port);
}

function urlOf(
  config: { port: number; bindAddress: string },
  address: ReturnType<import('node:net').Server['address']>,
): string {
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.bindAddress.includes(':') ? `[${config.bindAddress}]` : config.bindAddress;
  return `http://${host}:${port}`;
}

async function heartbeatLoop(db: Database, component: string, log: Logger): Promise<Closer> {
  const instance = `${hostname()}:${process.pid}`;
  const once = () => beat(db, component, instance).catch((error: unknown) => log.warn({ error }, 'heartbeat failed'));
  await once();
  const timer = setInterval(() => void once(), HEARTBEAT_INTERVAL_MS);
  timer.unref();
  return async () => clearInterval(timer);
}
