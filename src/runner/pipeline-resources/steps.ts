import { randomUUID } from 'node:crypto';
import { checkDelete, planClear, planForceStop, planStart } from '../../lifecycle/actions.js';
import type { Plan } from '../../lifecycle/changes.js';
import { planEdit } from '../../lifecycle/edit.js';
import { type ResourceView, sameOwner, type Step } from '../../lifecycle/pipeline-resource.js';
import { SvcError } from '../../model/errors.js';
import { checkPipelineIdentity } from '../../model/pipeline-identity.js';
import { checkPipelineBounds, NO_BOUNDS, type PipelineBounds } from '../../model/pipeline-pod.js';
import type { PipelineRow } from '../../model/pipeline-row.js';
import { bearerHeader, pipelineToken } from '../../http/pipeline-token.js';
import { wakeRunner } from '../../store/channels.js';
import { readPipelineKey } from '../../store/platform-secret.js';
import type { Database } from '../../store/database.js';
import { deletePipelineNamed } from '../../store/pipelines/delete.js';
import { insertManagedPipeline, releaseManagedPipeline } from '../../store/pipelines/managed.js';
import { mutatePipeline } from '../../store/pipelines/mutate.js';

// The controller's steps on the record, through the same pure rules as the API's routes (edit
// rules, start, stop, clear, delete), each under the row lock. A rule refuses a record that another
// owner took meanwhile, so a step never acts on a pipeline the resource does not own.

const RUNTIME_TIMEOUT_MS = 10_000;

/** The pipeline process's endpoint for each runtime action (LIFECYCLE.md). */
const RUNTIME: Record<'pause' | 'resume' | 'suspend', { method: 'GET' | 'POST'; path: string }> = {
  pause: { method: 'POST', path: '/pause' },
  resume: { method: 'POST', path: '/start' },
  suspend: { method: 'POST', path: '/suspend' },
};

const owned = (view: Pick<ResourceView, 'owner'>, plan: (row: PipelineRow) => Plan) => (row: PipelineRow) =>
  sameOwner(row.managed_by, view.owner)
    ? plan(row)
    : {
        ok: false as const,
        error: new SvcError(409, 'PipelineNotManaged', `pipeline '${row.name}' has another owner`),
      };

/**
 * A start of the resource's pipeline, checked as the API's /start checks it: the operator's bounds on
 * runtime_config.resources and the allowlists of service accounts and init container images. A
 * resource cannot ask for what a REST caller may not (the refusal shows as Degraded, naming the field).
 */
const checkedStart = (initial: 'running' | 'paused', bounds: PipelineBounds) => (row: PipelineRow) => {
  checkPipelineBounds(row.runtime_config.resources, bounds);
  checkPipelineIdentity(row.runtime_config, bounds);
  return planStart(row, { initial, dismiss_error: true });
};

/** Runs one mutating step; answers the row after it (undefined when nothing more can happen now). */
export async function runStep(
  deps: { db: Database; platformVersion: string; bounds?: PipelineBounds },
  view: ResourceView,
  row: PipelineRow | undefined,
  step: Step,
): Promise<PipelineRow | undefined> {
  const { db, platformVersion } = deps;
  const name = view.fields.name;
  switch (step.do) {
    case 'create':
      return db.transaction((tx) => insertManagedPipeline(tx, randomUUID(), platformVersion, view.fields, view.owner));
    case 'edit':
      return (
        await mutatePipeline(
          db,
          name,
          owned(view, (r) => planEdit(r, view.fields)),
        )
      ).after;
    case 'stop':
      return (await mutatePipeline(db, name, owned(view, planForceStop))).after;
    case 'start':
      return (await mutatePipeline(db, name, owned(view, checkedStart(step.initial, deps.bounds ?? NO_BOUNDS)))).after;
    case 'runtime':
      if (row?.deployment_location) await runtimeAction(db, row, step.action);
      return undefined;
    default:
      return undefined;
  }
}

async function runtimeAction(db: Database, row: PipelineRow, action: 'pause' | 'resume' | 'suspend'): Promise<void> {
  const { method, path } = RUNTIME[action];
  // The deployment's token, as every call to a pipeline carries (docs/security.md).
  const token = pipelineToken(await readPipelineKey(db), row.deployment_id ?? '');
  const res = await fetch(`${row.deployment_location}${path}`, {
    method,
    headers: bearerHeader(token),
    signal: AbortSignal.timeout(RUNTIME_TIMEOUT_MS),
  });
  await res.body?.cancel();
  if (!res.ok) throw new Error(`the pipeline answered ${method} ${path} with HTTP ${res.status}`);
  // The runner copies the new runtime desired status at its next look: make that now.
  await wakeRunner(db, row.id);
}

/**
 * Deleting the resource: stop the pipeline; with `storage_on_delete: Clear` clear its storage, then
 * delete the record. With Keep a record whose storage holds something is handed back to REST (stopped,
 * no owner), since the API deletes only records with cleared storage; one with nothing stored is
 * deleted. Answers done once the finalizer may go.
 */
export async function finalizeStep(
  db: Database,
  view: Pick<ResourceView, 'owner'>,
  row: PipelineRow | undefined,
  clearStorage: boolean,
): Promise<{ done: boolean; did?: string }> {
  if (!row || !sameOwner(row.managed_by, view.owner)) return { done: true };
  if (row.deployment_resources_desired_status !== 'Stopped') {
    await mutatePipeline(db, row.name, owned(view, planForceStop));
    return { done: false, did: 'stopping' };
  }
  if (row.deployment_resources_status !== 'Stopped') return { done: false };
  if (row.storage_status !== 'Cleared') {
    if (!clearStorage && row.storage_status === 'InUse') {
      await releaseManagedPipeline(db, row.id);
      return { done: true, did: 'kept with its storage and handed back to the REST API (storage_on_delete: Keep)' };
    }
    if (row.storage_status === 'InUse') {
      await mutatePipeline(db, row.name, owned(view, planClear));
      return { done: false, did: 'clearing storage' };
    }
    return { done: false };
  }
  await deletePipelineNamed(db, row.name, (r) =>
    sameOwner(r.managed_by, view.owner) ? checkDelete(r) : new SvcError(409, 'PipelineNotManaged', 'another owner'),
  );
  return { done: true, did: 'record deleted' };
}

/** The Event reason of a step taken. */
export const reasonOf = (step: Step): string =>
  ({ create: 'Created', edit: 'Updated', stop: 'Stopping', start: 'Starting', runtime: 'RuntimeAction' })[
    step.do as 'create'
  ] ?? step.do;

export function describeStep(name: string, step: Step): string {
  switch (step.do) {
    case 'create':
      return `created pipeline ${name}`;
    case 'edit':
      return `updated pipeline ${name} to the spec`;
    case 'stop':
      return step.why === 'edit'
        ? `stopping pipeline ${name}: the spec changes fields that change only while it is stopped`
        : `stopping pipeline ${name}`;
    case 'start':
      return `starting pipeline ${name} (${step.initial})`;
    case 'runtime':
      return `asked pipeline ${name} to ${step.action}`;
    default:
      return step.do;
  }
}
