import pLimit from 'p-limit';
import { compileCreateBody } from '../../lifecycle/create-body.js';
import {
  nextStep,
  resourceStatus,
  type ResourceView,
  statusUnchanged,
  type Step,
} from '../../lifecycle/pipeline-resource.js';
import type { Logger } from '../../logging/logger.js';
import { type ErrorBody, SvcError } from '../../model/errors.js';
import {
  API_VERSION,
  createBodyOf,
  type DesiredState,
  PipelineResourceSpec,
  type PipelineResourceStatus,
  RESOURCE,
} from '../../model/pipeline-resource.js';
import type { PipelineBounds } from '../../model/pipeline-pod.js';
import type { PipelineRow } from '../../model/pipeline-row.js';
import { parseBody } from '../../model/validation.js';
import type { Database } from '../../store/database.js';
import { selectManagedPipelines } from '../../store/pipelines/managed.js';
import { apiMessage, type Kube, statusOf } from '../backends/kubernetes/kube.js';
import { describeScope, PipelineInformers, watchScope, type WatchScope } from './informers.js';
import { patchFinalizers, patchStatus, type PipelineResource, resourceEvent } from './resource-api.js';
import { describeStep, finalizeStep, reasonOf, runStep } from './steps.js';

// Keeps each Pipeline resource of the runner's namespace (and of the further ones it is given) and its record in step (docs/kubernetes.md
// "Pipelines as resources"). A look reads every managed record in one query and every resource from
// the informer's cache, takes the next step of each (lifecycle/pipeline-resource.ts), and writes a
// status back only when something visible changed. Informer events and the runner's poll interval
// start a look; a look that changed something starts the next at once.

export interface ControllerOptions {
  kube: Kube;
  db: Database;
  log: Logger;
  platformVersion: string;
  pollMs?: number;
  /** Further namespaces whose resources to keep, or `*` for every one (--pipeline-resources-namespaces). */
  namespaces?: readonly string[];
  /** The operator's bounds on a start, checked as the API's /start checks them (none: any). */
  bounds?: PipelineBounds;
}

/** Steps that change the record: after one, the same look continues with the row it left. */
const MUTATES = new Set<Step['do']>(['create', 'edit', 'stop', 'start']);
const MAX_STEPS_PER_LOOK = 4;
/** A runtime action (pause, resume, suspend) is not sent again sooner, while the runner catches up. */
const RUNTIME_RESEND_MS = 5_000;

export class PipelineResourceController {
  private readonly informers: PipelineInformers;
  private readonly scope: WatchScope;
  private readonly limit = pLimit(8);
  private readonly runtimeSent = new Map<string, { action: string; at: number }>();
  /** By resource uid: the status this controller last wrote, over which resourceVersion. */
  private readonly written = new Map<string, { over: string | undefined; status: PipelineResourceStatus }>();
  private wake: () => void = () => undefined;
  private dirty = true;
  private closed = false;
  private loop: Promise<void> | undefined;

  constructor(private readonly opts: ControllerOptions) {
    this.scope = watchScope(opts.kube.namespace, opts.namespaces ?? []);
    this.informers = new PipelineInformers(opts.kube, this.scope, opts.log, {
      changed: () => this.poke(),
      deleted: (res) => {
        this.written.delete(res.metadata.uid ?? res.metadata.name);
        this.runtimeSent.delete(res.metadata.name);
        this.poke();
      },
    });
  }

  /** Starts the informers and the looks. */
  start(): void {
    this.informers.start();
    this.loop = this.run();
    const where = describeScope(this.scope);
    this.opts.log.info({ namespaces: where }, 'keeping Pipeline resources of %s', where);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.poke();
    await this.informers.stop();
    await this.loop;
  }

  private poke(): void {
    this.dirty = true;
    this.wake();
  }

