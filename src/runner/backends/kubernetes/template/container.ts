import type { V1Container, V1EnvVar, V1ResourceRequirements } from '@kubernetes/client-node';
import type { z } from 'zod';
import { badRequest, type SvcError } from '../../../../model/errors.js';
import { PIPELINE_TOKEN_KEY } from '../../../../http/pipeline-token.js';
import type { ResourcesInput } from '../../../../model/runtime-config-parts.js';

// The parts of completion that touch containers: resources, env and the user's init containers.

/** runtime_config.resources, stored (nulls dropped) or as given (null meaning unset). */
export type ResourcesConfig = z.infer<typeof ResourcesInput>;

/** The container the runner completes: the one named `pipeline`, else the first (custom templates). */
export function pipelineContainerIndex(containers: readonly V1Container[]): number {
  const named = containers.findIndex((c) => c.name === 'pipeline');
  return named >= 0 ? named : 0;
}

/**
 * Cores as a Kubernetes quantity: whole cores as they are (`2`), fractions in millicores (`1500m`),
 * since the API server rounds finer values anyway. A tiny non-zero value stays non-zero (`1m`).
 */
export function cpuQuantity(cores: number): string {
  if (Number.isInteger(cores)) return String(cores);
  const milli = Math.round(cores * 1000);
  return `${milli === 0 ? 1 : milli}m`;
}

/** The seed counts memory and storage in MB, which is the `M` suffix (10^6 bytes). */
export const mbQuantity = (mb: number): string => `${mb}M`;

/** The template's requests and limits, with each one runtime_config sets replacing the template's. */
export function completeResources(
  template: V1ResourceRequirements | undefined,
  resources: ResourcesConfig | undefined,
): V1ResourceRequirements | undefined {
  const r = resources ?? {};
  const requests: Record<string, string> = { ...template?.requests };
  const limits: Record<string, string> = { ...template?.limits };
  if (r.cpu_cores_min != null) requests.cpu = cpuQuantity(r.cpu_cores_min);
  if (r.cpu_cores_max != null) limits.cpu = cpuQuantity(r.cpu_cores_max);
  if (r.memory_mb_min != null) requests.memory = mbQuantity(r.memory_mb_min);
  if (r.memory_mb_max != null) limits.memory = mbQuantity(r.memory_mb_max);
  const out: V1ResourceRequirements = { ...template };
  if (Object.keys(requests).length > 0) out.requests = requests;
  if (Object.keys(limits).length > 0) out.limits = limits;
  return Object.keys(out).length > 0 ? out : undefined;
}

export const LOG_JSON_VAR = 'SVC_LOG_JSON';

/**
 * The template's env, then the user's (a user's variable replaces the template's of the same name), then
 * `SVC_LOG_JSON=1` when the chart asks for JSON logs. Later entries may refer to earlier ones with
 * `$(NAME)`, so the user's values can use the template's.
 */
/** The pipeline process reads its HTTP token from here (src/config.ts, option auth-token). */
export const AUTH_TOKEN_VAR = 'SVC_AUTH_TOKEN';

export function completeEnv(
  template: readonly V1EnvVar[] | undefined,
  userEnv: Readonly<Record<string, string>> | null | undefined,
  logJson: boolean,
  tokenSecret?: string,
): V1EnvVar[] | undefined {
  const user: V1EnvVar[] = Object.entries(userEnv ?? {}).map(([name, value]) => ({ name, value }));
  const added = [
    ...user,
    ...(logJson ? [{ name: LOG_JSON_VAR, value: '1' }] : []),
    // The token by reference to Secret `{id}` (companions.ts): never its value in the StatefulSet.
    ...(tokenSecret
      ? [{ name: AUTH_TOKEN_VAR, valueFrom: { secretKeyRef: { name: tokenSecret, key: PIPELINE_TOKEN_KEY } } }]
      : []),
  ];
  const replaced = new Set(added.map((v) => v.name));
  const env = [...(template ?? []).filter((v) => !replaced.has(v.name)), ...added];
  return env.length > 0 || template !== undefined ? env : undefined;
}

const FIELD = 'runtime_config.init_containers';
const CONTAINER_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function invalid(field: string, message: string): SvcError {
  return badRequest('InvalidRuntimeConfig', `${field}: ${message}`, {
    field,
    errors: [{ field, message: `${field}: ${message}` }],
  });
}

/**
 * runtime_config.init_containers: the seed does not show its structure (2.7), so it is stored as given
 * and checked here, when it is about to become part of a pod: a list of Kubernetes containers, each
 * with a DNS-label name unique in the pod and an image. Anything else is the user's error (400) naming
 * the field, found before anything is applied.
 */
export function initContainersOf(raw: unknown, takenNames: readonly string[]): V1Container[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalid(FIELD, 'must be a list of containers');
  const names = new Set(takenNames);
  return raw.map((c: unknown, i) => {
    const field = `${FIELD}[${i}]`;
    if (typeof c !== 'object' || c === null || Array.isArray(c)) throw invalid(field, 'must be a container object');
    const { name, image } = c as { name?: unknown; image?: unknown };
    if (typeof name !== 'string' || name.length > 63 || !CONTAINER_NAME.test(name)) {
      throw invalid(`${field}.name`, 'must be a DNS-1123 label (lower-case letters, digits and "-")');
    }
    if (names.has(name)) throw invalid(`${field}.name`, `'${name}' is already the name of a container of the pod`);
    names.add(name);
    if (typeof image !== 'string' || image.trim() === '') throw invalid(`${field}.image`, 'must be a non-empty string');
    return structuredClone(c) as V1Container;
  });
}
