import type { RunnerSettings } from '../lifecycle/resources.js';
import { forTarget, type Logger } from '../logging/logger.js';
import type { Database } from '../store/database.js';
import { LocalBackend } from './backends/local/backend.js';
import type { SvcCommand } from './backends/local/spawn.js';
import { artifactServerLocator } from './artifact-locator.js';
import { type Runner, startRunner } from './driver.js';
import type { RunnerMetrics } from './metrics.js';

export interface LocalRunnerOptions {
  db: Database;
  log: Logger;
  dataDir: string;
  /** Base URL of the compiler's artifact server. */
  artifactUrl: string;
  /** Environment every pipeline process starts with (before the pipeline's own `env`). */
  childEnv: Record<string, string>;
  settings?: Partial<RunnerSettings>;
  command?: SvcCommand;
  pollMs?: number;
  metrics?: RunnerMetrics;
}

/** LIFECYCLE.md defaults for the local backend: a pipeline process starts in seconds. */
export const LOCAL_SETTINGS: RunnerSettings = { defaultProvisioningTimeoutSecs: 20, initializingGraceSecs: 20 };

export interface LocalRunner extends Runner {
  backend: LocalBackend;
}

/**
 * The runner with the local backend (pipelines as child processes): `svc runner --backend local`
 * and the runner inside `svc manager`. The Kubernetes one is runner/kubernetes.ts; both drive the
 * same automaton (driver.ts).
 */
export async function startLocalRunner(opts: LocalRunnerOptions): Promise<LocalRunner> {
  const log = opts.log.child({ 'svc-service': 'runner' });
  const backend = new LocalBackend({
    dataDir: opts.dataDir,
    log: forTarget(log, 'svc::runner::local'),
    baseEnv: opts.childEnv,
    command: opts.command,
  });
  const runner = await startRunner({
    db: opts.db,
    log,
    backend,
    artifacts: artifactServerLocator(opts.artifactUrl),
    settings: { ...LOCAL_SETTINGS, ...opts.settings },
    pollMs: opts.pollMs,
    metrics: opts.metrics,
  });
  return {
    ...runner,
    backend,
    async close() {
      await runner.close();
      await backend.close();
    },
  };
}
