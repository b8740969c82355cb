import { z } from 'zod';
import { SvcError } from './errors.js';
import { JsonValue } from './json.js';
import { CreatePipelineBody } from './pipeline-body.js';
import { DeploymentDesiredStatus, DeploymentStatus, ProgramStatus, StorageStatus } from './status.js';

// The `Pipeline` custom resource (group svc.dev, version v1alpha1): a pipeline declared in
// Kubernetes, kept in step with its record by the runner's controller (docs/kubernetes.md). Its spec
// is built from the very members of the REST body (CreatePipelineBody), so the CRD's OpenAPI schema,
// generated from these (pipeline-crd.ts), refuses what PUT refuses.

export const RESOURCE = {
  group: 'svc.dev',
  version: 'v1alpha1',
  kind: 'Pipeline',
  plural: 'pipelines',
  singular: 'pipeline',
  /** Removed last: the record is stopped, cleared (when asked) and deleted first. */
  finalizer: 'svc.dev/pipeline-record',
} as const;
export const API_VERSION = `${RESOURCE.group}/${RESOURCE.version}`;

/** Running and Paused run it; Stopped stops it at once; Suspended checkpoints first, then stops. */
export const DesiredState = z.enum(['Running', 'Paused', 'Stopped', 'Suspended']);
export type DesiredState = z.infer<typeof DesiredState>;

/**
 * What deleting the resource does with the pipeline's storage (checkpoints, PVC). Clear: cleared, then
 * the record is deleted. Keep: a record with stored state stays, stopped and handed back to the REST
 * API (the API deletes only records whose storage is cleared); one with nothing stored is deleted.
 */
export const StorageOnDelete = z.enum(['Keep', 'Clear']);

const body = CreatePipelineBody.shape;

export const PipelineResourceSpec = z.strictObject({
  description: body.description,
  program: z.strictObject({
    sql: body.program_code,
    udf_rust: body.udf_rust,
    udf_toml: body.udf_toml,
    config: body.program_config,
  }),
  runtime_config: body.runtime_config,
  desired_state: DesiredState.default('Running'),
  storage_on_delete: StorageOnDelete.default('Keep'),
});
export type PipelineResourceSpec = z.infer<typeof PipelineResourceSpec>;

/** The REST body a spec stands for: the record's name is the resource's. */
export const createBodyOf = (name: string, spec: PipelineResourceSpec) => ({
  name,
  description: spec.description,
  program_code: spec.program.sql,
  udf_rust: spec.program.udf_rust,
  udf_toml: spec.program.udf_toml,
  runtime_config: spec.runtime_config,
  program_config: spec.program.config,
});

export const ConditionType = z.enum(['Compiled', 'Ready', 'Degraded']);
export type ConditionType = z.infer<typeof ConditionType>;

/** metav1.Condition. */
export const Condition = z.object({
  type: ConditionType,
  status: z.enum(['True', 'False', 'Unknown']),
  observedGeneration: z.int().min(0).optional(),
  lastTransitionTime: z.iso.datetime(),
  reason: z.string().regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/),
  message: z.string(),
});
export type Condition = z.infer<typeof Condition>;

export const PipelineResourceStatus = z.object({
  observedGeneration: z.int().min(0).optional(),
  pipeline_id: z.string().optional(),
  program_status: ProgramStatus.optional(),
  deployment_status: DeploymentStatus.optional(),
  deployment_desired_status: DeploymentDesiredStatus.optional(),
  deployment_resources_desired_status: z.string().optional(),
  storage_status: StorageStatus.optional(),
  program_error: JsonValue.nullish(),
  deployment_error: JsonValue.nullish(),
  conditions: z.array(Condition).optional(),
});
export type PipelineResourceStatus = z.infer<typeof PipelineResourceStatus>;

/** Marks a record as owned by a resource (column pipeline.managed_by): the API refuses its edits. */
export const ManagedBy = z.object({
  api_version: z.string(),
  kind: z.string(),
  namespace: z.string(),
  name: z.string(),
});
export type ManagedBy = z.infer<typeof ManagedBy>;

/** `pipelines.svc.dev/orders in namespace svc`: how errors and docs name the resource. */
export const describeOwner = (owner: ManagedBy): string =>
  `${RESOURCE.plural}.${RESOURCE.group}/${owner.name} in namespace ${owner.namespace}`;

/**
 * 409 for a REST edit, delete or start/stop of a pipeline a resource declares: the resource's spec
 * is what it should be, so the change belongs there (reads and data-path calls still work).
 */
export function managedByResource(
  row: { name: string; managed_by?: ManagedBy | null | undefined },
  what: string,
): SvcError | undefined {
  const owner = row.managed_by;
  if (!owner) return undefined;
  return new SvcError(
    409,
    'PipelineManagedByResource',
    `Cannot ${what} pipeline '${row.name}': it is declared by the Kubernetes resource ` +
      `${describeOwner(owner)}; change the resource instead (kubectl edit ${RESOURCE.plural}.${RESOURCE.group} ` +
      `${owner.name} -n ${owner.namespace})`,
    { pipeline_name: row.name, resource: { ...owner } },
  );
}

/** Throws managedByResource's 409 when the row is managed. */
export function assertUnmanaged(row: Parameters<typeof managedByResource>[0], what: string): void {
  const refusal = managedByResource(row, what);
  if (refusal) throw refusal;
}
