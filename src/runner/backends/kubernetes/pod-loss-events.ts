import type { Kube } from './kube.js';
import { recordEvent } from './events.js';
import type { Loss, PodLossPolicy } from './pod-loss.js';

/** Event reason of a tolerated pod loss (`kubectl get events --field-selector reason=PipelinePodLost`). */
export const POD_LOST_REASON = 'PipelinePodLost';

/** What a pod loss tells the operator: what happened, how many so far, and what happens next. */
export function podLossMessage(loss: Loss, restarts: number, policy: PodLossPolicy): string {
  const secs = Math.round(policy.windowMs / 1000);
  return (
    `pod ${loss.pod} lost (${loss.reason}: ${loss.message}); restart ${restarts} of ${policy.maxRestarts} ` +
    `tolerated within ${secs} s; the pipeline resumes from its last checkpoint`
  );
}

/** Who a pod's Warning Event is about: the pipeline's StatefulSet (`uid`, when the cache has it). */
interface PipelineObject {
  namespace: string;
  pipelineId: string;
  pipelineName: string | undefined;
  uid: string | undefined;
}

/** A Warning Event about the pipeline's pod, on its StatefulSet (which `kubectl describe` shows). */
export async function recordPodWarning(kube: Kube, e: PipelineObject & { reason: string; message: string }) {
  await recordEvent(kube, {
    namespace: e.namespace,
    pipelineId: e.pipelineId,
    ...(e.pipelineName && { pipelineName: e.pipelineName }),
    uid: e.uid,
    reason: e.reason,
    message: e.message,
    type: 'Warning',
  });
}

export async function recordPodLoss(
  kube: Kube,
  e: PipelineObject & { loss: Loss; restarts: number; policy: PodLossPolicy },
): Promise<void> {
  await recordPodWarning(kube, {
    ...e,
    reason: POD_LOST_REASON,
    message: podLossMessage(e.loss, e.restarts, e.policy),
  });
}

/** Event reason of a lost pod's successor that waits for a node (`--pod-reschedule-grace-secs`). */
export const POD_UNSCHEDULABLE_REASON = 'PipelinePodUnschedulable';

/** What the wait for a node tells the operator: why, and how long it may last before the pipeline stops. */
export function podWaitingMessage(pod: string, why: string, graceMs: number): string {
  return (
    `pod ${pod} waits for a node (${why}); the pipeline stays Unavailable for up to ` +
    `${Math.round(graceMs / 1000)} s (--pod-reschedule-grace-secs), then stops with deployment_error Unschedulable`
  );
}
