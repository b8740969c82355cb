import { describe, expect, it } from 'vitest';
import { need, type Observation } from './resources.js';
import type { PipelineRow } from '../model/pipeline-row.js';
import { storedRow } from './row.fixture.js';
import { T0, ERR, CONFIG, started, provisioning, provisioned, run } from './resources.fixture.js';

// LIFECYCLE.md "Resources status (runner)" and seed 3.2, row by row (stopping and storage:
// resources-stopping.test.ts).

const status = (obs: Observation): Observation => obs;

describe('need: which observation each state asks for', () => {
  it.each<[string, PipelineRow, string]>([
    ['stopped at rest', storedRow(), 'none'],
    ['stopped, start wanted, program compiled', started(), 'admit'],
    ['stopped, start wanted, program compiling', started({ program_status: 'CompilingSql' }), 'start'],
    ['stopped, start wanted, program failed', started({ program_status: 'SqlError' }), 'start'],
    ['stopped, storage clearing', storedRow({ storage_status: 'Clearing' }), 'clear'],
    ['provisioning, backend not asked yet', provisioning(), 'provision'],
    ['provisioning, backend asked', provisioning({ deployment_config: CONFIG }), 'provisioned'],
    ['provisioned', provisioned(), 'health'],
    ['provisioned, stop wanted', provisioned({ deployment_resources_desired_status: 'Stopped' }), 'none'],
    ['stopping', provisioned({ deployment_resources_status: 'Stopping' }), 'stop'],
  ])('%s → %s', (_what, row, kind) => {
    expect(need(row).kind).toBe(kind);
  });
});

