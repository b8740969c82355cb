import type { ErrorBody } from '../model/errors.js';
import { jsonEqual } from '../model/json.js';
import type { PipelineRow } from '../model/pipeline-row.js';
import type {
  Condition,
  ConditionType,
  DesiredState,
  ManagedBy,
  PipelineResourceStatus,
} from '../model/pipeline-resource.js';
import { deploymentDesiredStatus, deploymentStatus } from './deployment-status.js';
import { type EditableFields, planEdit } from './edit.js';

// The Pipeline resources' controller as pure rules (docs/kubernetes.md "Pipelines as resources"):
// given a resource's compiled spec and its record, the one next step; given the record, the
// resource's status. The runner executes the step and writes the status only when it changed.

export interface ResourceView {
  owner: ManagedBy;
  generation: number;
  /** The generation whose spec the record last fully held (status.observedGeneration). */
  observedGeneration: number | undefined;
  desired: DesiredState;
  fields: EditableFields;
}

export type Step =
  | { do: 'create' }
  | { do: 'edit' }
  | { do: 'stop'; why: 'edit' | 'desired' }
  | { do: 'start'; initial: 'running' | 'paused' }
  | { do: 'runtime'; action: 'pause' | 'resume' | 'suspend' }
  | { do: 'wait' }
  | { do: 'blocked'; error: ErrorBody }
  | { do: 'none' };

const FAILED = new Set(['SqlError', 'RustError', 'SystemError']);

export const sameOwner = (a: ManagedBy | null | undefined, b: ManagedBy): boolean =>
  !!a && a.namespace === b.namespace && a.name === b.name && a.kind === b.kind;

/** The next step towards the spec; `applied` once the record holds this generation's spec. */
export function nextStep(view: ResourceView, row: PipelineRow | undefined): { step: Step; applied: boolean } {
  if (!row) return { step: { do: 'create' }, applied: false };
  if (!sameOwner(row.managed_by, view.owner)) {
    const error: ErrorBody = {
      error_code: 'PipelineNotManaged',
      message: `A pipeline named '${row.name}' exists and is not declared by this resource; delete it (or rename the resource) first`,
      details: { pipeline_name: row.name },
    };
    return { step: { do: 'blocked', error }, applied: false };
  }
  const edit = planEdit(row, view.fields);
  if (!edit.ok) {
    const code = edit.error.errorCode;
    if (code !== 'UpdateRestrictedToStopped')
      return { step: { do: 'blocked', error: edit.error.toBody() }, applied: false };
    // Core fields change only while fully stopped: stop, edit, start again (the edit rules of PUT).
    const stopping = row.deployment_resources_desired_status === 'Stopped';
    return { step: stopping ? { do: 'wait' } : { do: 'stop', why: 'edit' }, applied: false };
  }
  if (edit.changed.length > 0) return { step: { do: 'edit' }, applied: false };
  return { step: towardsDesired(view, row), applied: true };
}

function towardsDesired(view: ResourceView, row: PipelineRow): Step {
  const wantsUp = row.deployment_resources_desired_status === 'Provisioned';
  switch (view.desired) {
    case 'Stopped':
      return wantsUp ? { do: 'stop', why: 'desired' } : { do: 'none' };
    case 'Suspended':
      // A checkpoint needs a running process; before it runs there is nothing to keep.
      if (!wantsUp) return { do: 'none' };
      if (row.deployment_resources_status !== 'Provisioned') return { do: 'stop', why: 'desired' };
      return row.deployment_runtime_desired_status === 'Suspended'
        ? { do: 'wait' }
        : { do: 'runtime', action: 'suspend' };
    case 'Running':
    case 'Paused':
      return wantsUp ? towardsRuntime(view.desired, row) : towardsStart(view, row);
  }
}

function towardsStart(view: ResourceView, row: PipelineRow): Step {
  if (row.deployment_resources_status !== 'Stopped') return { do: 'wait' };
  if (FAILED.has(row.program_status)) return { do: 'none' };
  // A pipeline that stopped with an error stays stopped until its spec changes: no restart loop.
  if (row.deployment_error && view.observedGeneration === view.generation) return { do: 'none' };
  return { do: 'start', initial: view.desired === 'Paused' ? 'paused' : 'running' };
}

/** Running ↔ Paused of a deployed pipeline goes to the pipeline process, as /pause and /resume do. */
function towardsRuntime(desired: 'Running' | 'Paused', row: PipelineRow): Step {
  const runtime = row.deployment_runtime_desired_status;
  if (row.deployment_resources_status !== 'Provisioned' || (runtime !== 'Running' && runtime !== 'Paused')) {
    return { do: 'none' };
  }
  if (runtime === desired) return { do: 'none' };
  return { do: 'runtime', action: desired === 'Running' ? 'resume' : 'pause' };
}

