import type { ErrorBody } from '../model/errors.js';
import { jsonEqual, type JsonValue } from '../model/json.js';
import type { DeploymentConfig, ExtendedRuntimeStatus } from '../model/deployment.js';
import type { RunnerRow } from '../model/pipeline-row.js';
import type { RowChanges } from './changes.js';

// The runner's automaton of LIFECYCLE.md ("Resources status (runner), seed 3.2 made precise") as
// pure functions: the state tells which observation the runner must make (`need`), and the state
// plus that observation tell the next record fields (`decide`). The driver only does the I/O.

export type Need =
  | { kind: 'none' }
  | { kind: 'start' } // Stopped, asked to start, program not (yet) compiled: a database write or a wait
  | { kind: 'admit' } // Stopped → Provisioning once the backend has room for one more start
  | { kind: 'provision' } // first step of Provisioning: ask the backend
  | { kind: 'provisioned' } // later steps of Provisioning: is it ready?
  | { kind: 'health' } // Provisioned: backend check, then the pipeline's /status
  | { kind: 'stop' } // Stopping: tear down
  | { kind: 'clear' }; // storage Clearing

export type Observation =
  | { kind: 'none' }
  | { kind: 'queued' } // the backend starts this one when its turn comes (and wakes the runner then)
  | { kind: 'admitted'; deploymentId: string } // the backend has room: start, under this new deployment id
  | { kind: 'provision-started'; config: DeploymentConfig }
  | { kind: 'provision-failed'; error: ErrorBody } // failed at once: back to Stopped
  | { kind: 'not-ready' }
  | { kind: 'ready'; location: string }
  | { kind: 'relocated'; location: string } // Provisioned, and the pod came back at another address
  | { kind: 'fatal'; error: ErrorBody } // resource error: Stopping
  | { kind: 'status'; status: ExtendedRuntimeStatus }
  | { kind: 'status-unreachable' }
  | { kind: 'status-unavailable' } // 503
  | { kind: 'status-error'; error: ErrorBody } // any other non-200: fatal
  | { kind: 'stopped' }
  | { kind: 'stopping' }
  | { kind: 'cleared' }
  | { kind: 'clearing' };

export interface RunnerSettings {
  /** Used when runtime_config has no provisioning_timeout_secs. */
  defaultProvisioningTimeoutSecs: number;
  /** An unreachable pipeline counts as Initializing this long after Provisioned, then Unavailable. */
  initializingGraceSecs: number;
}

const ms = (rfc3339: string): number => Date.parse(rfc3339);
const FAILED = new Set(['SqlError', 'RustError', 'SystemError']);

export function need(row: RunnerRow): Need {
  const desired = row.deployment_resources_desired_status;
  switch (row.deployment_resources_status) {
    case 'Stopped':
      if (desired === 'Provisioned') return row.program_status === 'Success' ? { kind: 'admit' } : { kind: 'start' };
      return row.storage_status === 'Clearing' ? { kind: 'clear' } : { kind: 'none' };
    case 'Provisioning':
      if (desired === 'Stopped') return { kind: 'none' };
      // The deployment config is stored once the backend was asked: after that, only watch.
      return row.deployment_config === null ? { kind: 'provision' } : { kind: 'provisioned' };
    case 'Provisioned':
      return desired === 'Stopped' ? { kind: 'none' } : { kind: 'health' };
    case 'Stopping':
      return { kind: 'stop' };
  }
}

/** Moves to Stopping; the desired status goes to Stopped with it (LIFECYCLE.md). */
function toStopping(error: ErrorBody | null): RowChanges {
  return {
    set: {
      deployment_resources_status: 'Stopping',
      deployment_resources_desired_status: 'Stopped',
      ...(error && { deployment_error: error }),
    },
    stamp: ['deployment_resources_status_since', 'deployment_resources_desired_status_since'],
    bump: ['refresh_version'],
  };
}

