import { flushCompileCache } from 'node:module';
import type { PipelineProcessConfig } from '../config.js';
import type { DeploymentConfig } from '../model/deployment.js';
import { readAuthToken } from './auth.js';
import { startWatchdog } from './watchdog.js';
import { forPipeline, forTarget, type Logger } from '../logging/logger.js';
import { PipelineController } from './controller.js';
import type { Desired } from './runtime-status.js';
import { processSettings, readDeploymentConfig } from './settings.js';

/** How long requests in flight at SIGTERM may take before the exit checkpoint is written. */
const IN_FLIGHT_GRACE_MS = 3_000;

async function checkpointBeforeExit(ctl: PipelineController, log: Logger): Promise<void> {
  const t0 = Date.now();
  try {
    const written = await ctl.checkpointOnExit();
    if (written) log.info({ checkpoint: written.id, ms: Date.now() - t0 }, 'checkpoint written before exit');
  } catch (error) {
    log.error({ error }, 'the checkpoint before exit failed: %s', (error as Error).message);
  }
}

/** The template's arguments win over the config file (a node may rewrite a mounted path in them). */
function withOverrides(deployment: DeploymentConfig, config: PipelineProcessConfig): DeploymentConfig {
  return {
    ...deployment,
    binary_ref: config.binaryRef ?? deployment.binary_ref,
    program_info_ref: config.programInfoRef ?? deployment.program_info_ref,
    storage_path: config.storagePath ?? deployment.storage_path,
    bootstrap_policy: config.bootstrapPolicy ?? deployment.bootstrap_policy,
  };
}

/**
 * `svc pipeline`: reads the deployment config (a bad file rejects: exit code 1), starts loading
 * the program and serves HTTP meanwhile, so that a runner sees Initializing. A program that cannot
 * be loaded also rejects (the server is closed again, so the process exits 1); a refused bootstrap
 * is not a load failure but a fatal status, answered on /status.
 */
export async function runPipeline(config: PipelineProcessConfig, rootLog: Logger): Promise<{ close(): Promise<void> }> {
  const deployment = withOverrides(await readDeploymentConfig(config.configFile), config);
  const settings = processSettings(deployment.runtime_config);
  // runtime_config.logging is the pipeline's own filter and wins over --log-level; set before any
  // child logger exists, since children copy the level when they are made.
  if (settings.logLevel) rootLog.level = settings.logLevel;
  const pipelineLog = forPipeline(rootLog, { name: deployment.pipeline_name, id: deployment.pipeline_id });
  const log = forTarget(pipelineLog, 'svc::pipeline');
  if (config.deploymentId !== undefined && config.deploymentId !== deployment.deployment_id)
    log.warn(
      { flag: config.deploymentId, config_file: deployment.deployment_id },
      '--deployment-id differs from the config file; the config file wins',
    );
  for (const warning of settings.warnings) log.warn(warning);
  if (settings.ignored.length > 0)
    log.warn({ ignored: settings.ignored }, 'runtime_config members with unexpected values use their defaults');

  const initial: Desired =
    config.initial === 'running' ? 'Running' : config.initial === 'paused' ? 'Paused' : 'Standby';
  const ctl = new PipelineController(deployment, settings, initial, log, {
    initdbDump: config.initdbDump,
    cores: config.cpuCores,
  });
  // Loading starts before the HTTP server's modules are read (fastify: over a hundred module
  // files), so the engine's file reads and WebAssembly compile run meanwhile. Its failure is
  // handled where it is awaited, after listen.
  const loading = ctl.load();
  loading.catch(() => undefined);
  const token = await readAuthToken(config);
  if (token === undefined)
    log.warn('no --auth-token-file nor SVC_AUTH_TOKEN: the HTTP API answers anyone who reaches it');
  const { buildPipelineApp } = await import('./http.js');
  const app = buildPipelineApp(ctl, forTarget(pipelineLog, 'svc::pipeline::http'), token);
  // Counting starts once the engine is loaded: loading blocks the event loop for seconds, and the
  // runner's status calls queued meanwhile must not look like silence.
  let watchdog: ReturnType<typeof startWatchdog> | undefined;
  const watch = () =>
    config.orphanTimeoutSecs > 0
      ? startWatchdog(config.orphanTimeoutSecs * 1000, () => {
          log.warn(
            { orphan_timeout_secs: config.orphanTimeoutSecs },
            'no runner has asked for the status in %d s: the runner is gone, stopping',
            config.orphanTimeoutSecs,
          );
          // The normal shutdown path: the command's signal handler closes and exits 0.
          process.kill(process.pid, 'SIGTERM');
        })
      : undefined;
  app.addHook('onRequest', async (request) => {
    if (request.url === '/status') watchdog?.touch();
  });
  const close = async () => {
    watchdog?.stop();
    if (config.checkpointOnExit) {
      // New requests are refused from here on (503); the ones in flight get a moment to finish, so
      // that everything acknowledged is in the checkpoint. A stream that never ends must not eat
      // the pod's grace period.
      const closed = app.close();
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, IN_FLIGHT_GRACE_MS).unref())]);
      await checkpointBeforeExit(ctl, log);
      await closed;
    } else {
      await app.close();
    }
    await ctl.close();
  };
  try {
    await app.listen({ host: config.bindAddress, port: config.port });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.bindAddress.includes(':') ? `[${config.bindAddress}]` : config.bindAddress;
    log.info(
      { url: `http://${host}:${port}`, port, deployment_id: deployment.deployment_id, workers: settings.workers },
      'pipeline HTTP server listening',
    );
    await loading;
    watchdog = watch();
    // With NODE_COMPILE_CACHE (set by the local runner) the code cache is written now, not at exit,
    // so the next pipeline process started meanwhile loads its modules from it.
    flushCompileCache();
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
  return { close };
}
