import type { RunnerSettings } from '../lifecycle/resources.js';
import { forTarget, type Logger } from '../logging/logger.js';
import type { Database } from '../store/database.js';
import type { RunnerRow } from '../model/pipeline-row.js';
import { LocalBackend } from './backends/local/backend.js';
import type { SvcCommand } from './backends/local/spawn.js';
import type { ArtifactLocator } from './deployment-config.js';
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

/** The compiler's artifact server, addressed by the build the pipeline's row records. */
export function artifactServerLocator(baseUrl: string): ArtifactLocator {
  const path = (row: RunnerRow) => {
    if (!row.program_binary_source_checksum || !row.program_binary_integrity_checksum) {
      throw new Error(`pipeline ${row.id} has no compiled build recorded`);
    }
    return `${row.id}/${row.program_version}/${row.program_binary_source_checksum}/${row.program_binary_integrity_checksum}`;
  };
  return {
    binaryRef: (row) => `${baseUrl}/binary/${path(row)}`,
    programInfoRef: (row) => `${baseUrl}/program_info/${path(row)}`,
  };
}

export interface LocalRunner extends Runner {
  backend: LocalBackend;
}

/** `svc runner --backend local`, and the runner inside `svc manager`. */
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
