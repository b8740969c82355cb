import * as k8s from '@kubernetes/client-node';
import { API_VERSION, RESOURCE, type PipelineResourceStatus } from '../../model/pipeline-resource.js';
import { rawPatch } from '../backends/kubernetes/apply.js';
import { createEvent } from '../backends/kubernetes/events.js';
import type { Kube } from '../backends/kubernetes/kube.js';

// The controller's calls on Pipeline resources, each one verb of the runner's RBAC rules
// (rbac.ts): list + watch (the informer), patch (the finalizer), patch pipelines/status, and
// Events about the resource.

export interface PipelineResource extends k8s.KubernetesObject {
  metadata: k8s.V1ObjectMeta & { name: string; namespace: string };
  spec?: unknown;
  status?: PipelineResourceStatus;
}

const MERGE = 'application/merge-patch+json';

const collection = (namespace: string) => `/apis/${API_VERSION}/namespaces/${namespace}/${RESOURCE.plural}`;

/** The Pipelines of one namespace, or of every namespace (`namespace` undefined: a ClusterRole's reach). */
export function pipelineInformer(kube: Kube, namespace: string | undefined): k8s.ListWatch<PipelineResource> {
  const custom = kube.config.makeApiClient(k8s.CustomObjectsApi);
  const kind = { group: RESOURCE.group, version: RESOURCE.version, plural: RESOURCE.plural };
  const list = () =>
    kube.call('list', RESOURCE.plural, async () => {
      const answer = await (namespace === undefined
        ? custom.listClusterCustomObject(kind)
        : custom.listNamespacedCustomObject({ ...kind, namespace }));
      return answer as k8s.KubernetesListObject<PipelineResource>;
    });
  const path = namespace === undefined ? `/apis/${API_VERSION}/${RESOURCE.plural}` : collection(namespace);
  return new k8s.ListWatch<PipelineResource>(path, new k8s.Watch(kube.config), list, false);
}

/** Sets the finalizers; the resourceVersion makes a patch over a newer object a 409, retried next look. */
export async function patchFinalizers(kube: Kube, res: PipelineResource, finalizers: string[]): Promise<void> {
  const { namespace, name, resourceVersion } = res.metadata;
  await kube.call('patch', RESOURCE.plural, () =>
    rawPatch(kube.config, `${collection(namespace)}/${name}`, '', MERGE, { metadata: { finalizers, resourceVersion } }),
  );
}

/** Replaces the status: members the new one lacks are removed (null in a merge patch). */
export async function patchStatus(kube: Kube, res: PipelineResource, next: PipelineResourceStatus): Promise<void> {
  const { namespace, name } = res.metadata;
  const removed = Object.keys(res.status ?? {}).filter((k) => !(k in next));
  const status = { ...Object.fromEntries(removed.map((k) => [k, null])), ...next };
  await kube.call('patch', `${RESOURCE.plural}/status`, () =>
    rawPatch(kube.config, `${collection(namespace)}/${name}/status`, '', MERGE, { status }),
  );
}

export async function resourceEvent(
  kube: Kube,
  res: PipelineResource,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
): Promise<void> {
  await createEvent(kube, {
    namespace: res.metadata.namespace,
    involvedObject: {
      apiVersion: API_VERSION,
      kind: RESOURCE.kind,
      name: res.metadata.name,
      ...(res.metadata.uid && { uid: res.metadata.uid }),
    },
    reason,
    message,
    type,
  });
}
