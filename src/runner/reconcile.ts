import { randomUUID } from 'node:crypto';
import { decide, need, type Observation, type RunnerSettings } from '../lifecycle/resources.js';
import type { Database } from '../store/database.js';
import type { RunnerRow, VersionedRunnerRow } from '../model/pipeline-row.js';
import { pipelineToken } from '../http/pipeline-token.js';
import { selectPipelineById } from '../store/runner/queries.js';
import type { Backend } from './backend.js';
import { type ArtifactLocator, backendRuntime, deploymentConfig, initialOf, namespaceOf } from './deployment-config.js';
import { fetchRuntimeStatus } from './status-client.js';
import type { WriteIfUnchanged } from './write-batch.js';

export interface ReconcileDeps {
  db: Database;
  backend: Backend;
  artifacts: ArtifactLocator;
  settings: RunnerSettings;
  now: () => number;
  /** Derives each deployment's token (src/http/pipeline-token.ts): every call to a pipeline carries it. */
  platformKey: string;
  /** The conditional write: applyIfUnchanged's contract, with group commit (write-batch.ts). */
  write: WriteIfUnchanged;
}

export interface StepResult {
  /** The row after this step (undefined: the pipeline is gone); the one to start the next look from. */
  row: VersionedRunnerRow | undefined;
  wrote: boolean;
  /** Someone else changed the row between the read and the write: nothing written, read again. */
  conflict?: boolean;
  before?: VersionedRunnerRow;
}

/** The looks that remove what runs or what is stored. */
const DESTRUCTIVE = new Set(['stop', 'clear']);

/**
 * One look at one pipeline: observe what its state asks for, decide, write. `known` is the row as
 * the previous look left it, when the caller knows it is still current (same row version).
 */
export async function reconcileOnce(deps: ReconcileDeps, id: string, known?: VersionedRunnerRow): Promise<StepResult> {
  let row = known ?? (await selectPipelineById(deps.db, id));
  // A stop or a clear acts on the backend before its write is checked against the row's version:
  // act on the row as the database has it now, never on one remembered from an earlier look (a
  // start since then would have its new deployment deleted by a stale stop).
  if (known && row && DESTRUCTIVE.has(need(row).kind)) row = await selectPipelineById(deps.db, id);
  if (!row) {
    // Deleted: make sure nothing of it runs (idempotent).
    await deps.backend.stop(id);
    return { row: undefined, wrote: false };
  }
  const obs = await observe(deps, row);
  const changes = decide(row, obs, deps.now(), deps.settings);
  if (!changes) return { row, wrote: false };
  const after = await deps.write(row, changes);
  if (!after) return { row: undefined, wrote: false, conflict: true };
  return { row: after, wrote: true, before: row };
}

async function observe(deps: ReconcileDeps, row: RunnerRow): Promise<Observation> {
  const { backend } = deps;
  const namespace = namespaceOf(row);
  switch (need(row).kind) {
    case 'admit':
      return backend.admit?.(row.id) === false ? { kind: 'queued' } : { kind: 'admitted', deploymentId: randomUUID() };
    case 'provision':
      return provision(deps, row);
    case 'provisioned': {
      const readiness = await backend.readiness(row.id, row.deployment_id ?? '', { phase: 'provisioning', namespace });
      return readiness.kind === 'interrupted' ? { kind: 'not-ready' } : readiness;
    }
    case 'health':
      return health(deps, row, namespace);
    case 'stop':
      return (await backend.stop(row.id, { namespace })) ? { kind: 'stopped' } : { kind: 'stopping' };
    case 'clear':
      return (await backend.clear(row.id, { namespace })) ? { kind: 'cleared' } : { kind: 'clearing' };
    default:
      return { kind: 'none' };
  }
}

/** Provisioned: is the pod still there (backend), then what does the pipeline say (/status)? */
async function health(deps: ReconcileDeps, row: RunnerRow, namespace: string | undefined): Promise<Observation> {
  const faultTolerant = row.runtime_config.fault_tolerance != null;
  const context = { phase: 'provisioned', namespace, faultTolerant, pipelineName: row.name } as const;
  const readiness = await deps.backend.readiness(row.id, row.deployment_id ?? '', context);
  if (readiness.kind === 'fatal') return readiness;
  // The pod is away and coming back (fault tolerance): Unavailable, whatever an old address says.
  if (readiness.kind === 'interrupted') return { kind: 'status-unavailable' };
  if (readiness.kind === 'ready' && readiness.location !== row.deployment_location)
    return { kind: 'relocated', location: readiness.location };
  return row.deployment_location
    ? fetchRuntimeStatus(row.deployment_location, pipelineToken(deps.platformKey, row.deployment_id ?? ''))
    : { kind: 'status-unreachable' };
}

async function provision(deps: ReconcileDeps, row: RunnerRow): Promise<Observation> {
  const config = deploymentConfig(row, deps.backend.storagePath(row.id), deps.artifacts);
  const result = await deps.backend.provision({
    pipelineId: row.id,
    pipelineName: row.name,
    deploymentId: config.deployment_id,
    token: pipelineToken(deps.platformKey, config.deployment_id),
    initial: initialOf(row),
    config,
    runtime: backendRuntime(row.runtime_config),
    namespace: namespaceOf(row),
  });
  return result.kind === 'failed'
    ? { kind: 'provision-failed', error: result.error }
    : { kind: 'provision-started', config };
}
