import type { ErrorBody } from '../model/errors.js';
import type { PipelineRow } from '../model/pipeline-row.js';
import { decide, type Observation, type RunnerSettings } from './resources.js';
import { storedRow } from './row.fixture.js';

// Rows of each resources status, and the runner's decision on one, for resources*.test.ts.

export const SETTINGS: RunnerSettings = { defaultProvisioningTimeoutSecs: 20, initializingGraceSecs: 20 };
export const T0 = Date.parse('2026-01-01T00:00:00Z');
export const ERR: ErrorBody = { error_code: 'ResourceError', message: 'm', details: null };
export const CONFIG = {
  pipeline_id: '00000000-0000-4000-8000-000000000001',
  pipeline_name: 'p',
  deployment_id: '00000000-0000-4000-8000-000000000002',
  platform_version: '0.1.0',
  binary_ref: 'http://x/binary',
  program_info_ref: 'http://x/program_info',
  runtime_config: {},
  storage_path: '/s',
  bootstrap_policy: 'allow' as const,
};

export const started = (o: Partial<PipelineRow> = {}) =>
  storedRow({
    program_status: 'Success',
    deployment_resources_desired_status: 'Provisioned',
    deployment_initial: 'Running',
    ...o,
  });
export const provisioning = (o: Partial<PipelineRow> = {}) =>
  started({
    deployment_resources_status: 'Provisioning',
    deployment_resources_status_since: '2026-01-01T00:00:00.000000Z',
    deployment_id: CONFIG.deployment_id,
    storage_status: 'InUse',
    ...o,
  });
export const provisioned = (o: Partial<PipelineRow> = {}) =>
  provisioning({
    deployment_resources_status: 'Provisioned',
    deployment_config: CONFIG,
    deployment_location: 'http://127.0.0.1:1',
    deployment_runtime_status: 'Running',
    deployment_runtime_desired_status: 'Running',
    deployment_runtime_status_since: '2026-01-01T00:00:00.000000Z',
    ...o,
  });

export const run = (row: PipelineRow, obs: Observation, at = T0) => decide(row, obs, at, SETTINGS);
