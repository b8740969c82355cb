import { badRequest, type SvcError } from '../model/errors.js';
import type { BootstrapPolicy, RuntimeDesiredStatus, StartInitial } from '../model/status.js';
import type { PipelineRow } from '../model/pipeline-row.js';
import { type Plan, type RowChanges, noChanges } from './changes.js';

// The desired-state actions of the API (/start, /stop?force=true, /clear, /dismiss_error, delete)
// as pure rules over the stored row (API.md "Rules", LIFECYCLE.md).

const fail = (error: SvcError): Plan => ({ ok: false, error });
const ok = (changes: RowChanges): Plan => ({ ok: true, changes });

const INITIAL: Record<StartInitial, RuntimeDesiredStatus> = {
  running: 'Running',
  paused: 'Paused',
  standby: 'Standby',
};

const fullyStopped = (row: PipelineRow): boolean =>
  row.deployment_resources_status === 'Stopped' && row.deployment_resources_desired_status === 'Stopped';

const COMPILATION_FAILED = new Set(['SqlError', 'RustError', 'SystemError']);

export interface StartParams {
  /** Absent: `running` on a stopped pipeline, "unchanged" on one already started. */
  initial?: StartInitial;
  bootstrap_policy?: BootstrapPolicy;
  dismiss_error: boolean;
}

/** Standby needs a storage backend that can sync checkpoints to shared storage. */
export function canSyncStorage(row: PipelineRow): boolean {
  const backend = row.runtime_config.storage?.backend;
  const config = backend?.['config'];
  return typeof config === 'object' && config !== null && !Array.isArray(config) && config['sync'] != null;
}

export function planStart(row: PipelineRow, params: StartParams): Plan {
  const name = row.name;
  if (row.deployment_resources_desired_status === 'Stopped' && row.deployment_resources_status !== 'Stopped') {
    return fail(
      badRequest('IllegalPipelineAction', `Pipeline '${name}' is still stopping; start it once it is Stopped`, {
        status: row.deployment_resources_status,
        desired_status: row.deployment_resources_desired_status,
        requested_desired_status: 'Provisioned',
      }),
    );
  }
  if (row.deployment_error && !params.dismiss_error) {
    return fail(
      badRequest(
        'CannotStartWithUndismissedError',
        `Pipeline '${name}' has a deployment error; dismiss it first (or start with dismiss_error=true)`,
        { deployment_error: row.deployment_error },
      ),
    );
  }
  if (row.storage_status === 'Clearing') {
    return fail(badRequest('CannotStartWhileClearingStorage', `Pipeline '${name}' is clearing its storage`));
  }
  if (COMPILATION_FAILED.has(row.program_status)) {
    return fail(
      badRequest(
        'CannotStartWithCompilationError',
        `Pipeline '${name}' cannot start: its program failed to compile (${row.program_status})`,
        { program_status: row.program_status },
      ),
    );
  }
  if (row.deployment_resources_desired_status === 'Provisioned') return planRepeatedStart(row, params);

  const initial = INITIAL[params.initial ?? 'running'];
  if (initial === 'Standby' && !canSyncStorage(row)) {
    return fail(
      badRequest(
        'InitialStandbyNotAllowed',
        `Pipeline '${name}' cannot start in standby: runtime_config.storage.backend has no sync configuration`,
      ),
    );
  }
  const changes = noChanges();
  changes.set = {
    deployment_resources_desired_status: 'Provisioned',
    deployment_initial: initial,
    deployment_bootstrap_policy: params.bootstrap_policy ?? 'allow',
    ...(row.deployment_error && { deployment_error: null }),
  };
  changes.stamp = ['deployment_resources_desired_status_since'];
  changes.bump = ['refresh_version'];
  return ok(changes);
}

function planRepeatedStart(row: PipelineRow, params: StartParams): Plan {
  if (params.initial !== undefined && INITIAL[params.initial] !== row.deployment_initial) {
    return fail(
      badRequest(
        'InitialImmutableUnlessStopped',
        `Pipeline '${row.name}' was started with initial=${row.deployment_initial}; stop it to start it differently`,
        { initial: row.deployment_initial, requested: INITIAL[params.initial] },
      ),
    );
  }
  if (params.bootstrap_policy !== undefined && params.bootstrap_policy !== row.deployment_bootstrap_policy) {
    return fail(
      badRequest(
        'BootstrapPolicyImmutableUnlessStopped',
        `Pipeline '${row.name}' was started with bootstrap_policy=${row.deployment_bootstrap_policy}; stop it to change it`,
        { bootstrap_policy: row.deployment_bootstrap_policy, requested: params.bootstrap_policy },
      ),
    );
  }
  return ok(noChanges());
}

export function planForceStop(row: PipelineRow): Plan {
  if (row.deployment_resources_desired_status === 'Stopped') return ok(noChanges());
  const changes = noChanges();
  changes.set = { deployment_resources_desired_status: 'Stopped' };
  // Nothing was deployed yet (early start): the start parameters go with the desire.
  if (row.deployment_resources_status === 'Stopped') {
    Object.assign(changes.set, { deployment_initial: null, deployment_bootstrap_policy: null });
  }
  changes.stamp = ['deployment_resources_desired_status_since'];
  changes.bump = ['refresh_version'];
  return ok(changes);
}

export function planClear(row: PipelineRow): Plan {
  if (!fullyStopped(row)) {
    return fail(
      badRequest(
        'StorageStatusImmutableUnlessStopped',
        `Cannot clear the storage of pipeline '${row.name}' unless it is fully stopped`,
        { status: row.deployment_resources_status, desired_status: row.deployment_resources_desired_status },
      ),
    );
  }
  if (row.storage_status !== 'InUse') return ok(noChanges());
  return ok({
    set: { storage_status: 'Clearing', storage_status_details: null },
    stamp: ['storage_status_since'],
    bump: ['refresh_version'],
  });
}

export function planDismissError(row: PipelineRow): Plan {
  if (row.deployment_error == null) return ok(noChanges());
  if (!fullyStopped(row)) {
    return fail(
      badRequest('IllegalPipelineAction', `Pipeline '${row.name}' must be stopped before its error is dismissed`, {
        status: row.deployment_resources_status,
        desired_status: row.deployment_resources_desired_status,
      }),
    );
  }
  return ok({ set: { deployment_error: null }, stamp: [], bump: ['refresh_version'] });
}

export function checkDelete(row: PipelineRow): SvcError | null {
  if (!fullyStopped(row)) {
    return badRequest(
      'DeleteRestrictedToFullyStopped',
      `Pipeline '${row.name}' can only be deleted when fully stopped`,
      { status: row.deployment_resources_status, desired_status: row.deployment_resources_desired_status },
    );
  }
  if (row.storage_status !== 'Cleared') {
    return badRequest(
      'DeleteRestrictedToClearedStorage',
      `Pipeline '${row.name}' can only be deleted once its storage is cleared (storage status: ${row.storage_status})`,
      { storage_status: row.storage_status },
    );
  }
  return null;
}
