import type { DeploymentConfig } from './deployment.js';
import type { ErrorBody } from './errors.js';
import type { JsonValue } from './json.js';
import type { ManagedBy } from './pipeline-resource.js';
import type { ProgramConfig } from './program-config.js';
import type { ProgramError, ProgramInfo } from './program.js';
import type { RuntimeConfig } from './runtime-config.js';
import type {
  BootstrapPolicy,
  ProgramStatus,
  ResourcesDesiredStatus,
  ResourcesStatus,
  RuntimeDesiredStatus,
  RuntimeStatus,
  StorageStatus,
} from './status.js';

/** One row of `pipeline` as the queries return it (timestamps already formatted as text). */
export interface PipelineStatusRow {
  id: string;
  name: string;
  description: string;
  tags: string[];
  created_at: string;
  platform_version: string;
  version: number;
  program_version: number;
  refresh_version: number;
  program_config: ProgramConfig;
  program_status: ProgramStatus;
  program_status_since: string;
  deployment_id: string | null;
  deployment_initial: RuntimeDesiredStatus | null;
  deployment_bootstrap_policy: BootstrapPolicy | null;
  deployment_error: ErrorBody | null;
  deployment_resources_desired_status: ResourcesDesiredStatus;
  deployment_resources_desired_status_since: string;
  deployment_resources_status: ResourcesStatus;
  deployment_resources_status_since: string;
  deployment_runtime_status: RuntimeStatus | null;
  deployment_runtime_status_since: string | null;
  deployment_runtime_status_details: JsonValue | null;
  deployment_runtime_desired_status: RuntimeDesiredStatus | null;
  deployment_runtime_desired_status_since: string | null;
  storage_status: StorageStatus;
  storage_status_details: JsonValue | null;
}

export interface PipelineRow extends PipelineStatusRow {
  /** The runner's own columns: where the pipeline process answers, and the config it was given. */
  deployment_location: string | null;
  deployment_config: DeploymentConfig | null;
  program_binary_source_checksum: string | null;
  program_binary_integrity_checksum: string | null;
  program_code: string;
  udf_rust: string;
  udf_toml: string;
  runtime_config: RuntimeConfig;
  program_error: ProgramError;
  program_info: ProgramInfo | null;
  deployment_resources_status_details: JsonValue | null;
  /** The Kubernetes resource that declares the pipeline (null: made over REST); not part of the record. */
  managed_by?: ManagedBy | null;
  /** When the runner last wrote status details (runner columns only; not part of the record). */
  deployment_details_written_at?: string | null;
}

/**
 * What the runner reads on every look at a pipeline: all but the program texts and program_info,
 * which it never uses (it hands the pipeline URLs of the compiled artifact instead).
 */
export const RUNNER_OMITS = ['program_code', 'udf_rust', 'udf_toml', 'program_info'] as const;

/** The row as the runner reads it (store's RUNNER_COLUMNS): no program texts, no program_info. */
export type RunnerRow = Omit<PipelineRow, (typeof RUNNER_OMITS)[number]>;

/**
 * A runner row with the version of the tuple it was read from (PostgreSQL's `xmin`): every UPDATE
 * of the row, by anyone, gives it a new one, so equal versions mean an unchanged row. The runner
 * keeps rows between looks and re-reads only when this moved.
 */
export type VersionedRunnerRow = RunnerRow & { row_version: string };
