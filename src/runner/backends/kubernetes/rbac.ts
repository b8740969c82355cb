import type { V1PolicyRule } from '@kubernetes/client-node';

// Every API call of the Kubernetes runner, as RBAC rules: what the Helm chart's Role must grant, no
// more (the chart test compares its rendered Role with this list; the cluster tests run the runner
// with that Role only). Server-side apply that creates an object is authorized as "create" as well.
const PIPELINE_RULES: readonly V1PolicyRule[] = [
  // provision: apply; stop: delete (foreground); informers: list + watch
  { apiGroups: ['apps'], resources: ['statefulsets'], verbs: ['list', 'watch', 'create', 'patch', 'delete'] },
  // the headless Service: apply; deleted with the StatefulSet (and explicitly on stop)
  { apiGroups: [''], resources: ['services'], verbs: ['create', 'patch', 'delete'] },
  // the deployment config: apply, delete; the pipeline template: get
  { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create', 'patch', 'delete'] },
  // the deployment's HTTP token: apply, delete (never read back)
  { apiGroups: [''], resources: ['secrets'], verbs: ['create', 'patch', 'delete'] },
  // informers
  { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
  // GET /v0/pipelines/{name}/logs: the pipeline container's log, followed
  { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
  // informers; clear: delete
  { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['list', 'watch', 'delete'] },
  // Warning events (informer) and the runner's own transition events
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'list', 'watch'] },
];

/** The Pipeline resources' controller (--pipeline-resources; chart value pipelineResources.enabled). */
const PIPELINE_RESOURCE_RULES: readonly V1PolicyRule[] = [
  // informer: list + watch; the finalizer: patch
  { apiGroups: ['svc.dev'], resources: ['pipelines'], verbs: ['list', 'watch', 'patch'] },
  // the record's status, written back
  { apiGroups: ['svc.dev'], resources: ['pipelines/status'], verbs: ['patch'] },
];

/** In the control plane's namespace: the pipelines' calls, the leader election's Lease, and the
 * Pipeline resources' controller when it runs. */
export function runnerRbacRules(opts: { pipelineResources: boolean }): readonly V1PolicyRule[] {
  return [
    ...PIPELINE_RULES,
    // leader election
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
    ...(opts.pipelineResources ? PIPELINE_RESOURCE_RULES : []),
  ];
}

/** The chart's default: the controller runs. */
export const RUNNER_RBAC_RULES: readonly V1PolicyRule[] = runnerRbacRules({ pipelineResources: true });

/**
 * In each further namespace pipelines may run in (chart value kubernetesRunner.allowedNamespaces):
 * the pipelines' calls only (a custom template's ConfigMap is read there too).
 */
export const PIPELINE_NAMESPACE_RBAC_RULES: readonly V1PolicyRule[] = PIPELINE_RULES;

/**
 * In each further namespace whose Pipeline resources the controller keeps (chart value
 * pipelineResources.watchNamespaces; a ClusterRole with the same rules when it is `*`): the
 * resources' calls and the Events about them, which are written in the resource's namespace.
 */
export const PIPELINE_RESOURCE_NAMESPACE_RBAC_RULES: readonly V1PolicyRule[] = [
  ...PIPELINE_RESOURCE_RULES,
  { apiGroups: [''], resources: ['events'], verbs: ['create'] },
];
