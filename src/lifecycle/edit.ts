import { badRequest, type SvcError } from '../model/errors.js';
import { jsonEqual } from '../model/json.js';
import type { ProgramConfig } from '../model/program-config.js';
import type { RuntimeConfig } from '../model/runtime-config.js';
import type { PipelineRow } from '../model/pipeline-row.js';
import type { Counter, RowChanges } from './changes.js';

// The edit rules of API.md ("Rules"), as one pure function of the stored row and the wanted values.

export interface EditableFields {
  name: string;
  description: string;
  tags: string[];
  program_code: string;
  udf_rust: string;
  udf_toml: string;
  runtime_config: RuntimeConfig;
  program_config: ProgramConfig;
}
export type EditableField = keyof EditableFields;

/** Core fields change only while fully stopped; description and tags change any time. */
const CORE: readonly EditableField[] = [
  'name',
  'runtime_config',
  'program_code',
  'udf_rust',
  'udf_toml',
  'program_config',
];
const PROGRAM: readonly EditableField[] = ['program_code', 'udf_rust', 'udf_toml', 'program_config'];

/** Members bound to the stored state: they cannot change until storage is Cleared. */
const STORAGE_BOUND: ReadonlyArray<[string, (rc: RuntimeConfig) => unknown]> = [
  ['runtime_config.workers', (rc) => rc.workers],
  ['runtime_config.hosts', (rc) => rc.hosts],
  ['runtime_config.fault_tolerance', (rc) => rc.fault_tolerance],
  ['runtime_config.resources.storage_mb_max', (rc) => rc.resources?.storage_mb_max],
  ['runtime_config.resources.namespace', (rc) => rc.resources?.namespace],
  ['runtime_config.resources.storage_class', (rc) => rc.resources?.storage_class],
];

export type EditPlan = { ok: true; changes: RowChanges; changed: EditableField[] } | { ok: false; error: SvcError };

export function planEdit(row: PipelineRow, wanted: Partial<EditableFields>): EditPlan {
  const changed = (Object.keys(wanted) as EditableField[]).filter(
    (k) => wanted[k] !== undefined && !jsonEqual(wanted[k], row[k]),
  );
  const core = changed.filter((k) => CORE.includes(k));
  if (
    core.length > 0 &&
    (row.deployment_resources_status !== 'Stopped' || row.deployment_resources_desired_status !== 'Stopped')
  ) {
    return {
      ok: false,
      error: badRequest(
        'UpdateRestrictedToStopped',
        `Cannot change ${core.join(', ')} of pipeline '${row.name}' unless it is fully stopped ` +
          `(deployment_resources_status and deployment_resources_desired_status both Stopped); ` +
          'description and tags can change at any time',
        { fields: core },
      ),
    };
  }
  if (row.storage_status !== 'Cleared') {
    const notAllowed = storageBoundChanges(row, wanted);
    if (notAllowed.length > 0) {
      return {
        ok: false,
        error: badRequest(
          'EditRestrictedToClearedStorage',
          `Cannot change ${notAllowed.join(', ')} of pipeline '${row.name}' while its storage is ` +
            `${row.storage_status}; clear the storage first`,
          { not_allowed: notAllowed },
        ),
      };
    }
  }
  const set: RowChanges['set'] = {};
  for (const k of changed) set[k] = wanted[k];
  const bump: Counter[] = [];
  const stamp: Array<RowChanges['stamp'][number]> = [];
  if (core.length > 0) bump.push('version');
  if (changed.some((k) => PROGRAM.includes(k))) {
    bump.push('program_version');
    set.program_status = 'Pending';
    set.program_error = {};
    set.program_info = null;
    set.program_binary_source_checksum = null;
    set.program_binary_integrity_checksum = null;
    stamp.push('program_status_since');
  }
  // description and tags are the client's metadata: the established API moves no counter for them
  // (a status poller keyed on refresh_version must not see an edit of a label as a new state).
  if (core.length > 0) bump.push('refresh_version');
  return { ok: true, changes: { set, stamp, bump }, changed };
}

function storageBoundChanges(row: PipelineRow, wanted: Partial<EditableFields>): string[] {
  const out: string[] = [];
  if (wanted.name !== undefined && wanted.name !== row.name) out.push('name');
  const rc = wanted.runtime_config;
  if (rc !== undefined) {
    for (const [field, get] of STORAGE_BOUND) {
      if (!jsonEqual(get(rc), get(row.runtime_config))) out.push(field);
    }
  }
  return out;
}
