import { deploymentDesiredStatus, deploymentStatus, later } from '../lifecycle/deployment-status.js';
import type { PipelineRecord } from '../model/pipeline.js';
import { withMaterialized } from '../model/program.js';
import type { Selector } from '../model/status.js';
import type { PipelineRow, PipelineStatusRow } from '../model/pipeline-row.js';

// A stored row → the record of seed 2.1, in the seed's member order; the combined statuses are
// derived here, on every read. Each selector returns exactly the members the established API lists
// for it (its platform tests compare the key sets): an unset member of the selection is present as
// null, as that API sends it, because its Python SDK reads the record as attributes and an absent
// one raises AttributeError (`Pipeline.deployment_error()` on a pipeline without an error). A member
// outside the selection is absent.

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
    ...(selector === 'status_with_connectors' && { connectors: connectorsOf(row) ?? null }),
    deployment_id: row.deployment_id,
    deployment_initial: row.deployment_initial,
    bootstrap_policy: row.deployment_bootstrap_policy,
    deployment_desired_status: deploymentDesiredStatus(
      row.deployment_resources_desired_status,
      row.deployment_runtime_desired_status,
      row.deployment_initial,
    ),
    deployment_desired_status_since: later(
      row.deployment_resources_desired_status_since,
      row.deployment_runtime_desired_status_since,
    ),
    deployment_error: row.deployment_error,
    deployment_resources_desired_status: row.deployment_resources_desired_status,
    deployment_resources_desired_status_since: row.deployment_resources_desired_status_since,
    deployment_resources_status: row.deployment_resources_status,
    ...(full && { deployment_resources_status_details: full.deployment_resources_status_details }),
    deployment_resources_status_since: row.deployment_resources_status_since,
    deployment_runtime_desired_status: row.deployment_runtime_desired_status,
    deployment_runtime_desired_status_since: row.deployment_runtime_desired_status_since,
    deployment_runtime_status: row.deployment_runtime_status,
    deployment_runtime_status_details: row.deployment_runtime_status_details,
    deployment_runtime_status_since: row.deployment_runtime_status_since,
    deployment_status: deploymentStatus(row.deployment_resources_status, row.deployment_runtime_status),
    deployment_status_since: provisioned
      ? later(row.deployment_resources_status_since, row.deployment_runtime_status_since)
      : row.deployment_resources_status_since,
    ...(full && { program_code: full.program_code }),
    program_config: row.program_config,
    program_status: row.program_status,
    program_status_since: row.program_status_since,
    ...(full && { program_error: full.program_error }),
    ...(full && { program_info: full.program_info && withMaterialized(full.program_info) }),
    ...(full && { runtime_config: full.runtime_config }),
    storage_status: row.storage_status,
    storage_status_details: row.storage_status_details,
    ...(full && { udf_rust: full.udf_rust }),
    ...(full && { udf_toml: full.udf_toml }),
  };
}
