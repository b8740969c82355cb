import { z } from 'zod';
import type { IdentityAllowlists } from './pipeline-identity.js';
import { badRequest, type SvcError } from './errors.js';

// What an operator sets for every pipeline pod (the chart's `pipeline.*` values, issue 19): defaults
// the Kubernetes runner adds to each pod it completes, and bounds the API holds every start to. The
// chart passes the defaults to the runner as one JSON value and the bounds to the API as flags.

const stringMap = z.record(z.string(), z.string());
const quantity = z.union([z.string().min(1), z.number().nonnegative()]).transform(String);
const quantities = z.strictObject({ cpu: quantity.optional(), memory: quantity.optional() });

/** Kubernetes objects the runner copies as they are (the API server checks them when applied). */
const k8sObject = z.record(z.string(), z.unknown());

export const PipelinePodDefaults = z.strictObject({
  nodeSelector: stringMap.default({}),
  tolerations: z.array(k8sObject).default([]),
  affinity: k8sObject.default({}),
  labels: stringMap.default({}),
  annotations: stringMap.default({}),
  priorityClassName: z.string().default(''),
  env: z.array(z.strictObject({ name: z.string().min(1), value: z.string() })).default([]),
  /** The chart's imagePullSecrets: a pipeline pod pulls the same (private) images as the control plane. */
  imagePullSecrets: z.array(z.strictObject({ name: z.string().min(1) })).default([]),
  /** Requests and limits of the pipeline container when neither the template nor runtime_config sets them. */
  resources: z.strictObject({ requests: quantities.optional(), limits: quantities.optional() }).default({}),
});
export type PipelinePodDefaults = z.infer<typeof PipelinePodDefaults>;

export const NO_POD_DEFAULTS: PipelinePodDefaults = PipelinePodDefaults.parse({});

/**
 * Operator bounds on runtime_config.resources, and the allowlists of service accounts and init
 * container images (pipeline-identity.ts); an unset bound does not limit.
 */
export interface PipelineBounds extends IdentityAllowlists {
  memoryMbMin?: number;
  memoryMbMax?: number;
  storageMbMax?: number;
  /** Empty: any storage class. */
  storageClasses: readonly string[];
  /** The namespaces resources.namespace may name (the runner has a Role in each); empty: any. */
  namespaces?: readonly string[];
}

export const NO_BOUNDS: PipelineBounds = { storageClasses: [] };

/** The members of runtime_config.resources the bounds look at (stored spelling). */
interface BoundedResources {
  memory_mb_min?: number | null;
  memory_mb_max?: number | null;
  storage_mb_max?: number | null;
  storage_class?: string | null;
  namespace?: string | null;
}

function outOfBounds(field: string, message: string, bound: string, limit: number | string): SvcError {
  const full = `runtime_config.resources.${field}`;
  return badRequest('InvalidRuntimeConfig', `${full}: ${message}`, {
    field: full,
    bound,
    limit,
    errors: [{ field: full, message: `${full}: ${message}` }],
  });
}

/**
 * Throws a 400 naming the first field of `resources` outside the operator's bounds (and the bound,
 * as the chart value that sets it), so a start that asks for too much is refused before anything is
 * applied.
 */
export function checkPipelineBounds(resources: BoundedResources | undefined, bounds: PipelineBounds): void {
  const r = resources ?? {};
  for (const field of ['memory_mb_min', 'memory_mb_max'] as const) {
    atMost(field, r[field], bounds.memoryMbMax, 'pipeline.memoryMb.max');
    atLeast(field, r[field], bounds.memoryMbMin, 'pipeline.memoryMb.min');
  }
  atMost('storage_mb_max', r.storage_mb_max, bounds.storageMbMax, 'pipeline.storageMb.max');
  oneOf('storage_class', r.storage_class, bounds.storageClasses, 'pipeline.storageClasses');
  oneOf('namespace', r.namespace, bounds.namespaces ?? [], 'kubernetesRunner.allowedNamespaces');
}

function atMost(field: string, mb: number | null | undefined, max: number | undefined, bound: string): void {
  if (mb != null && max !== undefined && mb > max) {
    throw outOfBounds(field, `${mb} MB is more than the operator's maximum of ${max} MB`, bound, max);
  }
}

function atLeast(field: string, mb: number | null | undefined, min: number | undefined, bound: string): void {
  if (mb != null && min !== undefined && mb < min) {
    throw outOfBounds(field, `${mb} MB is less than the operator's minimum of ${min} MB`, bound, min);
  }
}

/** An empty list allows any value. */
function oneOf(field: string, value: string | null | undefined, allowed: readonly string[], bound: string): void {
  if (value != null && allowed.length > 0 && !allowed.includes(value)) {
    const message = `'${value}' is not one the operator allows (${allowed.join(', ')})`;
    throw outOfBounds(field, message, bound, allowed.join(','));
  }
}
