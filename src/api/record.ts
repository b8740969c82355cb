import { deploymentDesiredStatus, deploymentStatus, later } from '../lifecycle/deployment-status.js';
import type { PipelineRecord } from '../model/pipeline.js';
import { withMaterialized } from '../model/program.js';
import type { Selector } from '../model/status.js';
import type { PipelineRow, PipelineStatusRow } from '../model/pipeline-row.js';

// A stored row → the record of seed 2.1, in the seed's member order. Optional members are left
// out when unset (never null); the combined statuses are derived here, on every read.

const set = <K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } =>
  (value === null || value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

/**
 * Seed 2.2: the connectors' error sum, as the pipeline last reported it on /status (the runner keeps
 * its runtime_status_details). Served with selector=status_with_connectors only.
 */
function connectorsOf(row: PipelineStatusRow | PipelineRow): { num_errors: number } | undefined {
  const details = row.deployment_runtime_status_details;
  if (typeof details !== 'object' || details === null || Array.isArray(details)) return undefined;
  const stats = details['connector_stats'];
  if (typeof stats !== 'object' || stats === null || Array.isArray(stats)) return undefined;
  const n = stats['num_errors'];
  return typeof n === 'number' && Number.isSafeInteger(n) ? { num_errors: n } : undefined;
}

const isFull = (row: PipelineStatusRow | PipelineRow): row is PipelineRow => 'program_code' in row;

export function toRecord(row: PipelineStatusRow | PipelineRow, selector: Selector = 'all'): PipelineRecord {
  const full = selector === 'all' && isFull(row) ? row : undefined;
  const provisioned = row.deployment_resources_status === 'Provisioned';
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    tags: row.tags,
    created_at: row.created_at,
    platform_version: row.platform_version,
    version: row.version,
    program_version: row.program_version,
    refresh_version: row.refresh_version,
    ...set('connectors', selector === 'status_with_connectors' ? connectorsOf(row) : undefined),
    ...set('deployment_id', row.deployment_id),
    ...set('deployment_initial', row.deployment_initial),
    deployment_desired_status: deploymentDesiredStatus(
      row.deployment_resources_desired_status,
      row.deployment_runtime_desired_status,
      row.deployment_initial,
    ),
    deployment_desired_status_since: later(
      row.deployment_resources_desired_status_since,
      row.deployment_runtime_desired_status_since,
    ),
    ...set('deployment_error', row.deployment_error),
    deployment_resources_desired_status: row.deployment_resources_desired_status,
    deployment_resources_desired_status_since: row.deployment_resources_desired_status_since,
    deployment_resources_status: row.deployment_resources_status,
    ...set('deployment_resources_status_details', full?.deployment_resources_status_details),
    deployment_resources_status_since: row.deployment_resources_status_since,
    ...set('deployment_runtime_desired_status', row.deployment_runtime_desired_status),
    ...set('deployment_runtime_desired_status_since', row.deployment_runtime_desired_status_since),
    ...set('deployment_runtime_status', row.deployment_runtime_status),
    ...set('deployment_runtime_status_details', row.deployment_runtime_status_details),
    ...set('deployment_runtime_status_since', row.deployment_runtime_status_since),
    deployment_status: deploymentStatus(row.deployment_resources_status, row.deployment_runtime_status),
    deployment_status_since: provisioned
      ? later(row.deployment_resources_status_since, row.deployment_runtime_status_since)
      : row.deployment_resources_status_since,
    ...set('program_code', full?.program_code),
    program_config: row.program_config,
    program_status: row.program_status,
    program_status_since: row.program_status_since,
    ...set('program_error', full?.program_error),
    ...set('program_info', full?.program_info && withMaterialized(full.program_info)),
    ...set('runtime_config', full?.runtime_config),
    storage_status: row.storage_status,
    ...set('storage_status_details', row.storage_status_details),
    ...set('udf_rust', full?.udf_rust),
    ...set('udf_toml', full?.udf_toml),
  };
}
