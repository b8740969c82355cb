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

export async function recordPodLoss(
  kube: Kube,
  e: {
    namespace: string;
    pipelineId: string;
    pipelineName: string | undefined;
    uid: string | undefined;
    loss: Loss;
    restarts: number;
    policy: PodLossPolicy;
  },
): Promise<void> {
  await recordEvent(kube, {
    namespace: e.namespace,
    pipelineId: e.pipelineId,
    ...(e.pipelineName && { pipelineName: e.pipelineName }),
    uid: e.uid,
    reason: POD_LOST_REASON,
    message: podLossMessage(e.loss, e.restarts, e.policy),
    type: 'Warning',
  });
}
