import { z } from 'zod';
import { JsonValue } from './json.js';
import { BootstrapPolicy, RuntimeDesiredStatus, RuntimeStatus } from './status.js';

// The contract between the runner and the pipeline process (LIFECYCLE.md "Runtime status").
// The runner writes a DeploymentConfig file and starts `svc pipeline --config-file F …`; the
// process answers GET /status with an ExtendedRuntimeStatus, which the runner copies.

export const DeploymentConfig = z.object({
  pipeline_id: z.uuid(),
  pipeline_name: z.string(),
  deployment_id: z.uuid(),
  platform_version: z.string(),
  /** The compiled program: an http(s) URL of the compiler's artifact server, or a file path. */
  binary_ref: z.string().min(1),
  /** program_info of the same build: URL or file path. */
  program_info_ref: z.string().min(1),
  /** The stored (compiled, defaulted) runtime_config of the pipeline. */
  runtime_config: z.record(z.string(), JsonValue),
  /** Where the process keeps its checkpoints; it outlives the process (storage status InUse). */
  storage_path: z.string().min(1),
  bootstrap_policy: BootstrapPolicy,
});
export type DeploymentConfig = z.infer<typeof DeploymentConfig>;

export const RuntimeStatusDetails = z.looseObject({
  reason: z.string().optional(),
  connector_stats: z.object({ num_errors: z.int() }).optional(),
});

export const ExtendedRuntimeStatus = z.object({
  runtime_status: RuntimeStatus,
  runtime_status_details: RuntimeStatusDetails,
  runtime_desired_status: RuntimeDesiredStatus,
  storage_status_details: z.looseObject({ checkpoints: z.array(JsonValue) }),
});
export type ExtendedRuntimeStatus = z.infer<typeof ExtendedRuntimeStatus>;
