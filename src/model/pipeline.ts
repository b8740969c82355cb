import { z } from 'zod';
import { ErrorBodySchema, ProgramError, ProgramInfo } from './program.js';
import { ProgramConfigInput } from './program-config.js';
import { RuntimeConfigInput } from './runtime-config.js';
import { JsonValue } from './json.js';
import {
  BootstrapPolicy,
  DeploymentDesiredStatus,
  DeploymentStatus,
  ProgramStatus,
  ResourcesDesiredStatus,
  ResourcesStatus,
  RuntimeDesiredStatus,
  RuntimeStatus,
  StorageStatus,
} from './status.js';

// Seed 2.1: the pipeline record as served. The members a selector leaves out are absent; the
// selected ones that are unset are null, as the established API sends them (src/api/record.ts).

const dateTime = z.string().describe('RFC 3339 timestamp, UTC, microsecond precision');

export const PipelineRecord = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
  created_at: dateTime,
  platform_version: z.string(),
  version: z.int(),
  program_version: z.int(),
  refresh_version: z.int(),
  connectors: z.object({ num_errors: z.int() }).nullable().optional(),
  deployment_id: z.uuid().nullable().optional(),
  deployment_initial: RuntimeDesiredStatus.nullable().optional(),
  bootstrap_policy: BootstrapPolicy.nullable().optional(),
  deployment_desired_status: DeploymentDesiredStatus,
  deployment_desired_status_since: dateTime,
  deployment_error: ErrorBodySchema.nullable().optional(),
  deployment_resources_desired_status: ResourcesDesiredStatus,
  deployment_resources_desired_status_since: dateTime,
  deployment_resources_status: ResourcesStatus,
  deployment_resources_status_details: JsonValue.nullable().optional(),
  deployment_resources_status_since: dateTime,
  deployment_runtime_desired_status: RuntimeDesiredStatus.nullable().optional(),
  deployment_runtime_desired_status_since: dateTime.nullable().optional(),
  deployment_runtime_status: RuntimeStatus.nullable().optional(),
  deployment_runtime_status_details: JsonValue.nullable().optional(),
  deployment_runtime_status_since: dateTime.nullable().optional(),
  deployment_status: DeploymentStatus,
  deployment_status_since: dateTime,
  program_code: z.string().optional(),
  program_config: ProgramConfigInput.optional(),
  program_status: ProgramStatus,
  program_status_since: dateTime,
  program_error: ProgramError.optional(),
  program_info: ProgramInfo.nullable().optional(),
  runtime_config: RuntimeConfigInput.optional(),
  storage_status: StorageStatus,
  storage_status_details: JsonValue.nullable().optional(),
  udf_rust: z.string().optional(),
  udf_toml: z.string().optional(),
});
export type PipelineRecord = z.infer<typeof PipelineRecord>;
