import { RUNNER_OMITS } from '../../model/pipeline-row.js';
import type { Selector } from '../../model/status.js';

// Which columns each selector reads. The projection happens in SQL, so a status poll of many
// pipelines never reads their programs (API.md, selector).

/** Timestamps leave the database already in the contract's form: UTC, microseconds, `Z`. */
export const ts = (column: string, alias = column): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS ${alias}`;

const STATUS_COLUMNS = [
  'id',
  'name',
  'description',
  'tags',
  ts('created_at'),
  'platform_version',
  'version',
  'program_version',
  'refresh_version',
  'program_config',
  'program_status',
  ts('program_status_since'),
  'deployment_id',
  'deployment_initial',
  'deployment_bootstrap_policy',
  'deployment_error',
  'deployment_resources_desired_status',
  ts('deployment_resources_desired_status_since'),
  'deployment_resources_status',
  ts('deployment_resources_status_since'),
  'deployment_runtime_status',
  ts('deployment_runtime_status_since'),
  'deployment_runtime_status_details',
  'deployment_runtime_desired_status',
  ts('deployment_runtime_desired_status_since'),
  'storage_status',
  'storage_status_details',
];

/** Omitted by `status` and `status_with_connectors`: the large members. */
export const HEAVY_COLUMNS = [
  'program_code',
  'udf_rust',
  'udf_toml',
  'runtime_config',
  'program_error',
  'program_info',
  'deployment_resources_status_details',
  'deployment_location',
  'deployment_config',
  'program_binary_source_checksum',
  'program_binary_integrity_checksum',
  // The Pipeline resource that owns the record (migration 005), never part of the record.
  'managed_by',
];

const ALL = [...STATUS_COLUMNS, ...HEAVY_COLUMNS].join(', ');
const STATUS = STATUS_COLUMNS.join(', ');

export const RUNNER_COLUMNS = [
  ...STATUS_COLUMNS,
  ...HEAVY_COLUMNS.filter((c) => !(RUNNER_OMITS as readonly string[]).includes(c)),
  // The runner's own bookkeeping, never part of the record.
  ts('deployment_details_written_at'),
].join(', ');

export const columnsFor = (selector: Selector): string => (selector === 'all' ? ALL : STATUS);
