import { decide, need, type Observation, type RunnerSettings } from '../lifecycle/resources.js';
import { SvcError } from '../model/errors.js';
import type { Database } from '../store/database.js';
import type { RunnerRow } from '../store/pipelines/row.js';
import { applyIfUnchanged, selectPipelineById } from '../store/runner/queries.js';
import type { Backend } from './backend.js';
import { type ArtifactLocator, deploymentConfig, initialOf } from './deployment-config.js';
import { fetchRuntimeStatus } from './status-client.js';

export interface ReconcileDeps {
  db: Database;
  backend: Backend;
  artifacts: ArtifactLocator;
  settings: RunnerSettings;
  now: () => number;
}

export type StepResult = { row: RunnerRow | undefined; wrote: boolean; before?: RunnerRow };

/** One look at one pipeline: observe what its state asks for, decide, write. */
export async function reconcileOnce(deps: ReconcileDeps, id: string): Promise<StepResult> {
  const row = await selectPipelineById(deps.db, id);
  if (!row) {
    // Deleted: make sure nothing of it runs (idempotent).
    await deps.backend.stop(id);
    return { row: undefined, wrote: false };
  }
  const obs = await observe(deps, row);
  const changes = decide(row, obs, deps.now(), deps.settings);
  if (!changes) return { row, wrote: false };
  const after = await applyIfUnchanged(deps.db, row, changes);
  return { row: after ?? row, wrote: after !== undefined, before: row };
}

/** The Kubernetes namespace the pipeline asked for (runtime_config.resources.namespace), if any. */
export function namespaceOf(row: RunnerRow): string | undefined {
  const resources = (row.runtime_config as { resources?: { namespace?: string | null } } | null)?.resources;
  return resources?.namespace ?? undefined;
}

async function observe(deps: ReconcileDeps, row: RunnerRow): Promise<Observation> {
  const { backend } = deps;
  const namespace = namespaceOf(row);
  switch (need(row).kind) {
    case 'provision':
      return provision(deps, row);
    case 'provisioned':
      return backend.readiness(row.id, row.deployment_id ?? '', { phase: 'provisioning', namespace });
    case 'health': {
      const readiness = await backend.readiness(row.id, row.deployment_id ?? '', { phase: 'provisioned', namespace });
      if (readiness.kind === 'fatal') return readiness;
      return row.deployment_location ? fetchRuntimeStatus(row.deployment_location) : { kind: 'status-unreachable' };
    }
    case 'stop':
      return (await backend.stop(row.id, { namespace })) ? { kind: 'stopped' } : { kind: 'stopping' };
    case 'clear':
      return (await backend.clear(row.id, { namespace })) ? { kind: 'cleared' } : { kind: 'clearing' };
    default:
      return { kind: 'none' };
  }
}

async function provision(deps: ReconcileDeps, row: RunnerRow): Promise<Observation> {
  const config = deploymentConfig(row, deps.backend.storagePath(row.id), deps.artifacts);
  try {
    await deps.backend.provision({
      pipelineId: row.id,
      pipelineName: row.name,
      deploymentId: config.deployment_id,
      initial: initialOf(row),
      config,
    });
  } catch (error) {
    if (error instanceof SvcError) return { kind: 'provision-failed', error: error.toBody() };
    throw error;
  }
  return { kind: 'provision-started', config };
}
