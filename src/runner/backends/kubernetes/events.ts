import type { Transition } from '../../backend.js';
import type { Kube } from './kube.js';
import { FIELD_MANAGER, objectName } from './names.js';
import { LABEL_PIPELINE_ID, LABEL_PIPELINE_NAME, labelValue } from './template/index.js';

// Kubernetes Events on the pipeline's StatefulSet for each transition of its resources status and
// each loss of its pod, so that `kubectl describe statefulset pipeline-<id>` tells the story
// (KUBERNETES.md "Stopping", "Pod loss").

const REASONS: Record<string, string> = {
  Provisioning: 'Provisioning',
  Provisioned: 'Provisioned',
  Stopping: 'Stopping',
  Stopped: 'Stopped',
};

export interface StatefulSetEvent {
  namespace: string;
  pipelineId: string;
  /** Labels the Event, so `kubectl get events -l svc/pipeline-name=<name>` finds it after a stop. */
  pipelineName?: string;
  uid: string | undefined;
  reason: string;
  message: string;
  type: 'Normal' | 'Warning';
}

/** One Event whose involved object is the pipeline's StatefulSet. */
export async function recordEvent(kube: Kube, e: StatefulSetEvent): Promise<void> {
  await createEvent(kube, {
    namespace: e.namespace,
    involvedObject: {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      name: objectName(e.pipelineId),
      ...(e.uid && { uid: e.uid }),
    },
    // Events outlive the StatefulSet (deleted at a stop) for the API server's event TTL; the
    // labels find them by pipeline, whatever object they were about.
    labels: {
      [LABEL_PIPELINE_ID]: labelValue(e.pipelineId),
      ...(e.pipelineName && { [LABEL_PIPELINE_NAME]: labelValue(e.pipelineName) }),
    },
    reason: e.reason,
    message: e.message,
    type: e.type,
  });
}

/** One Event about `involvedObject` (`kubectl describe` shows it), from the runner. */
export async function createEvent(
  kube: Kube,
  e: {
    namespace: string;
    involvedObject: { apiVersion: string; kind: string; name: string; uid?: string };
    labels?: Record<string, string>;
    reason: string;
    message: string;
    type: 'Normal' | 'Warning';
  },
): Promise<void> {
  const now = new Date();
  await kube.call('create', 'events', () =>
    kube.core.createNamespacedEvent({
      namespace: e.namespace,
      body: {
        metadata: {
          generateName: `${e.involvedObject.name}.`,
          namespace: e.namespace,
          ...(e.labels && { labels: e.labels }),
        },
        involvedObject: { ...e.involvedObject, namespace: e.namespace },
        reason: e.reason,
        message: e.message.slice(0, 1024),
        type: e.type,
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

export async function recordTransition(
  kube: Kube,
  t: Transition & { namespace: string; uid: string | undefined },
): Promise<void> {
  const message = t.error
    ? `pipeline ${t.pipelineName}: ${t.from} → ${t.to}: ${t.error.error_code}: ${t.error.message}`
    : `pipeline ${t.pipelineName}: ${t.from} → ${t.to}`;
  await recordEvent(kube, {
    namespace: t.namespace,
    pipelineId: t.pipelineId,
    pipelineName: t.pipelineName,
    uid: t.uid,
    reason: REASONS[t.to] ?? t.to,
    message,
    type: t.error ? 'Warning' : 'Normal',
  });
}
