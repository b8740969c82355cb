import type { Transition } from '../../backend.js';
import type { Kube } from './kube.js';
import { FIELD_MANAGER, objectName } from './names.js';

// Kubernetes Events on the pipeline's StatefulSet for each transition of its resources status, so
// that `kubectl describe statefulset pipeline-<id>` tells the story (KUBERNETES.md "Stopping").

const REASONS: Record<string, string> = {
  Provisioning: 'Provisioning',
  Provisioned: 'Provisioned',
  Stopping: 'Stopping',
  Stopped: 'Stopped',
};

export async function recordTransition(
  kube: Kube,
  t: Transition & { namespace: string; uid: string | undefined },
): Promise<void> {
  const name = objectName(t.pipelineId);
  const now = new Date();
  const message = t.error
    ? `pipeline ${t.pipelineName}: ${t.from} → ${t.to}: ${t.error.error_code}: ${t.error.message}`
    : `pipeline ${t.pipelineName}: ${t.from} → ${t.to}`;
  await kube.call('create', 'events', () =>
    kube.core.createNamespacedEvent({
      namespace: t.namespace,
      body: {
        metadata: { generateName: `${name}.`, namespace: t.namespace },
        involvedObject: {
          apiVersion: 'apps/v1',
          kind: 'StatefulSet',
          name,
          namespace: t.namespace,
          ...(t.uid && { uid: t.uid }),
        },
        reason: REASONS[t.to] ?? t.to,
        message: message.slice(0, 1024),
        type: t.error ? 'Warning' : 'Normal',
        source: { component: FIELD_MANAGER },
        reportingComponent: FIELD_MANAGER,
        reportingInstance: FIELD_MANAGER,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      },
    }),
  );
}
