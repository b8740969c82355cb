import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../api/app.js';
import { loadConsole } from '../api/console.js';
import { pipelineAuth } from '../http/pipeline-token.js';
import { readPipelineKey } from '../store/platform-secret.js';
import { runnerLogs } from '../api/runner-logs.js';
import type { ProgramValidation } from '../api/routes/platform-extra.js';
import { startCompiler } from '../compiler/index.js';
import { type ApiServerConfig, type CommonConfig, type ManagerConfig, pipelineBounds } from '../config.js';
import type { PipelineLogs } from '../http/log-lines.js';
import { createRegistry } from '../http/metrics.js';
import { forTarget, type Logger } from '../logging/logger.js';
import { openDatabase } from '../store/open.js';
import { readBuildInfo } from '../version.js';
import { compilerDir } from './compiler-server.js';
import { heartbeatLoop, type RunningComponent, startComponent, urlOf } from './component.js';
import { startRunnerOf } from './runner.js';

/** The web console as `npm run build` leaves it: dist/web beside dist/commands. */
const CONSOLE_DIR = fileURLToPath(new URL('../web/', import.meta.url));

/**
 * `svc manager`: every component in one process: API, compiler and a runner (the local backend by
 * default). `svc api-server` (api-server.ts) is the same start-up with the API alone.
 */
export async function startManager(
  config: ManagerConfig | ApiServerConfig,
  rootLog: Logger,
  parts: { compiler: boolean } = { compiler: true },
): Promise<RunningComponent> {
  const log = forTarget(rootLog, 'svc::manager');
  const build = readBuildInfo();
  return startComponent('manager', log, async (onClose) => {
    const { db, where, applied } = await openDatabase(config.databaseUrl, config.dataDir, log);
    log.info({ database: where, migrations_applied: applied }, 'database ready: %s', where);
    onClose(() => db.close());
    const registry = createRegistry();
    let pipelineLogs: PipelineLogs | undefined;
    let validateProgram: ((programCode: string) => Promise<ProgramValidation>) | undefined;
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
      onClose(() => compiler.close());
      validateProgram = compiler.validate;
      // Only `svc manager` (a ManagerConfig) runs a runner in-process.
      if (compiler.artifactUrl && 'runner' in config) {
        const artifactUrl = config.compilerUrl ?? compiler.artifactUrl;
        const runner = await startRunnerOf(config.runner, config, { db, rootLog, artifactUrl, registry });
        onClose(() => runner.close());
        pipelineLogs = runner.logs;
      }
    }
    // `svc api-server --runner-url`: the logs are with a runner in another process.
    if ('runnerUrl' in config && config.runnerUrl) pipelineLogs = runnerLogs(config.runnerUrl);
    const bounds = pipelineBounds(config);
    const tls = config.tlsCert && config.tlsKey ? await readTls(config.tlsCert, config.tlsKey) : undefined;
    const deps = {
      db,
      log: rootLog,
      build,
      metrics: registry,
      apiKey: config.apiKey,
      pipelineAuth: pipelineAuth(await readPipelineKey(db)),
      pipelineLogs,
      bounds,
      validateProgram,
    };
    const webConsole = loadConsole(CONSOLE_DIR);
    const app = buildApp({ ...deps, ...(tls && { tls }), ...(webConsole && { console: webConsole }) });
    await app.listen({ port: config.port, host: config.bindAddress });
    onClose(() => app.close());
    const url = urlOf(config, app.server.address(), tls ? 'https' : 'http');
    onClose(await heartbeatLoop(db, 'api-server', log));
    log.info({ url, version: build.version, auth: config.apiKey ? 'api-key' : 'none' }, 'svc manager ready at %s', url);
    return url;
  });
}

/** The API's certificate and key (a mounted kubernetes.io/tls Secret: tls.crt, tls.key), read once at start. */
async function readTls(certFile: string, keyFile: string): Promise<{ cert: Buffer; key: Buffer }> {
  const [cert, key] = await Promise.all([readFile(certFile), readFile(keyFile)]);
  return { cert, key };
}

/** Loopback for local pipeline processes; with the Kubernetes runner, where pods can reach it. */
function artifactServerAddress(config: CommonConfig | ManagerConfig): { host: string; port: number } {
  if ('runner' in config && config.runner === 'kubernetes')
    return { host: config.bindAddress, port: config.compilerPort };
  return { host: '127.0.0.1', port: 'compilerPort' in config ? config.compilerPort : 0 };
}

/** Where the artifact server's port is kept between runs of one data dir. */
const artifactPortFile = (config: CommonConfig): string => join(compilerDir(config), 'artifact-port');

async function previousArtifactPort(config: CommonConfig): Promise<number | undefined> {
  const text = await readFile(artifactPortFile(config), 'utf8').catch(() => '');
  const port = Number(text.trim());
  return Number.isInteger(port) && port > 0 && port < 65_536 ? port : undefined;
}

async function rememberArtifactPort(config: CommonConfig, url: string): Promise<void> {
  await mkdir(compilerDir(config), { recursive: true });
  await writeFile(artifactPortFile(config), new URL(url).port);
}
