import { SvcError } from '../model/errors.js';
import type { RuntimeStatus } from '../model/status.js';

// The pipeline process's runtime statuses (LIFECYCLE.md "Runtime status", seed 3.5) as pure
// functions: which desired-status requests are legal, and which status the process shows once its
// engine is loaded. The process (controller.ts) holds the state; this file only decides.

/** The desired statuses a client can ask the process for. */
export type Desired = 'Standby' | 'Paused' | 'Running' | 'Suspended';

const LEGAL: Readonly<Record<Desired, readonly Desired[]>> = {
  Standby: ['Paused', 'Running'],
  Paused: ['Running', 'Suspended'],
  Running: ['Paused', 'Suspended'],
  // Suspended is final for this process: the runner stops it and starts a new one to resume.
  Suspended: [],
};

export type Transition = { ok: true; desired: Desired } | { ok: false; error: SvcError };

export const illegalTransition = (from: Desired, to: Desired, action?: string): SvcError =>
  new SvcError(
    400,
    'IllegalRuntimeTransition',
    `cannot change the desired runtime status from ${from} to ${to}`,
    action === undefined ? { from, to } : { from, to, action },
  );

/** A request for `to` while the desired status is `from`. Asking for the current one is a no-op. */
export function requestDesired(from: Desired, to: Desired): Transition {
  if (from === to) return { ok: true, desired: to };
  return LEGAL[from].includes(to) ? { ok: true, desired: to } : { ok: false, error: illegalTransition(from, to) };
}

/** POST /activate: only a standby process can be activated, into Paused or Running. */
export function activate(from: Desired, to: 'Paused' | 'Running'): Transition {
  if (from !== 'Standby') return { ok: false, error: illegalTransition(from, to, 'activate') };
  return { ok: true, desired: to };
}

/** The status a loaded (and, when resuming, replayed) process shows for its desired status. */
export function settledStatus(desired: Desired): RuntimeStatus {
  return desired;
}

/** Phases of start-up, in order; the process leaves them for settledStatus(desired). */
export type StartupStatus = Extract<RuntimeStatus, 'Initializing' | 'AwaitingApproval' | 'Bootstrapping' | 'Replaying'>;

export type BootstrapDecision =
  | { kind: 'fresh' }
  | { kind: 'replay' }
  | { kind: 'bootstrap' }
  | { kind: 'await_approval' }
  | { kind: 'reject'; error: SvcError };

/**
 * What to do with the latest checkpoint: none → a fresh start; the same program → replay it; a
 * changed program → the bootstrap policy decides (seed 2.1 bootstrap_policy).
 */
export function bootstrapDecision(
  checkpointChecksum: string | undefined,
  programChecksum: string,
  policy: 'allow' | 'reject' | 'await_approval',
): BootstrapDecision {
  if (checkpointChecksum === undefined) return { kind: 'fresh' };
  if (checkpointChecksum === programChecksum) return { kind: 'replay' };
  if (policy === 'allow') return { kind: 'bootstrap' };
  if (policy === 'await_approval') return { kind: 'await_approval' };
  return {
    kind: 'reject',
    error: new SvcError(
      500,
      'BootstrapRejected',
      'the program changed since the last checkpoint and the bootstrap policy is reject',
      { checkpoint_program_checksum: checkpointChecksum, program_checksum: programChecksum },
    ),
  };
}
