import type { V1OwnerReference } from '@kubernetes/client-node';

// KUBERNETES.md "Objects of one deployment": the labels every object of a deployment carries, so that
// the informers (selector `managed-by: svc-runner`) and `kubectl get -l` find them.

/** Names one deployment of one pipeline: what every object of it is named and labelled with. */
export interface DeploymentIdentity {
  /** `pipeline-<pipeline uuid>`: the name of the StatefulSet, Service and ConfigMap. */
  id: string;
  namespace: string;
  pipelineId: string;
  pipelineName: string;
  deploymentId: string;
}

export const MANAGED_BY = 'svc-runner';
export const APP_NAME = 'svc-pipeline';
export const LABEL_PIPELINE_ID = 'svc/pipeline-id';
export const LABEL_PIPELINE_NAME = 'svc/pipeline-name';
export const LABEL_DEPLOYMENT_ID = 'svc/deployment-id';
/** The full pipeline name, for when its label value had to be shortened or cleaned. */
export const ANNOTATION_PIPELINE_NAME = 'svc/pipeline-name';

/**
 * A Kubernetes label value: at most 63 characters, alphanumerics, `-`, `_`, `.`, and alphanumeric at
 * both ends. Pipeline names already fit (the model allows `[-A-Za-z0-9_]`, at most 63 bytes), so this
 * only matters if that rule is ever widened; then the label stays valid and the annotation keeps the name.
 */
export function labelValue(raw: string): string {
  return raw
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+/, '')
    .replace(/[^A-Za-z0-9]+$/, '');
}

/**
 * The labels the selectors use. Only what never changes for a pipeline: a StatefulSet's selector is
 * immutable, and the deployment id changes on every start.
 */
export function selectorLabels(who: DeploymentIdentity): Record<string, string> {
  return { 'app.kubernetes.io/name': APP_NAME, [LABEL_PIPELINE_ID]: labelValue(who.pipelineId) };
}

export function deploymentLabels(who: DeploymentIdentity): Record<string, string> {
  return {
    'app.kubernetes.io/managed-by': MANAGED_BY,
    ...selectorLabels(who),
    [LABEL_PIPELINE_NAME]: labelValue(who.pipelineName),
    [LABEL_DEPLOYMENT_ID]: labelValue(who.deploymentId),
  };
}

export function deploymentAnnotations(who: DeploymentIdentity): Record<string, string> {
  return { [ANNOTATION_PIPELINE_NAME]: who.pipelineName };
}

/** The StatefulSet owns the Service and ConfigMap, so deleting it (stop) collects them. */
export function ownedByStatefulSet(owner: { name: string; uid: string }): V1OwnerReference[] {
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      name: owner.name,
      uid: owner.uid,
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
}
