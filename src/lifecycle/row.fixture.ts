import { compileProgramConfig } from '../model/program-config.js';
import { compileRuntimeConfig } from '../model/runtime-config.js';
import type { PipelineRow } from '../model/pipeline-row.js';

/** A stored row as the database would return it after a create: the base of the rule tables. */
export function storedRow(overrides: Partial<PipelineRow> = {}): PipelineRow {
  const t = '2026-01-01T00:00:00.000000Z';
  return {
    id: '00000000-0000-4000-8000-000000000001',
    name: 'p',
    description: '',
    tags: [],
    created_at: t,
    platform_version: '0.1.0',
    version: 1,
    program_version: 1,
    refresh_version: 1,
    program_code: 'CREATE TABLE t (x INT);',
    udf_rust: '',
    udf_toml: '',
    runtime_config: compileRuntimeConfig({}),
    program_config: compileProgramConfig({}),
    program_status: 'Pending',
    program_status_since: t,
    program_error: {},
    program_info: null,
    deployment_id: null,
    deployment_initial: null,
    deployment_bootstrap_policy: null,
    deployment_error: null,
    deployment_resources_desired_status: 'Stopped',
    deployment_resources_desired_status_since: t,
    deployment_resources_status: 'Stopped',
    deployment_resources_status_since: t,
    deployment_resources_status_details: null,
    deployment_runtime_status: null,
    deployment_runtime_status_since: null,
    deployment_runtime_status_details: null,
    deployment_runtime_desired_status: null,
    deployment_runtime_desired_status_since: null,
    deployment_location: null,
    deployment_config: null,
    program_binary_source_checksum: null,
    program_binary_integrity_checksum: null,
    storage_status: 'Cleared',
    storage_status_details: null,
    ...overrides,
  };
}