describe('Stopped with desired Provisioned', () => {
  it('program Success: new deployment id, storage InUse, Provisioning, all at once', () => {
    const c = run(started(), { kind: 'admitted', deploymentId: '00000000-0000-4000-8000-000000000003' });
    expect(c?.set).toMatchObject({
      deployment_resources_status: 'Provisioning',
      storage_status: 'InUse',
      deployment_config: null,
    });
    expect(c?.set.deployment_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(c?.stamp).toEqual(['deployment_resources_status_since', 'storage_status_since']);
  });
  it.each(['SqlError', 'RustError', 'SystemError'] as const)(
    'program %s: error set, desired Stopped, stays Stopped',
    (p) => {
      const c = run(started({ program_status: p }), { kind: 'none' });
      expect(c?.set).toMatchObject({
        deployment_resources_status: 'Stopped',
        deployment_resources_desired_status: 'Stopped',
        deployment_error: { error_code: 'StartFailedDueToFailedCompilation' },
      });
      expect(c?.stamp).not.toContain('deployment_resources_status_since');
    },
  );
  it('program Success but in line for a backend start slot: stays Stopped (its timeout has not begun)', () => {
    expect(run(started(), { kind: 'queued' })).toBeNull();
  });
  it.each(['Pending', 'CompilingSql', 'SqlCompiled', 'CompilingRust'] as const)(
    'program %s: early start waits',
    (p) => {
      expect(run(started({ program_status: p }), { kind: 'none' })).toBeNull();
    },
  );
});

describe('Provisioning', () => {
  it('the backend was asked: the deployment config is stored', () => {
    expect(run(provisioning(), { kind: 'provision-started', config: CONFIG })?.set).toEqual({
      deployment_config: CONFIG,
    });
  });
  it('a provision check that fails at once: back to Stopped with the error, desired Stopped', () => {
    const c = run(provisioning(), { kind: 'provision-failed', error: ERR });
    expect(c?.set).toMatchObject({
      deployment_resources_status: 'Stopped',
      deployment_resources_desired_status: 'Stopped',
      deployment_error: ERR,
      deployment_id: null,
    });
  });
  it('ready: Provisioned, runtime Initializing, runtime desired = deployment_initial', () => {
    const c = run(provisioning({ deployment_config: CONFIG, deployment_initial: 'Paused' }), {
      kind: 'ready',
      location: 'http://a',
    });
    expect(c?.set).toEqual({
      deployment_resources_status: 'Provisioned',
      deployment_location: 'http://a',
      deployment_runtime_status: 'Initializing',
      deployment_runtime_desired_status: 'Paused',
    });
  });
  it('a fatal resource error: Stopping with the error', () => {
    expect(run(provisioning({ deployment_config: CONFIG }), { kind: 'fatal', error: ERR })?.set).toMatchObject({
      deployment_resources_status: 'Stopping',
      deployment_resources_desired_status: 'Stopped',
      deployment_error: ERR,
    });
  });
  it('not ready within the timeout: wait; past it: Stopping with ProvisioningTimeout', () => {
    const row = provisioning({ deployment_config: CONFIG });
    expect(run(row, { kind: 'not-ready' }, T0 + 20_000)).toBeNull();
    expect(run(row, { kind: 'not-ready' }, T0 + 20_001)?.set).toMatchObject({
      deployment_resources_status: 'Stopping',
      deployment_error: { error_code: 'ProvisioningTimeout', details: { timeout_secs: 20 } },
    });
  });
  it('provisioning_timeout_secs overrides the runner default', () => {
    const row = provisioning({
      deployment_config: CONFIG,
      runtime_config: { ...storedRow().runtime_config, provisioning_timeout_secs: 3 },
    });
    expect(run(row, { kind: 'not-ready' }, T0 + 3_001)?.set.deployment_error).toMatchObject({
      details: { timeout_secs: 3 },
    });
  });
  it('/stop?force=true while Provisioning: Stopping without an error', () => {
    const c = run(provisioning({ deployment_resources_desired_status: 'Stopped' }), { kind: 'none' });
    expect(c?.set).toEqual({ deployment_resources_status: 'Stopping', deployment_resources_desired_status: 'Stopped' });
  });
});

describe('Provisioned', () => {
  it('copies a new runtime status and its desired status', () => {
    const c = run(
      provisioned(),
      status({
        kind: 'status',
        status: {
          runtime_status: 'Paused',
          runtime_desired_status: 'Paused',
          runtime_status_details: {},
          storage_status_details: { checkpoints: [] },
        },
      }),
    );
    expect(c?.set).toMatchObject({ deployment_runtime_status: 'Paused', deployment_runtime_desired_status: 'Paused' });
    expect(c?.stamp).toEqual([
      'deployment_runtime_status_since',
      'deployment_runtime_desired_status_since',
      'deployment_details_written_at',
    ]);
  });
  it('writes nothing when nothing changed', () => {
    const same = {
      runtime_status: 'Running' as const,
      runtime_desired_status: 'Running' as const,
      runtime_status_details: {},
      storage_status_details: { checkpoints: [] },
    };
    const row = provisioned({ deployment_runtime_status_details: {}, storage_status_details: { checkpoints: [] } });
    expect(run(row, { kind: 'status', status: same }, T0 + 60_000)).toBeNull();
  });
  it('details alone are written at most once per 10 s, measured from the last details write', () => {
    const seen = {
      runtime_status: 'Running' as const,
      runtime_desired_status: 'Running' as const,
      runtime_status_details: { reason: 'x' },
      storage_status_details: { checkpoints: [] },
    };
    // The status has been Running for an hour: that does not make details due (it once did, so
    // every look after the first 10 s was a write).
    const lastWrite = (at: number) =>
      provisioned({
        deployment_runtime_status_since: '2026-01-01T00:00:00.000000Z',
        deployment_details_written_at: new Date(at).toISOString(),
        storage_status_details: { checkpoints: [] },
      });
    const hour = T0 + 3_600_000;
    expect(run(lastWrite(hour), { kind: 'status', status: seen }, hour + 9_000)).toBeNull();
    const c = run(lastWrite(hour), { kind: 'status', status: seen }, hour + 10_000);
    expect(c?.set).toEqual({ deployment_runtime_status_details: { reason: 'x' } });
    expect(c?.stamp).toEqual(['deployment_details_written_at']);
    // Never written yet (a runner that just took over): written at once.
    expect(run(provisioned(), { kind: 'status', status: seen }, T0 + 1)?.set).toMatchObject({
      deployment_runtime_status_details: { reason: 'x' },
    });
  });
  it('details equal but for the order of their members are no change (jsonb reorders keys)', () => {
    const summary = { id: 'c1', created_at: '2026-01-01T00:00:00.000Z', program_checksum: 'abc', rows: 3 };
    const stored = JSON.parse(
      '{"checkpoints":[{"id":"c1","rows":3,"created_at":"2026-01-01T00:00:00.000Z","program_checksum":"abc"}]}',
    );
    const row = provisioned({
      deployment_runtime_status: 'Running',
      deployment_runtime_desired_status: 'Running',
      deployment_runtime_status_details: { connector_stats: { num_errors: 0 } },
      storage_status_details: stored,
    });
    const seen = {
      runtime_status: 'Running' as const,
      runtime_desired_status: 'Running' as const,
      runtime_status_details: { connector_stats: { num_errors: 0 } },
      storage_status_details: { checkpoints: [summary] },
    };
    expect(run(row, { kind: 'status', status: seen }, T0 + 3_600_000)).toBeNull();
  });
  it('a status change writes its details with it, whenever the last details write was', () => {
    const row = provisioned({
      deployment_runtime_status: 'Running',
      deployment_runtime_desired_status: 'Running',
      deployment_details_written_at: new Date(T0 + 1_000).toISOString(),
    });
    const seen = {
      runtime_status: 'Paused' as const,
      runtime_desired_status: 'Paused' as const,
      runtime_status_details: { reason: 'y' },
      storage_status_details: { checkpoints: [] },
    };
    const c = run(row, { kind: 'status', status: seen }, T0 + 2_000);
    expect(c?.set).toMatchObject({
      deployment_runtime_status: 'Paused',
      deployment_runtime_status_details: { reason: 'y' },
    });
    expect(c?.stamp).toContain('deployment_details_written_at');
  });
  it('Suspended: Stopping without an error', () => {
    const c = run(provisioned(), {
      kind: 'status',
      status: {
        runtime_status: 'Suspended',
        runtime_desired_status: 'Suspended',
        runtime_status_details: {},
        storage_status_details: { checkpoints: [] },
      },
    });
    expect(c?.set).toEqual({ deployment_resources_status: 'Stopping', deployment_resources_desired_status: 'Stopped' });
  });
  it('unreachable within 20 s of Provisioned: Initializing; later: Unavailable; 503: Unavailable', () => {
    const row = provisioned({
      deployment_resources_status_since: '2026-01-01T00:00:00.000000Z',
      deployment_runtime_status: 'Running',
    });
    expect(run(row, { kind: 'status-unreachable' }, T0 + 5_000)?.set.deployment_runtime_status).toBe('Initializing');
    expect(run(row, { kind: 'status-unreachable' }, T0 + 25_000)?.set.deployment_runtime_status).toBe('Unavailable');
    expect(run(row, { kind: 'status-unavailable' }, T0 + 1_000)?.set.deployment_runtime_status).toBe('Unavailable');
  });
  it.each<[string, Observation]>([
    ['another non-200 answer', { kind: 'status-error', error: ERR }],
    ['a fatal resource error', { kind: 'fatal', error: ERR }],
  ])('%s: Stopping with that error', (_what, obs) => {
    expect(run(provisioned(), obs)?.set).toMatchObject({
      deployment_resources_status: 'Stopping',
      deployment_error: ERR,
    });
  });
  it('/stop?force=true: Stopping', () => {
    expect(
      run(provisioned({ deployment_resources_desired_status: 'Stopped' }), { kind: 'none' })?.set
        .deployment_resources_status,
    ).toBe('Stopping');
  });
});
