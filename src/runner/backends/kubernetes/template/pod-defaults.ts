import type { V1Container, V1EnvVar, V1PodSpec, V1ResourceRequirements, V1Toleration } from '@kubernetes/client-node';
import type { PipelinePodDefaults } from '../../../../model/pipeline-pod.js';
import type { ResourcesConfig } from './container.js';

// The operator's defaults for every pipeline pod (chart values pipeline.*, issue 19). Each one only
// fills what the rendered template leaves unset, so a custom template can still override it, and
// runtime_config still wins over both.

/** Placement of the pod: node selector (key by key), tolerations, affinity and priority class. */
export function applyPlacement(podSpec: V1PodSpec, defaults: PipelinePodDefaults): void {
  const nodeSelector = { ...defaults.nodeSelector, ...podSpec.nodeSelector };
  if (Object.keys(nodeSelector).length > 0) podSpec.nodeSelector = nodeSelector;
  if ((podSpec.tolerations ?? []).length === 0 && defaults.tolerations.length > 0) {
    podSpec.tolerations = structuredClone(defaults.tolerations) as V1Toleration[];
  }
  if (podSpec.affinity === undefined && Object.keys(defaults.affinity).length > 0) {
    podSpec.affinity = structuredClone(defaults.affinity);
  }
  if (!podSpec.priorityClassName && defaults.priorityClassName) podSpec.priorityClassName = defaults.priorityClassName;
  // The template's own pull secrets stay; the operator's are added (once each).
  const pullSecrets = [...(podSpec.imagePullSecrets ?? [])];
  for (const secret of defaults.imagePullSecrets)
    if (!pullSecrets.some((s) => s.name === secret.name)) pullSecrets.push({ name: secret.name });
  if (pullSecrets.length > 0) podSpec.imagePullSecrets = pullSecrets;
}

/** The operator's env under the template's: a template variable of the same name replaces it. */
export function envWithDefaults(
  template: readonly V1EnvVar[] | undefined,
  defaults: PipelinePodDefaults,
): V1EnvVar[] | undefined {
  if (defaults.env.length === 0) return template ? [...template] : undefined;
  const named = new Set((template ?? []).map((v) => v.name));
  return [...defaults.env.filter((v) => !named.has(v.name)), ...(template ?? [])];
}

const RUNTIME_FIELDS = {
  cpu: ['cpu_cores_min', 'cpu_cores_max'],
  memory: ['memory_mb_min', 'memory_mb_max'],
} as const;

/** Whether the template or runtime_config.resources says anything about `resource`. */
function mentioned(
  resource: keyof typeof RUNTIME_FIELDS,
  requests: Record<string, string>,
  limits: Record<string, string>,
  user: ResourcesConfig | undefined,
): boolean {
  const [min, max] = RUNTIME_FIELDS[resource];
  return (
    requests[resource] !== undefined || limits[resource] !== undefined || user?.[min] != null || user?.[max] != null
  );
}

/**
 * The template's requests and limits, with the operator's default for each resource (cpu, memory)
 * that neither the template nor runtime_config.resources mentions. A resource is defaulted whole or
 * not at all, so a default request never ends up above a limit the user chose (which the API server
 * would refuse). With a default request the pod is Burstable rather than BestEffort.
 */
export function resourcesWithDefaults(
  template: V1ResourceRequirements | undefined,
  user: ResourcesConfig | undefined,
  defaults: PipelinePodDefaults,
): V1ResourceRequirements | undefined {
  const requests: Record<string, string> = { ...template?.requests };
  const limits: Record<string, string> = { ...template?.limits };
  for (const resource of ['cpu', 'memory'] as const) {
    if (mentioned(resource, requests, limits, user)) continue;
    const request = defaults.resources.requests?.[resource];
    const limit = defaults.resources.limits?.[resource];
    if (request !== undefined) requests[resource] = request;
    if (limit !== undefined) limits[resource] = limit;
  }
  const out: V1ResourceRequirements = { ...template };
  if (Object.keys(requests).length > 0) out.requests = requests;
  if (Object.keys(limits).length > 0) out.limits = limits;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The pipeline container with the operator's env and resource defaults under the template's. */
export function containerWithDefaults(
  container: V1Container,
  user: ResourcesConfig | undefined,
  defaults: PipelinePodDefaults,
): V1Container {
  const out = { ...container };
  const env = envWithDefaults(container.env, defaults);
  if (env) out.env = env;
  const resources = resourcesWithDefaults(container.resources, user, defaults);
  if (resources) out.resources = resources;
  return out;
}
