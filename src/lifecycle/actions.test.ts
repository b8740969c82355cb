import { describe, expect, it } from 'vitest';
import type { PipelineRow } from '../model/pipeline-row.js';
import { checkDelete, planClear, planDismissError, planForceStop, planStart, type StartParams } from './actions.js';
import { storedRow } from './row.fixture.js';

const ERR = { message: 'm', error_code: 'ProvisioningTimeout', details: { timeout_secs: 5 } };
const start = (row: Partial<PipelineRow>, params: Partial<StartParams> = {}) =>
  planStart(storedRow(row), { dismiss_error: true, ...params });
const code = (plan: ReturnType<typeof planStart>) => (plan.ok ? 'ok' : plan.error.errorCode);

describe('planStart: refusals in the order of API.md', () => {
  it.each<[string, Partial<PipelineRow>, Partial<StartParams>, string]>([
    ['still stopping', { deployment_resources_status: 'Stopping' }, {}, 'IllegalPipelineAction'],
    [
      'stopping beats an undismissed error',
      { deployment_resources_status: 'Stopping', deployment_error: ERR },
      { dismiss_error: false },
      'IllegalPipelineAction',
    ],
    ['undismissed error', { deployment_error: ERR }, { dismiss_error: false }, 'CannotStartWithUndismissedError'],
    [
      'error beats clearing',
      { deployment_error: ERR, storage_status: 'Clearing' },
      { dismiss_error: false },
      'CannotStartWithUndismissedError',
    ],
    ['clearing', { storage_status: 'Clearing' }, {}, 'CannotStartWhileClearingStorage'],
    [
      'clearing beats compile error',
      { storage_status: 'Clearing', program_status: 'SqlError' },
      {},
      'CannotStartWhileClearingStorage',
    ],
    ['SqlError', { program_status: 'SqlError' }, {}, 'CannotStartWithCompilationError'],
    ['RustError', { program_status: 'RustError' }, {}, 'CannotStartWithCompilationError'],
    ['SystemError', { program_status: 'SystemError' }, {}, 'CannotStartWithCompilationError'],
    [
      'other initial while started',
      { deployment_resources_desired_status: 'Provisioned', deployment_initial: 'Running' },
      { initial: 'paused' },
      'InitialImmutableUnlessStopped',
    ],
    [
      'other policy while started',
      {
        deployment_resources_desired_status: 'Provisioned',
        deployment_initial: 'Running',
        deployment_bootstrap_policy: 'allow',
      },
      { bootstrap_policy: 'reject' },
      'BootstrapPolicyImmutableUnlessStopped',
    ],
    ['standby without sync', {}, { initial: 'standby' }, 'InitialStandbyNotAllowed'],
    ['still compiling is fine (early start)', { program_status: 'CompilingSql' }, {}, 'ok'],
    ['storage in use is fine', { storage_status: 'InUse' }, {}, 'ok'],
  ])('%s → %s', (_what, row, params, expected) => {
    expect(code(start(row, params))).toBe(expected);
  });

  it('sets the desired status, initial and policy, dismisses the error, stamps the since', () => {
    const plan = start({ deployment_error: ERR }, { initial: 'paused', bootstrap_policy: 'await_approval' });
    expect(plan).toEqual({
      ok: true,
      changes: {
        set: {
          deployment_resources_desired_status: 'Provisioned',
          deployment_initial: 'Paused',
          deployment_bootstrap_policy: 'await_approval',
          deployment_error: null,
        },
        stamp: ['deployment_resources_desired_status_since'],
        bump: ['refresh_version'],
      },
    });
  });

  it('a repeated start with the same (or omitted) parameters changes nothing', () => {
    const started = {
      deployment_resources_desired_status: 'Provisioned',
      deployment_initial: 'Paused',
      deployment_bootstrap_policy: 'allow',
    } as const;
    for (const params of [{}, { initial: 'paused' as const }, { bootstrap_policy: 'allow' as const }]) {
      expect(start(started, params)).toEqual({ ok: true, changes: { set: {}, stamp: [], bump: [] } });
    }
  });
});

describe('planForceStop', () => {
  it('sets desired Stopped; an undeployed pipeline also drops its start parameters', () => {
    const plan = planForceStop(
      storedRow({ deployment_resources_desired_status: 'Provisioned', deployment_initial: 'Running' }),
    );
    expect(plan.ok && plan.changes.set).toEqual({
      deployment_resources_desired_status: 'Stopped',
      deployment_initial: null,
      deployment_bootstrap_policy: null,
    });
  });
  it('keeps deployment_initial of a deployed pipeline (the runner clears it when Stopped)', () => {
    const plan = planForceStop(
      storedRow({
        deployment_resources_desired_status: 'Provisioned',
        deployment_resources_status: 'Provisioned',
        deployment_initial: 'Running',
      }),
    );
    expect(plan.ok && plan.changes.set).toEqual({ deployment_resources_desired_status: 'Stopped' });
  });
  it('is a no-op when already desired Stopped', () => {
    expect(planForceStop(storedRow())).toEqual({ ok: true, changes: { set: {}, stamp: [], bump: [] } });
  });
});

describe('planClear, planDismissError, checkDelete', () => {
  it.each<[Partial<PipelineRow>, string | null]>([
    [{ storage_status: 'InUse' }, 'Clearing'],
    [{ storage_status: 'Cleared' }, null],
    [{ storage_status: 'Clearing' }, null],
  ])('clear of %j → %s', (row, next) => {
    const plan = planClear(storedRow(row));
    expect(plan.ok && (plan.changes.set.storage_status ?? null)).toBe(next);
  });
  it('clear is refused unless fully stopped', () => {
    for (const row of [
      { deployment_resources_status: 'Provisioned' as const },
      { deployment_resources_desired_status: 'Provisioned' as const },
    ]) {
      expect(code(planClear(storedRow({ ...row, storage_status: 'InUse' })))).toBe(
        'StorageStatusImmutableUnlessStopped',
      );
    }
  });
  it('dismiss clears an error of a stopped pipeline and refuses while running', () => {
    const plan = planDismissError(storedRow({ deployment_error: ERR }));
    expect(plan.ok && plan.changes.set).toEqual({ deployment_error: null });
    expect(
      code(planDismissError(storedRow({ deployment_error: ERR, deployment_resources_status: 'Provisioned' }))),
    ).toBe('IllegalPipelineAction');
  });
  it.each<[Partial<PipelineRow>, string | null]>([
    [{}, null],
    [{ deployment_resources_status: 'Stopping' }, 'DeleteRestrictedToFullyStopped'],
    [{ deployment_resources_desired_status: 'Provisioned' }, 'DeleteRestrictedToFullyStopped'],
    [{ storage_status: 'InUse' }, 'DeleteRestrictedToClearedStorage'],
    [{ storage_status: 'Clearing' }, 'DeleteRestrictedToClearedStorage'],
  ])('delete of %j → %s', (row, expected) => {
    expect(checkDelete(storedRow(row))?.errorCode ?? null).toBe(expected);
  });
});
