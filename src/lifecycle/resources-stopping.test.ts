import { describe, expect, it } from 'vitest';
import { storedRow } from './row.fixture.js';
import { ERR, provisioned, run } from './resources.fixture.js';

// LIFECYCLE.md "Resources status (runner)" and seed 3.2: a stop completing, and storage cleared.

describe('Stopping and storage', () => {
  it('stop completes: Stopped, keeps the error, clears the deployment and runtime fields', () => {
    const c = run(provisioned({ deployment_resources_status: 'Stopping', deployment_error: ERR }), { kind: 'stopped' });
    expect(c?.set).toEqual({
      deployment_resources_status: 'Stopped',
      deployment_id: null,
      deployment_initial: null,
      deployment_bootstrap_policy: null,
      deployment_location: null,
      deployment_config: null,
      deployment_runtime_status: null,
      deployment_runtime_status_since: null,
      deployment_runtime_status_details: null,
      deployment_runtime_desired_status: null,
      deployment_runtime_desired_status_since: null,
    });
  });
  it('stop not yet complete: nothing', () => {
    expect(run(provisioned({ deployment_resources_status: 'Stopping' }), { kind: 'stopping' })).toBeNull();
  });
  it('Clearing → Cleared once the backend removed the storage', () => {
    const row = storedRow({ storage_status: 'Clearing' });
    expect(run(row, { kind: 'clearing' })).toBeNull();
    expect(run(row, { kind: 'cleared' })?.set).toEqual({ storage_status: 'Cleared', storage_status_details: null });
  });
});