/** Back to Stopped from Provisioning (or staying Stopped) with an error, desired Stopped. */
function toStoppedWithError(row: RunnerRow, error: ErrorBody): RowChanges {
  const moves = row.deployment_resources_status !== 'Stopped';
  return {
    set: {
      deployment_resources_status: 'Stopped',
      deployment_resources_desired_status: 'Stopped',
      deployment_error: error,
      ...clearedDeployment(),
    },
    stamp: [
      'deployment_resources_desired_status_since',
      ...(moves ? (['deployment_resources_status_since'] as const) : []),
    ],
    bump: ['refresh_version'],
  };
}

function clearedDeployment() {
  return {
    deployment_id: null,
    deployment_initial: null,
    deployment_bootstrap_policy: null,
    deployment_location: null,
    deployment_config: null,
    deployment_runtime_status: null,
    deployment_runtime_status_since: null,
    deployment_runtime_status_details: null,
    deployment_runtime_desired_status: null,
    deployment_runtime_desired_status_since: null,
  };
}

export function timeoutSecs(row: RunnerRow, settings: RunnerSettings): number {
  const own = row.runtime_config.provisioning_timeout_secs;
  return typeof own === 'number' ? own : settings.defaultProvisioningTimeoutSecs;
}

/** The next record fields, or null when nothing changes. `now` is epoch milliseconds. */
export function decide(row: RunnerRow, obs: Observation, now: number, settings: RunnerSettings): RowChanges | null {
  const desired = row.deployment_resources_desired_status;
  const status = row.deployment_resources_status;
  if ((status === 'Provisioning' || status === 'Provisioned') && desired === 'Stopped') return toStopping(null);

  switch (status) {
    case 'Stopped':
      return desired === 'Provisioned' ? decideStart(row, obs) : decideClear(row, obs);
    case 'Provisioning':
      return decideProvisioning(row, obs, now, settings);
    case 'Provisioned':
      return decideProvisioned(row, obs, now, settings);
    case 'Stopping':
      return obs.kind === 'stopped' ? decideStopped() : null;
  }
}

function decideStart(row: RunnerRow, obs: Observation): RowChanges | null {
  if (FAILED.has(row.program_status)) {
    return toStoppedWithError(row, {
      error_code: 'StartFailedDueToFailedCompilation',
      message: `Pipeline '${row.name}' cannot start: its program failed to compile (${row.program_status})`,
      details: { program_status: row.program_status },
    });
  }
  // Early start: the pipeline waits, Stopped, until its program compiles.
  if (row.program_status !== 'Success') return null;
  // In line for one of the backend's start slots: Provisioning (and its timeout) begins with the turn.
  // The new deployment id comes with the admission, so that this rule stays pure.
  if (obs.kind !== 'admitted') return null;
  return {
    set: {
      deployment_resources_status: 'Provisioning',
      deployment_id: obs.deploymentId,
      deployment_location: null,
      deployment_config: null,
      storage_status: 'InUse',
      deployment_error: null,
    },
    stamp: [
      'deployment_resources_status_since',
      ...(row.storage_status === 'InUse' ? [] : (['storage_status_since'] as const)),
    ],
    bump: ['refresh_version'],
  };
}

function decideClear(row: RunnerRow, obs: Observation): RowChanges | null {
  if (row.storage_status !== 'Clearing' || obs.kind !== 'cleared') return null;
  return {
    set: { storage_status: 'Cleared', storage_status_details: null },
    stamp: ['storage_status_since'],
    bump: ['refresh_version'],
  };
}