  private async run(): Promise<void> {
    const pollMs = this.opts.pollMs ?? 1_000;
    while (!this.closed) {
      if (!this.dirty) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      this.dirty = false;
      if (this.closed) break;
      try {
        if (await this.look()) this.dirty = true;
      } catch (error) {
        this.opts.log.warn({ err: error }, 'pipeline resources: %s', (error as Error).message);
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    }
  }

  /** One look at every resource; true when a step changed something. */
  private async look(): Promise<boolean> {
    const rows = await selectManagedPipelines(this.opts.db, this.scope.all ? 'all' : this.scope.namespaces);
    const resources = this.informers.list();
    const results = await Promise.all(
      resources.map((res) =>
        this.limit(() =>
          this.reconcile(res, rows.get(res.metadata.name)).catch((error: unknown) => {
            this.opts.log.warn(
              { err: error, resource: res.metadata.name },
              'pipeline resource %s: %s',
              res.metadata.name,
              apiMessage(error),
            );
            return false;
          }),
        ),
      ),
    );
    return results.some(Boolean);
  }

  private async reconcile(res: PipelineResource, stored: PipelineRow | undefined): Promise<boolean> {
    const name = res.metadata.name;
    const owner = { api_version: API_VERSION, kind: RESOURCE.kind, namespace: res.metadata.namespace, name };
    const finalizers = res.metadata.finalizers ?? [];
    const parsed = PipelineResourceSpec.safeParse(res.spec ?? {});
    if (res.metadata.deletionTimestamp) {
      if (!finalizers.includes(RESOURCE.finalizer)) return false;
      const clear = parsed.success && parsed.data.storage_on_delete === 'Clear';
      const { done, did } = await finalizeStep(this.opts.db, { owner }, stored, clear);
      if (did) await this.event(res, 'Normal', 'Deleting', `pipeline ${name}: ${did}`);
      if (done)
        await patchFinalizers(
          this.opts.kube,
          res,
          finalizers.filter((f) => f !== RESOURCE.finalizer),
        );
      return did !== undefined;
    }
    if (!finalizers.includes(RESOURCE.finalizer)) {
      await patchFinalizers(this.opts.kube, res, [...finalizers, RESOURCE.finalizer]);
    }
    const generation = res.metadata.generation ?? 0;
    const current = this.currentStatus(res);
    const desired: DesiredState = parsed.success ? parsed.data.desired_state : 'Running';
    const spec = viewOf(res, parsed, {
      owner,
      generation,
      observedGeneration: current?.observedGeneration,
      desired,
    });
    const outcome =
      'view' in spec
        ? await this.steps(res, spec.view, stored)
        : { row: stored, blocked: spec.blocked, observed: current?.observedGeneration, changed: false };
    const next = resourceStatus(
      { generation, desired },
      outcome.row,
      outcome.blocked,
      outcome.observed,
      current,
      new Date().toISOString(),
    );
    if (!statusUnchanged(current, next)) await this.writeStatus(res, current, next);
    return outcome.changed;
  }

  /** The steps towards the spec that can be taken now, each on the row the previous one left. */
  private async steps(res: PipelineResource, view: ResourceView, stored: PipelineRow | undefined) {
    let row = stored;
    let observed = view.observedGeneration;
    let blocked: ErrorBody | undefined;
    let changed = false;
    for (let i = 0; i < MAX_STEPS_PER_LOOK; i++) {
      const { step, applied } = nextStep(view, row);
      if (applied) observed = view.generation;
      if (step.do === 'blocked') blocked = step.error;
      const runtime = step.do === 'runtime' && this.runtimeDue(view.fields.name, step.action);
      if (!MUTATES.has(step.do) && !runtime) break;
      try {
        const after = await runStep(this.opts, view, row, step);
        changed = true;
        await this.event(res, 'Normal', reasonOf(step), describeStep(view.fields.name, step));
        if (!after) break;
        row = after;
      } catch (error) {
        if (!(error instanceof SvcError)) throw error;
        blocked = error.toBody();
        break;
      }
    }
    return { row, blocked, observed, changed };
  }

  /**
   * The resource's status as last written: the informer's copy, unless this controller wrote a newer
   * one that the watch has not delivered yet (the cache still holds the resourceVersion written over).
   * Without this a look right after a write would write the same status again, and repeat its Events.
   */
  private currentStatus(res: PipelineResource): PipelineResourceStatus | undefined {
    const mine = this.written.get(res.metadata.uid ?? res.metadata.name);
    return mine && mine.over === res.metadata.resourceVersion ? mine.status : res.status;
  }

  private async writeStatus(
    res: PipelineResource,
    current: PipelineResourceStatus | undefined,
    next: PipelineResourceStatus,
  ): Promise<void> {
    await this.announce(current, res, next);
    try {
      await patchStatus(this.opts.kube, { ...res, ...(current && { status: current }) }, next);
      this.written.set(res.metadata.uid ?? res.metadata.name, { over: res.metadata.resourceVersion, status: next });
    } catch (error) {
      if (statusOf(error) !== 404) throw error; // deleted meanwhile
    }
  }

  private runtimeDue(name: string, action: string): boolean {
    const last = this.runtimeSent.get(name);
    const now = Date.now();
    if (last && last.action === action && now - last.at < RUNTIME_RESEND_MS) return false;
    this.runtimeSent.set(name, { action, at: now });
    return true;
  }

  /** An Event for each condition that changed status (`kubectl describe pipeline` tells the story). */
  private async announce(
    current: PipelineResourceStatus | undefined,
    res: PipelineResource,
    next: PipelineResourceStatus,
  ): Promise<void> {
    const before = new Map((current?.conditions ?? []).map((c) => [c.type, c.status]));
    for (const c of next.conditions ?? []) {
      if (before.get(c.type) === c.status || c.status === 'Unknown') continue;
      const bad = (c.type === 'Degraded') === (c.status === 'True') || (c.type === 'Compiled' && c.status === 'False');
      const reason = c.status === 'True' ? c.type : `Not${c.type}`;
      await this.event(res, bad ? 'Warning' : 'Normal', reason, `${c.reason}: ${c.message}`);
    }
  }

  private async event(res: PipelineResource, type: 'Normal' | 'Warning', reason: string, message: string) {
    await resourceEvent(this.opts.kube, res, type, reason, message).catch((error: unknown) => {
      this.opts.log.warn({ err: error }, 'pipeline resource event: %s', apiMessage(error));
    });
  }
}

/** The spec compiled as PUT compiles its body, or the 4xx body PUT would answer. */
function viewOf(
  res: PipelineResource,
  parsed: ReturnType<typeof PipelineResourceSpec.safeParse>,
  base: Omit<ResourceView, 'fields'>,
): { view: ResourceView } | { blocked: ErrorBody } {
  try {
    // A spec the CRD's schema let through but zod refuses: the API's body check names the field.
    const spec = parsed.success ? parsed.data : parseBody(PipelineResourceSpec, res.spec);
    const fields = compileCreateBody(createBodyOf(base.owner.name, spec));
    return { view: { ...base, fields } };
  } catch (error) {
    if (error instanceof SvcError) return { blocked: error.toBody() };
    return { blocked: { error_code: 'InvalidSpec', message: String(error), details: null } };
  }
}
