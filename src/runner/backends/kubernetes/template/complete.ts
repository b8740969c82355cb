import type {
  V1Container,
  V1ObjectMeta,
  V1PersistentVolumeClaim,
  V1PodSpec,
  V1StatefulSet,
} from '@kubernetes/client-node';
import { templateError } from './errors.js';
import {
  completeEnv,
  completeResources,
  initContainersOf,
  mbQuantity,
  pipelineContainerIndex,
  type ResourcesConfig,
} from './container.js';
import { deploymentAnnotations, deploymentLabels, type DeploymentIdentity, selectorLabels } from './labels.js';
import { NO_POD_DEFAULTS, type PipelinePodDefaults } from '../../../../model/pipeline-pod.js';
import { applyPlacement, containerWithDefaults } from './pod-defaults.js';

// KUBERNETES.md "Objects of one deployment": what the runner adds to a rendered template, whatever the
// template says. Pure: the rendered object is copied, never changed.

export interface CompletionInput extends DeploymentIdentity {
  resources?: ResourcesConfig | null;
  /** runtime_config.env (reserved names are already refused by the model). */
  env?: Record<string, string> | null;
  /** runtime_config.init_containers, as stored: checked here (seed 2.7 does not show it). */
  initContainers?: unknown;
  /** The chart's `logJson`: the pipeline process then writes the seed's JSON log lines. */
  logJson: boolean;
  /** The chart's PVC size when runtime_config.resources.storage_mb_max is unset. */
  defaultStorageMb: number;
  defaultStorageClass?: string;
  defaultServiceAccount?: string;
  /** The operator's defaults for every pipeline pod (chart values pipeline.*): under the template's. */
  podDefaults?: PipelinePodDefaults;
}

/** The volumeClaimTemplate the pipeline's storage comes from: PVC `storage-{id}-0`. */
export const STORAGE_CLAIM = 'storage';

/** Errors here concern the template, named by where it came from, which the caller knows. */
export interface CompletionSource {
  configMap: string;
  key: string;
}

const UNKNOWN_SOURCE: CompletionSource = { configMap: '(rendered template)', key: '-' };

export function completeStatefulSet(
  sts: V1StatefulSet,
  input: CompletionInput,
  source: CompletionSource = UNKNOWN_SOURCE,
): V1StatefulSet {
  const out = structuredClone(sts);
  const labels = deploymentLabels(input);
  const annotations = deploymentAnnotations(input);
  const spec = out.spec;
  const podSpec = spec?.template.spec;
  if (!spec || !podSpec || podSpec.containers.length === 0) {
    throw templateError(source, 'spec.template.spec.containers must be a non-empty list');
  }
  out.apiVersion = 'apps/v1';
  out.kind = 'StatefulSet';
  out.metadata = withLabels(out.metadata, labels, annotations);
  out.metadata.name = input.id;
  out.metadata.namespace = input.namespace;
  spec.replicas = 1;
  spec.serviceName = input.id;
  spec.selector = { matchLabels: selectorLabels(input) };
  const defaults = input.podDefaults ?? NO_POD_DEFAULTS;
  const podMeta = spec.template.metadata;
  spec.template.metadata = withLabels(
    {
      ...podMeta,
      labels: { ...defaults.labels, ...podMeta?.labels },
      annotations: { ...defaults.annotations, ...podMeta?.annotations },
    },
    labels,
    annotations,
  );
  // Storage outlives a stop: only /clear deletes the PVC (storage status InUse until then).
  spec.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Retain', whenScaled: 'Retain' };
  spec.volumeClaimTemplates = completeClaims(spec.volumeClaimTemplates, input, labels, source);
  completePod(podSpec, input);
  return out;
}

/** Merges our labels and annotations over the template's: ours win, the template's others stay. */
function withLabels(
  meta: V1ObjectMeta | undefined,
  labels: Record<string, string>,
  annotations: Record<string, string>,
): V1ObjectMeta {
  return {
    ...meta,
    labels: { ...meta?.labels, ...labels },
    annotations: { ...meta?.annotations, ...annotations },
  };
}

function completePod(podSpec: V1PodSpec, input: CompletionInput): void {
  const index = pipelineContainerIndex(podSpec.containers);
  const defaults = input.podDefaults ?? NO_POD_DEFAULTS;
  const container = containerWithDefaults(
    podSpec.containers[index] as V1Container,
    input.resources ?? undefined,
    defaults,
  );
  podSpec.containers[index] = container;
  applyPlacement(podSpec, defaults);
  const resources = completeResources(container.resources, input.resources ?? undefined);
  if (resources) container.resources = resources;
  const env = completeEnv(container.env, input.env, input.logJson, input.id);
  if (env) container.env = env;
  const taken = [...podSpec.containers, ...(podSpec.initContainers ?? [])].map((c) => c.name);
  const extra = initContainersOf(input.initContainers, taken);
  if (extra.length > 0) podSpec.initContainers = [...(podSpec.initContainers ?? []), ...extra];
  const account = input.resources?.service_account_name ?? input.defaultServiceAccount;
  if (account) podSpec.serviceAccountName = account;
}

function completeClaims(
  claims: V1PersistentVolumeClaim[] | undefined,
  input: CompletionInput,
  labels: Record<string, string>,
  source: CompletionSource,
): V1PersistentVolumeClaim[] {
  const index = (claims ?? []).findIndex((c) => c.metadata?.name === STORAGE_CLAIM);
  if (!claims || index < 0) {
    throw templateError(source, `spec.volumeClaimTemplates has no claim named '${STORAGE_CLAIM}'`);
  }
  return claims.map((claim, i) => {
    const metadata = { ...claim.metadata, labels: { ...claim.metadata?.labels, ...labels } };
    if (i !== index) return { ...claim, metadata };
    const spec = { ...claim.spec };
    const mb = input.resources?.storage_mb_max ?? input.defaultStorageMb;
    spec.resources = { ...spec.resources, requests: { ...spec.resources?.requests, storage: mbQuantity(mb) } };
    const storageClass = input.resources?.storage_class ?? input.defaultStorageClass;
    if (storageClass) spec.storageClassName = storageClass;
    // `storageClassName: {storage_class_name}` with no class reads as null: drop it, so the cluster's
    // default class applies (an explicit '' would instead mean "no class, no provisioning").
    else if (spec.storageClassName === null || spec.storageClassName === undefined) delete spec.storageClassName;
    return { ...claim, metadata, spec };
  });
}
