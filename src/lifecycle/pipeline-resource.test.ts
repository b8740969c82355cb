import { describe, expect, it } from 'vitest';
import type { ManagedBy } from '../model/pipeline-resource.js';
import type { PipelineRow } from '../model/pipeline-row.js';
import { compileCreateBody } from './create-body.js';
import { nextStep, type ResourceView, resourceStatus, statusUnchanged } from './pipeline-resource.js';
import { storedRow } from './row.fixture.js';

const owner: ManagedBy = { api_version: 'svc.dev/v1alpha1', kind: 'Pipeline', namespace: 'ns', name: 'p' };
const SQL = 'CREATE TABLE t (x INT);';

const view = (over: Partial<ResourceView> = {}, sql = SQL): ResourceView => ({
  owner,
  generation: 1,
  observedGeneration: undefined,
  desired: 'Running',
  fields: compileCreateBody({ name: 'p', program_code: sql }),
  ...over,
});
const row = (over: Partial<PipelineRow> = {}) => storedRow({ managed_by: owner, ...over });
const running = {
  deployment_resources_desired_status: 'Provisioned',
  deployment_resources_status: 'Provisioned',
  deployment_runtime_status: 'Running',
  deployment_runtime_desired_status: 'Running',
  deployment_location: 'http://127.0.0.1:1',
  storage_status: 'InUse',
  program_status: 'Success',
} as const;

describe('nextStep: a Pipeline resource towards its record', () => {
  it('creates a missing record, then starts it (early start: compiling is no reason to wait)', () => {
    expect(nextStep(view(), undefined)).toEqual({ step: { do: 'create' }, applied: false });
    expect(nextStep(view(), row())).toEqual({ step: { do: 'start', initial: 'running' }, applied: true });
    expect(nextStep(view({ desired: 'Paused' }), row()).step).toEqual({ do: 'start', initial: 'paused' });
  });

  it('leaves a record of the same name that it does not own alone', () => {
    const { step } = nextStep(view(), storedRow());
    expect(step).toMatchObject({ do: 'blocked', error: { error_code: 'PipelineNotManaged' } });
  });

  it('changes the SQL of a running pipeline by stopping it, editing, and starting it again', () => {
    const changed = view({ generation: 2, observedGeneration: 1 }, 'CREATE TABLE u (y INT);');
    expect(nextStep(changed, row(running)).step).toEqual({ do: 'stop', why: 'edit' });
    const stopping = row({ ...running, deployment_resources_desired_status: 'Stopped' });
    expect(nextStep(changed, stopping).step).toEqual({ do: 'wait' });
    const stopped = row({ program_status: 'Success', storage_status: 'InUse' });
    expect(nextStep(changed, stopped)).toEqual({ step: { do: 'edit' }, applied: false });
  });

  it('edits the description of a running pipeline without stopping it', () => {
    const described = { ...view(), fields: { ...view().fields, description: 'orders' } };
    expect(nextStep(described, row(running)).step).toEqual({ do: 'edit' });
  });

  it('reports an edit the storage forbids instead of looping', () => {
    const v = view({}, SQL);
    v.fields = { ...v.fields, runtime_config: { ...v.fields.runtime_config, workers: 7 } };
    const { step } = nextStep(v, row({ storage_status: 'InUse' }));
    expect(step).toMatchObject({ do: 'blocked', error: { error_code: 'EditRestrictedToClearedStorage' } });
  });

  it('does not restart a pipeline that stopped with an error until the spec changes', () => {
    const failed = row({ deployment_error: { error_code: 'X', message: 'x', details: null } });
    expect(nextStep(view({ observedGeneration: 1 }), failed).step).toEqual({ do: 'none' });
    expect(nextStep(view({ generation: 2, observedGeneration: 1 }), failed).step).toMatchObject({ do: 'start' });
    expect(nextStep(view(), row({ program_status: 'SqlError' })).step).toEqual({ do: 'none' });
  });

  it('stops, pauses, resumes and suspends as the desired state says', () => {
    expect(nextStep(view({ desired: 'Stopped' }), row(running)).step).toEqual({ do: 'stop', why: 'desired' });
    expect(nextStep(view({ desired: 'Stopped' }), row()).step).toEqual({ do: 'none' });
    expect(nextStep(view({ desired: 'Paused' }), row(running)).step).toEqual({ do: 'runtime', action: 'pause' });
    const paused = row({ ...running, deployment_runtime_desired_status: 'Paused' });
    expect(nextStep(view(), paused).step).toEqual({ do: 'runtime', action: 'resume' });
    expect(nextStep(view({ desired: 'Suspended' }), row(running)).step).toEqual({ do: 'runtime', action: 'suspend' });
    expect(nextStep(view(), row(running)).step).toEqual({ do: 'none' });
  });
});

describe('resourceStatus', () => {
  const now = '2026-11-26T12:00:00.000Z';

  it('says Compiled, Ready and not Degraded for a running pipeline of the observed generation', () => {
    const s = resourceStatus(view(), row(running), undefined, 1, undefined, now);
    expect(s).toMatchObject({ observedGeneration: 1, deployment_status: 'Running', program_status: 'Success' });
    expect(s.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Compiled', 'True', 'Success'],
      ['Ready', 'True', 'Running'],
      ['Degraded', 'False', 'AsExpected'],
    ]);
  });

  it('shows a failed program as Compiled=False with its error, and Degraded', () => {
    const failed = row({
      program_status: 'SqlError',
      program_error: { sql_compilation: { exit_code: 1, messages: [{ message: 'no such table: q' } as never] } },
    });
    const s = resourceStatus(view(), failed, undefined, 1, undefined, now);
    expect(s.conditions?.[0]).toMatchObject({ type: 'Compiled', status: 'False', reason: 'SqlError' });
    expect(s.conditions?.[0]?.message).toContain('no such table: q');
    expect(s.conditions?.[2]).toMatchObject({ type: 'Degraded', status: 'True', reason: 'CompilationFailed' });
  });

  it('is unchanged when nothing visible changed, so the controller writes nothing', () => {
    const first = resourceStatus(view(), row(running), undefined, 1, undefined, now);
    const again = resourceStatus(view(), row(running), undefined, 1, first, '2026-11-26T12:05:00.000Z');
    expect(statusUnchanged(first, again)).toBe(true);
    const stopped = resourceStatus(
      view(),
      row({ program_status: 'Success' }),
      undefined,
      1,
      first,
      '2026-11-26T12:05:00.000Z',
    );
    expect(statusUnchanged(first, stopped)).toBe(false);
    expect(stopped.conditions?.[1]?.lastTransitionTime).toBe('2026-11-26T12:05:00.000Z');
    expect(stopped.conditions?.[0]?.lastTransitionTime).toBe(now);
  });
});
