import type { Registry } from 'prom-client';
import { type ManagerConfig, pipelineBounds, type RunnerConfig } from '../config.js';
import { createRegistry } from '../http/metrics.js';
import type { PipelineLogs } from '../http/log-lines.js';
import type { Logger } from '../logging/logger.js';
import { forTarget } from '../logging/logger.js';
import { buildRunnerApp } from '../runner/http.js';
import { startLocalRunner } from '../runner/local.js';
import { createRunnerMetrics } from '../runner/metrics.js';
import type { Database } from '../store/database.js';
import { openDatabase } from '../store/open.js';
import { type RunningComponent, startComponent, urlOf } from './component.js';

/**
 * `svc runner`: the runner alone; pipelines fetch programs from --compiler-url. Serves /healthz,
 * /readyz and /metrics on --port.
 */
export async function startRunnerServer(config: RunnerConfig, rootLog: Logger): Promise<RunningComponent> {
  const log = forTarget(rootLog, 'svc::runner');
  return startComponent('runner', log, async (onClose) => {
    const { db, where } = await openDatabase(config.databaseUrl, config.dataDir, log);
    onClose(() => db.close());
    const registry = createRegistry();
    const runner = await startRunnerOf(config.backend, config, {
      db,
      rootLog,
      artifactUrl: config.compilerUrl,
      registry,
    });
    onClose(() => runner.close());
    const app = buildRunnerApp({ db, registry, leading: runner.leading, logs: runner.logs });
    await app.listen({ port: config.port, host: config.bindAddress });
    onClose(() => app.close());
    const url = urlOf(config, app.server.address());
    log.info(
      { database: where, backend: config.backend, url },
      'svc runner ready (%s backend) at %s',
      config.backend,
      url,
    );
    return url;
  });
}

export interface StartedRunner {
  leading: () => boolean;
  /** Pipelines' log streams: the local backend's files, or the Kubernetes pods' logs. */
  logs?: PipelineLogs;
  close(): Promise<void>;
}

/** The runner of either backend, on the process's metrics registry; losing the Lease ends the process. */
export async function startRunnerOf(
  backend: 'local' | 'kubernetes',
  config: ManagerConfig | RunnerConfig,
  deps: { db: Database; rootLog: Logger; artifactUrl: string; registry: Registry },
): Promise<StartedRunner> {
  const { db, rootLog, artifactUrl } = deps;
  const metrics = createRunnerMetrics(deps.registry);
  if (backend === 'kubernetes') {
    // Loaded only here: the Kubernetes client is a large module tree a local manager never needs.
    const { startKubernetesRunner } = await import('../runner/kubernetes.js');
    const runner = await startKubernetesRunner({
      db,
      log: rootLog,
      config,
      bounds: pipelineBounds(config),
      artifactUrl,
      metrics,
      onLeadershipLost: () => process.kill(process.pid, 'SIGTERM'),
    });
    return {
      leading: () => runner.leading(),
      logs: ({ id }, signal, options) => runner.followLogs(id, signal, options?.follow),
      close: () => runner.close(),
    };
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
    logs: ({ id }, signal, options) => runner.backend.followLogs(id, signal, options?.follow),
    close: () => runner.close(),
  };
}
