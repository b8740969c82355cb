import { z } from 'zod';
import { PipelinePodDefaults } from '../model/pipeline-pod.js';
import { flagBool, type OptionSpec } from './option-spec.js';

// The Kubernetes backend's options and their schema, shared by `svc runner` and `svc manager
// --runner kubernetes`. src/config.ts reads them (the environment is read only there).

/** The Kubernetes backend's options (KUBERNETES.md); the Helm chart sets them from its values. */
export const KUBERNETES_OPTIONS: readonly OptionSpec[] = [
  {
    flag: 'kubeconfig',
    value: 'file',
    description: 'kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or in-cluster)',
  },
  {
    flag: 'namespace',
    value: 'name',
    description:
      "the control plane's namespace: pipelines without resources.namespace run here (default: the kubeconfig's, or the pod's)",
  },
  {
    flag: 'pipeline-template-configmap',
    value: 'name',
    default: 'svc-pipeline-template',
    description:
      'ConfigMap of the default pipeline template (key pipelineTemplate); the chart sets <release>-pipeline-template',
  },
  {
    flag: 'allow-custom-pipeline-template',
    value: 'bool',
    default: 'false',
    description: 'honour runtime_config.pipeline_template_configmap (a custom template can run any pod)',
  },
  {
    flag: 'pipeline-executor-image',
    value: 'image',
    default: 'svc/pipeline-executor:latest',
    description: 'image of pipeline pods ({pipeline_executor_image})',
  },
  {
    flag: 'storage-class',
    value: 'name',
    description: 'storage class of pipeline PVCs (default: the cluster default)',
  },
  {
    flag: 'default-storage-mb',
    value: 'MB',
    default: '10240',
    description: 'PVC size when resources.storage_mb_max is unset',
  },
  {
    flag: 'pipeline-service-account',
    value: 'name',
    description: 'ServiceAccount of pipeline pods when resources.service_account_name is unset',
  },
  {
    flag: 'provisioning-timeout-secs',
    value: 'secs',
    default: '600',
    description: 'Provisioning time-out when runtime_config.provisioning_timeout_secs is unset',
  },
  {
    flag: 'pipeline-address',
    value: 'how',
    default: 'service-dns',
    description: 'reach pipelines at service-dns ({id}-0.{id}.{namespace}.svc) or pod-ip',
  },
  {
    flag: 'unschedulable-grace-secs',
    value: 'secs',
    default: '60',
    description: 'a pipeline pod Unschedulable this long is a fatal resource error',
  },
  {
    flag: 'pod-reschedule-grace-secs',
    value: 'secs',
    default: '1800',
    description:
      "how long the pod replacing a fault-tolerant pipeline's lost pod may wait Unschedulable for a node (node maintenance), the pipeline Unavailable meanwhile; longer is a fatal resource error",
  },
  {
    flag: 'pod-restart-limit',
    value: 'n',
    default: '5',
    description:
      'restarts of a fault-tolerant pipeline pod (deleted, evicted, drained, crashed) tolerated within --pod-restart-window-secs; one more stops it with deployment_error',
  },
  {
    flag: 'pod-restart-window-secs',
    value: 'secs',
    default: '600',
    description: 'the window of --pod-restart-limit',
  },
  {
    flag: 'leader-elect',
    value: 'bool',
    default: 'false',
    description: 'act only while holding the Lease (several replicas)',
  },
  { flag: 'leader-election-id', value: 'name', default: 'svc-runner', description: 'name of the Lease' },
  {
    flag: 'pipeline-resources',
    value: 'bool',
    default: 'false',
    description:
      "keep the Pipeline resources (pipelines.svc.dev, the chart's CRD) of the namespace and their records in step",
  },
  {
    flag: 'pipeline-resources-namespaces',
    value: 'list',
    default: '',
    description:
      'with --pipeline-resources: further comma-separated namespaces whose Pipeline resources to keep, or * for every namespace (the chart value pipelineResources.watchNamespaces, with the RBAC it needs)',
  },
  {
    flag: 'pipeline-pod-defaults',
    value: 'json',
    default: '{}',
    description:
      'JSON: nodeSelector, tolerations, affinity, labels, annotations, priorityClassName, env and resources added to every pipeline pod where its template sets none (the chart sets it from pipeline.*)',
  },
];

/** A JSON option checked against a schema: a bad value names the schema's complaint. */
const jsonOf = <S extends z.ZodType>(schema: S) =>
  z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON' });
        return z.NEVER;
      }
    })
    .pipe(schema);

const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** `a,b` or `*` (every namespace): the Pipeline resources' namespaces besides the runner's own. */
const watchNamespaces = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.union([z.literal('*'), z.string().regex(NAMESPACE_NAME, 'must be a namespace name or *').max(63)])))
  .refine((list) => !list.includes('*') || list.length === 1, '* (every namespace) stands alone');

export const KubernetesConfigSchema = z.object({
  kubeconfig: z.string().min(1).optional(),
  namespace: z.string().regex(NAMESPACE_NAME, 'must be a namespace name').max(63).optional(),
  pipelineTemplateConfigmap: z.string().min(1).max(253),
  allowCustomPipelineTemplate: flagBool,
  pipelineExecutorImage: z.string().min(1),
  storageClass: z.string().min(1).optional(),
  defaultStorageMb: z.coerce.number().int().min(1),
  pipelineServiceAccount: z.string().min(1).optional(),
  provisioningTimeoutSecs: z.coerce.number().int().min(1),
  pipelineAddress: z.enum(['service-dns', 'pod-ip']),
  unschedulableGraceSecs: z.coerce.number().int().min(0),
  podRescheduleGraceSecs: z.coerce.number().int().min(0),
  podRestartLimit: z.coerce.number().int().min(0),
  podRestartWindowSecs: z.coerce.number().int().min(1),
  leaderElect: flagBool,
  leaderElectionId: z.string().min(1).max(253),
  pipelineResources: flagBool,
  pipelineResourcesNamespaces: watchNamespaces,
  pipelinePodDefaults: jsonOf(PipelinePodDefaults),
});
export type KubernetesConfig = Readonly<z.infer<typeof KubernetesConfigSchema>>;
