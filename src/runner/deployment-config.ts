import type { DeploymentConfig } from '../model/deployment.js';
import type { RuntimeConfig } from '../model/runtime-config.js';
import type { BackendRuntimeConfig } from './backend.js';
import type { StartInitial } from '../model/status.js';
import type { RunnerRow } from '../model/pipeline-row.js';

/** Where a backend finds the compiled program of a pipeline. */
export interface ArtifactLocator {
  binaryRef(row: RunnerRow): string;
  programInfoRef(row: RunnerRow): string;
}

const INITIAL: Record<string, StartInitial> = { Running: 'running', Paused: 'paused', Standby: 'standby' };

export const initialOf = (row: RunnerRow): StartInitial => INITIAL[row.deployment_initial ?? 'Running'] ?? 'running';

/** The file a pipeline process is started with (src/model/deployment.ts). */
export function deploymentConfig(row: RunnerRow, storagePath: string, artifacts: ArtifactLocator): DeploymentConfig {
  if (!row.deployment_id) throw new Error(`pipeline ${row.id} has no deployment id`);
  return {
    pipeline_id: row.id,
    pipeline_name: row.name,
    deployment_id: row.deployment_id,
    platform_version: row.platform_version,
    binary_ref: artifacts.binaryRef(row),
    program_info_ref: artifacts.programInfoRef(row),
    runtime_config: row.runtime_config as unknown as DeploymentConfig['runtime_config'],
    storage_path: storagePath,
    bootstrap_policy: row.deployment_bootstrap_policy ?? 'allow',
  };
}

/** The members of runtime_config a backend reads, typed (backend.ts). */
export function backendRuntime(config: RuntimeConfig): BackendRuntimeConfig {
  const { env, resources, pipeline_template_configmap, init_containers } = config;
  return { env, resources, pipeline_template_configmap, init_containers };
}

/**
 * The Kubernetes namespace the pipeline asked for (runtime_config.resources.namespace), if any:
 * worked out here alone; the backend falls back to its own.
 */
export function namespaceOf(row: RunnerRow): string | undefined {
  return row.runtime_config.resources?.namespace ?? undefined;
}
