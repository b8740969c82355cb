#!/usr/bin/env node
// First: refuses an older Node.js before any other module is evaluated.
import './node-version.js';
import { Command, Option } from 'commander';
import {
  API_SERVER_OPTIONS,
  MANAGER_OPTIONS,
  ConfigError,
  loadApiServerConfig,
  loadManagerConfig,
  envName,
  loadCompilerServerConfig,
  loadPipelineConfig,
  loadRunnerConfig,
  RUNNER_OPTIONS,
  COMMON_OPTIONS,
  type OptionSpec,
  PIPELINE_OPTIONS,
} from './config.js';
import { createLogger, forTarget, type Logger, type ServiceName } from './logging/logger.js';
import { readBuildInfo } from './version.js';
import { collectWhenIdle } from './heap/idle-collection.js';

// Each command loads only its own modules: `svc pipeline` (started once per pipeline) does not pay
// for the API, the compiler, the runners and the Kubernetes client (measured: importing the control-plane commands
// took 1.1 s and 90 MiB of a pipeline process; pipeline/main.js alone 0.45 s).

// `svc <subcommand>`: one program for every component (ARCHITECTURE.md, Components).

function withOptions(cmd: Command, specs: readonly OptionSpec[]): Command {
  for (const spec of specs) {
    const suffix = `(env ${envName(spec.flag)}${spec.default !== undefined ? `, default ${spec.default}` : ''})`;
    // A `bool` option may stand alone (`--leader-elect`) or take a value (`--leader-elect false`).
    const value = spec.value === 'bool' ? '[bool]' : `<${spec.value}>`;
    cmd.addOption(new Option(`--${spec.flag} ${value}`, `${spec.description} ${suffix}`));
  }
  return cmd;
}

/**
 * Stops the component on SIGTERM/SIGINT and exits 0 (1 when the shutdown itself fails). The
 * handlers are installed before start-up, so a signal that arrives while starting is not lost.
 */
function superviseSignals(log: Logger) {
  let running: { close(): Promise<void> } | undefined;
  let pending: string | undefined;
  let stopping = false;
  const stop = (signal: string) => {
    if (!running) {
      pending = signal;
      return;
    }
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
  return {
    attach(component: { close(): Promise<void> }) {
      running = component;
      if (pending) stop(pending);
    },
    /** Start-up failed: exit now, whatever signal was pending. */
    failed() {
      process.exit(1);
    },
  };
}

interface Logged {
  logJson: boolean;
  logLevel: string;
}

/** One component: its config from flags and env, its logger, its start, its signals. */
async function serve<C extends Logged>(
  service: ServiceName,
  config: C,
  start: (config: C, log: Logger) => Promise<{ close(): Promise<void> }>,
): Promise<void> {
  const rootLog = createLogger({ service, json: config.logJson, level: config.logLevel });
  const log = forTarget(rootLog, 'svc::cli');
  const signals = superviseSignals(log);
  // Every component runs for days and is idle most of the time (src/heap/idle-rule.ts).
  collectWhenIdle();
  try {
    signals.attach(await start(config, rootLog));
  } catch (error) {
    log.error({ error }, 'svc %s failed to start: %s', service, (error as Error).message);
    signals.failed();
  }
}

const program = new Command('svc')
  .description('Streaming-SQL pipeline service. JSON logs: set SVC_LOG_JSON=1.')
  .version(readBuildInfo().version)
  .showHelpAfterError();

withOptions(
  program
    .command('manager')
    .description('run every component in one process: the embedded default (no cluster, no database server)'),
  MANAGER_OPTIONS,
).action((flags: Record<string, unknown>) =>
  serve('manager', loadManagerConfig(flags), async (c, l) =>
    (await import('./commands/manager.js')).startManager(c, l),
  ),
);

withOptions(
  program.command('api-server').description('run the HTTP API (/v0) alone against a shared database'),
  API_SERVER_OPTIONS,
).action((flags: Record<string, unknown>) =>
  serve('api-server', loadApiServerConfig(flags), async (c, l) =>
    (await import('./commands/api-server.js')).startApiServer(c, l),
  ),
);

withOptions(
  program
    .command('compiler-server')
    .description('compile programs and serve their artifacts (--port) against a shared database'),
  COMMON_OPTIONS.filter((o) => o.flag !== 'api-key'),
).action((flags: Record<string, unknown>) =>
  serve('compiler-server', loadCompilerServerConfig(flags), async (c, l) =>
    (await import('./commands/compiler-server.js')).startCompilerServer(c, l),
  ),
);

withOptions(
  program.command('runner').description('run the runner alone: drive pipelines toward their desired status'),
  RUNNER_OPTIONS,
).action((flags: Record<string, unknown>) =>
  serve('runner', loadRunnerConfig(flags), async (c, l) =>
    (await import('./commands/runner.js')).startRunnerServer(c, l),
  ),
);

withOptions(
  program.command('pipeline').description('run one pipeline process (started by a runner, not by hand)'),
  PIPELINE_OPTIONS,
).action((flags: Record<string, unknown>) =>
  serve('pipeline', loadPipelineConfig(flags), async (c, l) => (await import('./pipeline/main.js')).runPipeline(c, l)),
);

program.parseAsync().catch((error: unknown) => {
  process.stderr.write(`svc: ${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exitCode = 2;
});