function decideProvisioning(
  row: RunnerRow,
  obs: Observation,
  now: number,
  settings: RunnerSettings,
): RowChanges | null {
  switch (obs.kind) {
    case 'provision-failed':
      return toStoppedWithError(row, obs.error);
    case 'provision-started':
      return { set: { deployment_config: obs.config }, stamp: [], bump: [] };
    case 'fatal':
      return toStopping(obs.error);
    case 'ready':
      return {
        set: {
          deployment_resources_status: 'Provisioned',
          deployment_location: obs.location,
          deployment_runtime_status: 'Initializing',
          deployment_runtime_desired_status: row.deployment_initial,
        },
        stamp: [
          'deployment_resources_status_since',
          'deployment_runtime_status_since',
          'deployment_runtime_desired_status_since',
        ],
        bump: ['refresh_version'],
      };
    default: {
      const limit = timeoutSecs(row, settings);
      if (now - ms(row.deployment_resources_status_since) <= limit * 1000) return null;
      return toStopping({
        error_code: 'ProvisioningTimeout',
        message: `Pipeline '${row.name}' was not provisioned within ${limit} s`,
        details: { timeout_secs: limit },
      });
    }
  }
}

function decideProvisioned(row: RunnerRow, obs: Observation, now: number, settings: RunnerSettings): RowChanges | null {
  switch (obs.kind) {
    case 'fatal':
    case 'status-error':
      return toStopping(obs.error);
    case 'status':
      if (obs.status.runtime_status === 'Suspended') return toStopping(null);
      return runtimeChanges(row, obs.status, now);
    case 'status-unavailable':
      return runtimeChanges(row, { runtime_status: 'Unavailable' }, now);
    case 'relocated':
      // A fault-tolerant pipeline's new pod (KUBERNETES.md "Pod loss"): its status is asked there next.
      return { set: { deployment_location: obs.location }, stamp: [], bump: ['refresh_version'] };
    case 'status-unreachable': {
      const young = now - ms(row.deployment_resources_status_since) < settings.initializingGraceSecs * 1000;
      return runtimeChanges(row, { runtime_status: young ? 'Initializing' : 'Unavailable' }, now);
    }
    default:
      return null;
  }
}

/**
 * Details alone (counters, the checkpoint list) are written at most once per this interval, measured
 * from the last details write; a status change is written at once, with its details.
 */
export const DETAILS_WRITE_INTERVAL_MS = 10_000;

function runtimeChanges(row: RunnerRow, seen: Partial<ExtendedRuntimeStatus>, now: number): RowChanges | null {
  const set: RowChanges['set'] = {};
  const stamp: Array<RowChanges['stamp'][number]> = [];
  if (seen.runtime_status && seen.runtime_status !== row.deployment_runtime_status) {
    set.deployment_runtime_status = seen.runtime_status;
    stamp.push('deployment_runtime_status_since');
  }
  if (seen.runtime_desired_status && seen.runtime_desired_status !== row.deployment_runtime_desired_status) {
    set.deployment_runtime_desired_status = seen.runtime_desired_status;
    stamp.push('deployment_runtime_desired_status_since');
  }
  const changed = Object.keys(set).length > 0;
  const lastDetails = row.deployment_details_written_at ? ms(row.deployment_details_written_at) : undefined;
  const detailsDue = changed || lastDetails === undefined || now - lastDetails >= DETAILS_WRITE_INTERVAL_MS;
  // Structural equality: jsonb returns members in its own order, so text comparison never matched.
  const details = {
    deployment_runtime_status_details: seen.runtime_status_details,
    storage_status_details: seen.storage_status_details,
  } as const;
  let detailsWritten = false;
  for (const [column, value] of Object.entries(details) as Array<[keyof typeof details, JsonValue | undefined]>) {
    if (value === undefined || !detailsDue || jsonEqual(value, row[column])) continue;
    set[column] = value;
    detailsWritten = true;
  }
  if (detailsWritten) stamp.push('deployment_details_written_at');
  if (Object.keys(set).length === 0) return null;
  return { set, stamp, bump: ['refresh_version'] };
}

function decideStopped(): RowChanges {
  return {
    set: { deployment_resources_status: 'Stopped', ...clearedDeployment() },
    stamp: ['deployment_resources_status_since'],
    bump: ['refresh_version'],
  };
}
