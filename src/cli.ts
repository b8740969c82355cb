#!/usr/bin/env node
import { Command, Option } from 'commander';
import { ConfigError, envName, loadManagerConfig, MANAGER_OPTIONS } from './config.js';
import { createLogger, forTarget, type ServiceName } from './logging/logger.js';
import { startManager } from './manager.js';
import { readBuildInfo } from './version.js';

// `svc <subcommand>`: one program for every component (ARCHITECTURE.md, Components).

function withManagerOptions(cmd: Command): Command {
  for (const spec of MANAGER_OPTIONS) {
    const suffix = `(env ${envName(spec.flag)}${spec.default !== undefined ? `, default ${spec.default}` : ''})`;
    cmd.addOption(new Option(`--${spec.flag} <${spec.value}>`, `${spec.description} ${suffix}`));
  }
  return cmd;
}

async function serve(service: ServiceName, flags: Record<string, unknown>): Promise<void> {
  const config = loadManagerConfig(flags);
  const rootLog = createLogger({ service, json: config.logJson, level: config.logLevel });
  const log = forTarget(rootLog, 'svc::cli');
  let running: Awaited<ReturnType<typeof startManager>>;
  try {
    running = await startManager(config, rootLog);
  } catch (error) {
    log.error({ error }, 'svc %s failed to start: %s', service, (error as Error).message);
    process.exitCode = 1;
    return;
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('received %s, shutting down', signal);
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

const program = new Command('svc')
  .description('Streaming-SQL pipeline service. JSON logs: set SVC_LOG_JSON=1.')
  .version(readBuildInfo().version)
  .showHelpAfterError();

withManagerOptions(
  program
    .command('manager')
    .description('run every component in one process: the embedded default (no cluster, no database server)'),
).action((flags: Record<string, unknown>) => serve('manager', flags));

withManagerOptions(
  program.command('api-server').description('run the HTTP API (/v0) alone against a shared database'),
).action((flags: Record<string, unknown>) => serve('api-server', flags));

program.parseAsync().catch((error: unknown) => {
  process.stderr.write(`svc: ${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exitCode = 2;
});
