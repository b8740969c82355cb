import type { V1Pod } from '@kubernetes/client-node';
import type { ErrorBody } from '../../../model/errors.js';
import { resourceError } from './resource-error.js';

// Pure: the losses of a fault-tolerant pipeline's pod (issue 29, KUBERNETES.md "Pod loss"). A pod
// that went away (eviction, drain, deletion, node lost) or whose container exited (crash, OOM) is
// not a failed pipeline when it checkpoints: the StatefulSet brings the pod back, and the process
// resumes from its last checkpoint. Each loss is counted once, by the identity Kubernetes gives it
// (the pod's uid, or the pod's uid and its container's restart count), so that looking at the same
// pod again, or missing the moment it was gone, neither counts it twice nor loses it.

export const PIPELINE_CONTAINER = 'pipeline';

export interface PodLossPolicy {
  /** Restarts tolerated within the window; one more is a fatal resource error. */
  maxRestarts: number;
  windowMs: number;
}

/** The documented defaults (chart `kubernetesRunner.podRestarts`): 5 restarts within 10 minutes. */
export const DEFAULT_POD_LOSS_POLICY: PodLossPolicy = { maxRestarts: 5, windowMs: 600_000 };

export interface Loss {
  at: number;
  pod: string;
  reason: string;
  message: string;
}

export interface LossHistory {
  deploymentId: string;
  /** The pod seen last, and whether its loss has been counted already. */
  podUid?: string;
  podLost: boolean;
  /** The pipeline container's restart count of that pod already counted. */
  restarts: number;
  losses: Loss[];
}

const restartsOf = (pod: V1Pod): number =>
  pod.status?.containerStatuses?.find((c) => c.name === PIPELINE_CONTAINER)?.restartCount ?? 0;

/** The pod is gone or going: deleted, being deleted, or Failed (evicted, node lost). */
export function podGone(pod: V1Pod | undefined): boolean {
  return !pod || Boolean(pod.metadata?.deletionTimestamp) || pod.status?.phase === 'Failed';
}

/** The pipeline container is not running (not started yet, waiting to restart, or exited). */
export function containerDown(pod: V1Pod): boolean {
  return !pod.status?.containerStatuses?.find((c) => c.name === PIPELINE_CONTAINER)?.state?.running;
}

function goneLoss(pod: V1Pod | undefined, name: string, now: number): Loss {
  if (!pod) return { at: now, pod: name, reason: 'Deleted', message: 'the pipeline pod was deleted' };
  if (pod.status?.phase === 'Failed')
    return {
      at: now,
      pod: name,
      reason: pod.status.reason ?? 'Failed',
      message: pod.status.message ?? 'the pod failed',
    };
  return { at: now, pod: name, reason: 'Deleted', message: 'the pipeline pod is being deleted' };
}

function exitLoss(pod: V1Pod, name: string, now: number): Loss {
  const status = pod.status?.containerStatuses?.find((c) => c.name === PIPELINE_CONTAINER);
  const last = status?.lastState?.terminated ?? status?.state?.terminated;
  const reason = last?.reason ?? 'Exited';
  const why = last ? `exit code ${last.exitCode}${last.message ? `: ${last.message}` : ''}` : 'no exit status';
  return {
    at: now,
    pod: name,
    reason,
    message:
      reason === 'OOMKilled' ? `container pipeline ran out of memory (${why})` : `container pipeline exited (${why})`,
  };
}

/**
 * One look at the pod → the history after it and the losses it shows for the first time. The first
 * look of a deployment takes the pod as it is (its earlier restarts, if any, were before the runner
 * watched it: a runner that restarts starts counting afresh).
 */
export function observeLosses(
  before: LossHistory | undefined,
  deploymentId: string,
  name: string,
  pod: V1Pod | undefined,
  now: number,
): { history: LossHistory; fresh: Loss[] } {
  const uid = pod?.metadata?.uid;
  if (!before || before.deploymentId !== deploymentId) {
    const history: LossHistory = { deploymentId, podLost: false, restarts: 0, losses: [] };
    if (pod && uid) Object.assign(history, { podUid: uid, podLost: podGone(pod), restarts: restartsOf(pod) });
    return { history, fresh: [] };
  }
  const history: LossHistory = { ...before, losses: [...before.losses] };
  const fresh: Loss[] = [];
  const counted = () => history.podUid !== undefined && !history.podLost;
  if (uid && uid !== history.podUid) {
    // A new pod: the one before it is lost, whether or not a look saw it go.
    if (counted())
      fresh.push({ at: now, pod: name, reason: 'Replaced', message: 'the pipeline pod was replaced by a new one' });
    Object.assign(history, { podUid: uid, podLost: false, restarts: 0 });
  }
  if (podGone(pod)) {
    if (counted()) fresh.push(goneLoss(pod, name, now));
    history.podLost = true;
  } else if (pod) {
    const restarts = restartsOf(pod);
    for (let n = history.restarts; n < restarts; n += 1) fresh.push(exitLoss(pod, name, now));
    history.restarts = Math.max(history.restarts, restarts);
  }
  history.losses.push(...fresh);
  return { history, fresh };
}

/** Losses within the window ending now (older ones are forgotten: the history stays small). */
export function recentLosses(history: LossHistory, now: number, policy: PodLossPolicy): Loss[] {
  return history.losses.filter((loss) => now - loss.at < policy.windowMs);
}

/** More restarts within the window than the policy tolerates: the pipeline fails, naming the last. */
export function lossVerdict(history: LossHistory, now: number, policy: PodLossPolicy): ErrorBody | undefined {
  const recent = recentLosses(history, now, policy);
  const last = recent.at(-1);
  if (!last || recent.length <= policy.maxRestarts) return undefined;
  const secs = Math.round(policy.windowMs / 1000);
  return resourceError(
    'Pod',
    last.pod,
    last.reason,
    `${last.message}; ${recent.length} restarts within ${secs} s, more than the ${policy.maxRestarts} tolerated`,
  );
}
