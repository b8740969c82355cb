import { describe, expect, it } from 'vitest';
import { compileProgramConfig } from '../model/program-config.js';
import { compileRuntimeConfig } from '../model/runtime-config.js';
import { planEdit } from './edit.js';
import { storedRow } from './row.fixture.js';

describe('planEdit (API.md Rules)', () => {
  it('a program change bumps version, program_version, refresh_version and resets compilation', () => {
    const plan = planEdit(storedRow({ program_status: 'Success' }), { program_code: 'CREATE TABLE u (y INT);' });
    expect(plan.ok && plan.changes).toEqual({
      set: {
        program_code: 'CREATE TABLE u (y INT);',
        program_status: 'Pending',
        program_error: {},
        program_info: null,
        program_binary_source_checksum: null,
        program_binary_integrity_checksum: null,
      },
      stamp: ['program_status_since'],
      bump: ['version', 'program_version', 'refresh_version'],
    });
  });

  it.each(['udf_rust', 'udf_toml'] as const)('%s is a program field', (field) => {
    const plan = planEdit(storedRow(), { [field]: 'x' });
    expect(plan.ok && plan.changes.bump).toEqual(['version', 'program_version', 'refresh_version']);
  });

  it('program_config is a program field; runtime_config and name are core only', () => {
    const pc = planEdit(storedRow(), { program_config: compileProgramConfig({ cache: false }) });
    expect(pc.ok && pc.changes.bump).toEqual(['version', 'program_version', 'refresh_version']);
    for (const wanted of [{ runtime_config: compileRuntimeConfig({ workers: 2 }) }, { name: 'q' }]) {
      const plan = planEdit(storedRow(), wanted);
      expect(plan.ok && plan.changes.bump).toEqual(['version', 'refresh_version']);
    }
  });

  it('description and tags bump no counter, even while running (the established API moves none for them)', () => {
    const plan = planEdit(
      storedRow({ deployment_resources_status: 'Provisioned', deployment_resources_desired_status: 'Provisioned' }),
      {
        description: 'd',
        tags: ['t'],
      },
    );
    expect(plan.ok && plan.changes).toEqual({
      set: { description: 'd', tags: ['t'] },
      stamp: [],
      bump: [],
    });
  });

  it('equal values are no change at all', () => {
    const row = storedRow();
    const plan = planEdit(row, { program_code: row.program_code, runtime_config: compileRuntimeConfig({}), name: 'p' });
    expect(plan).toEqual({ ok: true, changes: { set: {}, stamp: [], bump: [] }, changed: [] });
  });

  it.each([
    ['Provisioning', 'Provisioned'],
    ['Stopped', 'Provisioned'],
    ['Stopping', 'Stopped'],
  ] as const)('core edits are refused with resources %s / desired %s', (status, desired) => {
    const plan = planEdit(
      storedRow({ deployment_resources_status: status, deployment_resources_desired_status: desired }),
      { program_code: 'x' },
    );
    expect(!plan.ok && plan.error.errorCode).toBe('UpdateRestrictedToStopped');
  });

  it('storage-bound members are refused while storage is not Cleared', () => {
    for (const storage_status of ['InUse', 'Clearing'] as const) {
      const plan = planEdit(storedRow({ storage_status }), {
        runtime_config: compileRuntimeConfig({ workers: 3 }),
        name: 'q',
      });
      expect(!plan.ok && plan.error.details).toEqual({ not_allowed: ['name', 'runtime_config.workers'] });
    }
    const fine = planEdit(storedRow({ storage_status: 'InUse' }), {
      runtime_config: compileRuntimeConfig({ logging: 'debug' }),
    });
    expect(fine.ok).toBe(true);
  });
});