/** The deployment status the desired state ends in. */
const REACHED: Record<DesiredState, string> = {
  Running: 'Running',
  Paused: 'Paused',
  Stopped: 'Stopped',
  Suspended: 'Stopped',
};

function programMessage(row: PipelineRow): string {
  const e = row.program_error;
  const sql = e.sql_compilation?.messages.map((m) => m.message).join('\n');
  return (sql || e.system_error || e.rust_compilation?.stderr || row.program_status).slice(0, 2048);
}

type Wanted = Omit<Condition, 'lastTransitionTime'>;
type StatusView = Pick<ResourceView, 'generation' | 'desired'>;

const condition =
  (generation: number) =>
  (type: ConditionType, status: Wanted['status'], reason: string, message: string): Wanted => ({
    type,
    status,
    observedGeneration: generation,
    reason,
    message: message.slice(0, 2048),
  });

function compiledCondition(row: PipelineRow, cond: ReturnType<typeof condition>): Wanted {
  const program = row.program_status;
  if (program === 'Success') return cond('Compiled', 'True', 'Success', 'the program compiled');
  if (FAILED.has(program)) return cond('Compiled', 'False', program, programMessage(row));
  return cond('Compiled', 'Unknown', program, `compiling (${program})`);
}

/** What makes the resource Degraded: a spec that cannot be applied, a deployment error, a failed program. */
function problemOf(row: PipelineRow, blocked: ErrorBody | undefined): ErrorBody | undefined {
  if (blocked) return blocked;
  if (row.deployment_error) return row.deployment_error;
  if (!FAILED.has(row.program_status)) return undefined;
  return { error_code: 'CompilationFailed', message: programMessage(row), details: null };
}

function conditions(
  view: StatusView,
  row: PipelineRow | undefined,
  blocked: ErrorBody | undefined,
  observed: number | undefined,
): Wanted[] {
  const cond = condition(view.generation);
  if (!row) {
    const reason = blocked ? blocked.error_code : 'Creating';
    return [
      cond('Compiled', 'Unknown', reason, 'no pipeline record yet'),
      cond('Ready', 'False', reason, blocked?.message ?? 'creating the pipeline record'),
      cond('Degraded', blocked ? 'True' : 'False', blocked ? reason : 'AsExpected', blocked?.message ?? ''),
    ];
  }
  const status = deploymentStatus(row.deployment_resources_status, row.deployment_runtime_status);
  const reached = REACHED[view.desired] === status && observed === view.generation;
  const ready = reached
    ? cond('Ready', 'True', status, `the pipeline is ${status}`)
    : cond('Ready', 'False', status, `the pipeline is ${status}; the spec wants ${view.desired}`);
  const problem = problemOf(row, blocked);
  const degraded = problem
    ? cond('Degraded', 'True', problem.error_code, problem.message)
    : cond('Degraded', 'False', 'AsExpected', '');
  return [compiledCondition(row, cond), ready, degraded];
}

/**
 * The resource's status from its record. A condition keeps its lastTransitionTime while its status
 * stays, so a status whose visible content did not change compares equal and is not written.
 */
export function resourceStatus(
  view: StatusView,
  row: PipelineRow | undefined,
  blocked: ErrorBody | undefined,
  observed: number | undefined,
  previous: PipelineResourceStatus | undefined,
  now: string,
): PipelineResourceStatus {
  const before = new Map((previous?.conditions ?? []).map((c) => [c.type, c]));
  const conds = conditions(view, row, blocked, observed).map((c): Condition => {
    const old = before.get(c.type);
    return { ...c, lastTransitionTime: old && old.status === c.status ? old.lastTransitionTime : now };
  });
  if (!row) return { ...(observed !== undefined && { observedGeneration: observed }), conditions: conds };
  const programError = Object.keys(row.program_error).length > 0 ? row.program_error : null;
  return {
    ...(observed !== undefined && { observedGeneration: observed }),
    pipeline_id: row.id,
    program_status: row.program_status,
    deployment_status: deploymentStatus(row.deployment_resources_status, row.deployment_runtime_status),
    deployment_desired_status: deploymentDesiredStatus(
      row.deployment_resources_desired_status,
      row.deployment_runtime_desired_status,
      row.deployment_initial,
    ),
    deployment_resources_desired_status: row.deployment_resources_desired_status,
    storage_status: row.storage_status,
    // Absent rather than null: a merge patch's null deletes the member, so a null written would read
    // back as absent and differ from the next status computed, a write at every look.
    ...(programError && { program_error: programError }),
    ...(row.deployment_error && { deployment_error: row.deployment_error }),
    conditions: conds,
  };
}

/** True when writing `next` over `current` would change nothing visible. */
export const statusUnchanged = (current: unknown, next: PipelineResourceStatus): boolean =>
  jsonEqual(current ?? {}, JSON.parse(JSON.stringify(next)) as unknown);
