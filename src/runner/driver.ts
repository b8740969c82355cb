import { hostname } from 'node:os';
import type { RunnerSettings } from '../lifecycle/resources.js';
import { forPipeline, forTarget, type Logger } from '../logging/logger.js';
import type { Database } from '../store/database.js';
import { beat } from '../store/heartbeat.js';
import { readPipelineKey } from '../store/platform-secret.js';
import { type ActivePipeline, activePipelineIds } from '../store/runner/queries.js';
import type { Backend } from './backend.js';
import type { RunnerMetrics } from './metrics.js';
import { type ArtifactLocator, namespaceOf } from './deployment-config.js';
import { reconcileOnce, type StepResult } from './reconcile.js';
import { beginLook, endLook, forget, newSlot, noteWake, type Reason, type Slot } from './slot.js';
import { watchPipelines } from './watches.js';
import { writeBatcher } from './write-batch.js';

// The runner's driver (LIFECYCLE.md): event-driven, one pipeline's work never waits for another's,
// one reconcile at a time per pipeline. NOTIFY and backend events wake a pipeline at once; the polls
// are only a safety net (watches.ts lists every source of wake-ups).

export interface RunnerOptions {
  db: Database;
  log: Logger;
  backend: Backend;
  artifacts: ArtifactLocator;
  settings: RunnerSettings;
  /** Safety-net poll of transitional pipelines (Provisioned ones every 2.5 polls). */
  pollMs?: number;
  now?: () => number;
  metrics?: RunnerMetrics;
}

export interface Runner {
  instance: string;
  /** Looks at a pipeline soon, reading its row again (as after a NOTIFY). */
  wake(pipelineId: string): void;
  close(): Promise<void>;
}

/** Back-off after failures (LIFECYCLE.md): 5, 10, 30, 60 s, … up to 20 minutes. */
const BACKOFF_MS = [5_000, 10_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_200_000];
const HEARTBEAT_MS = 10_000;
/** Pipelines the poll wakes per turn of the event loop. */
const POLL_BATCH = 16;

/** Provisioned pipelines every 2.5 polls (ticks 0 and 2 of 5), the others on every poll. */
const duePoll = (status: string, tick: number): boolean => status !== 'Provisioned' || tick % 5 === 0 || tick % 5 === 2;

export async function startRunner(opts: RunnerOptions): Promise<Runner> {
  const log = forTarget(opts.log, 'svc::runner');
  const deps = {
    ...opts,
    platformKey: await readPipelineKey(opts.db),
    now: opts.now ?? Date.now,
    write: writeBatcher(opts.db, (n) => opts.metrics?.writeStatements.observe(n)),
  };
  const slots = new Map<string, Slot>();
  const instance = `${hostname()}:${process.pid}`;
  let closed = false;

  const describe = (r: StepResult, wokenAt: number | undefined, lookedAt: number) => {
    const { before, row } = r;
    if (!before || !row || before.deployment_resources_status === row.deployment_resources_status) return;
    if (before.deployment_resources_status === 'Provisioning' && row.deployment_resources_status === 'Provisioned') {
      const since = Date.parse(before.deployment_resources_status_since);
      opts.metrics?.provisioningSeconds.observe((Date.parse(row.deployment_resources_status_since) - since) / 1000);
    }
    opts.backend.onTransition?.({
      pipelineId: row.id,
      pipelineName: row.name,
      namespace: namespaceOf(row),
      from: before.deployment_resources_status,
      to: row.deployment_resources_status,
      ...(row.deployment_error && { error: row.deployment_error }),
    });
    forPipeline(log, row).info(
      {
        deployment_id: row.deployment_id ?? before.deployment_id,
        error: row.deployment_error?.error_code,
        // From the event (NOTIFY, backend, poll) that made the runner look to this write.
        wake_to_write_ms: wokenAt === undefined ? undefined : deps.now() - wokenAt,
        // This look alone (the rest of wake_to_write_ms waited for a look in flight or for the event loop).
        look_ms: deps.now() - lookedAt,
      },
      'resources status %s → %s',
      before.deployment_resources_status,
      row.deployment_resources_status,
    );
  };

  const run = async (id: string, slot: Slot) => {
    slot.busy = true;
    try {
      do {
        slot.again = false;
        const { known, wokenAt } = beginLook(slot);
        const lookedAt = deps.now();
        opts.metrics?.rowReads.inc({ source: known ? 'memory' : 'database' });
        const timer = opts.metrics?.reconcileSeconds.startTimer();
        const result = await reconcileOnce(deps, id, known).catch((error: unknown) => {
          timer?.({ outcome: 'error' });
          throw error;
        });
        timer?.({ outcome: result.wrote ? 'wrote' : result.conflict ? 'conflict' : 'unchanged' });
        describe(result, wokenAt, lookedAt);
        slot.failures = 0;
        endLook(slot, result.row);
        // After a write: the next step of the automaton, from the row as written. After a conflict:
        // read what the other writer left and decide again.
        if (result.wrote || result.conflict) slot.again = true;
      } while (slot.again && !closed);
      slot.lastRun = deps.now();
    } catch (error) {
      const delay = BACKOFF_MS[Math.min(slot.failures, BACKOFF_MS.length - 1)] ?? 1_200_000;
      slot.failures += 1;
      forget(slot);
      log.warn({ err: error, pipeline_id: id, retry_in_ms: delay }, 'reconcile failed: %s', (error as Error).message);
      // The back-off timer looks again; a wake-up that came in meanwhile must not bypass it.
      slot.again = false;
      if (!closed) slot.retry = setTimeout(() => wake(id, { kind: 'retry' }), delay);
    } finally {
      slot.busy = false;
    }
  };

  const wake = (id: string, reason: Reason) => {
    if (closed) return;
    let slot = slots.get(id);
    if (!slot) {
      slot = newSlot();
      slots.set(id, slot);
    }
    noteWake(slot, reason, deps.now());
    if (slot.retry) {
      clearTimeout(slot.retry);
      slot.retry = undefined;
    }
    if (slot.busy) slot.again = true;
    else void run(id, slot);
  };

  // What wakes a pipeline: watches.ts lists every source.
  const unwatch = await watchPipelines(opts.db, opts.backend, wake);

  let tick = 0;
  /** Whether the last poll found a pipeline in a state polled every period (not Provisioned). */
  let transitional = true;
  const pollMs = opts.pollMs ?? 1_000;
  const pollOne = (p: ActivePipeline, recent: number) => {
    const slot = slots.get(p.id);
    // A row changed behind the runner's back (no NOTIFY for it) is not reused by any later look.
    if (slot?.row && slot.row.row_version !== p.row_version) forget(slot);
    if (duePoll(p.deployment_resources_status, tick) && (slot?.lastRun ?? 0) <= recent)
      wake(p.id, { kind: 'poll', rowVersion: p.row_version });
  };
  const poll = async () => {
    tick += 1;
    // Nothing polled every period last time: the query itself waits for the 2.5-period turn (an
    // idle manager asked PGlite for nothing every second). Starts and stops arrive by NOTIFY anyway.
    if (!transitional && !duePoll('Provisioned', tick)) return;
    try {
      // A safety net only: a pipeline an event or NOTIFY made the runner look at within this
      // period is skipped (with hundreds starting at once, redundant looks crowded out the ones
      // events asked for: bench/results/2026-11-22-kubernetes.md).
      const recent = deps.now() - pollMs;
      const active = await activePipelineIds(opts.db);
      transitional = active.some((p) => p.deployment_resources_status !== 'Provisioned');
      // In batches, each in a turn of the event loop of its own: a woken look runs its first steps
      // (for a health look, sending its /status request) at once, so waking 200 in one turn blocked
      // the loop for ~100 ms on a busy machine while pod events waited (bench/results).
      for (let i = 0; i < active.length; i += POLL_BATCH) {
        if (i > 0) await new Promise((resolve) => setImmediate(resolve));
        for (const p of active.slice(i, i + POLL_BATCH)) pollOne(p, recent);
      }
      // Pipelines at rest are looked at again only after a NOTIFY: nothing of theirs needs keeping.
      const ids = new Set(active.map((p) => p.id));
      for (const [id, slot] of slots) if (!ids.has(id) && !slot.busy && !slot.retry) slots.delete(id);
    } catch (error) {
      transitional = true;
      log.warn({ err: error }, 'runner poll failed: %s', (error as Error).message);
    }
  };
  const pollTimer = setInterval(() => void poll(), pollMs);
  const heartbeat = () => beat(opts.db, 'runner', instance, opts.backend.name).catch(() => undefined);
  await heartbeat();
  const beatTimer = setInterval(() => void heartbeat(), HEARTBEAT_MS);
  // Adopt what is already there: every pipeline not at rest gets a look now.
  await poll();
  log.info({ backend: opts.backend.name, instance }, 'runner started (%s backend)', opts.backend.name);

  return {
    instance,
    wake: (id) => wake(id, { kind: 'notify' }),
    async close() {
      closed = true;
      clearInterval(pollTimer);
      clearInterval(beatTimer);
      for (const slot of slots.values()) if (slot.retry) clearTimeout(slot.retry);
      await unwatch();
      // Let in-flight reconciles finish their write.
      while ([...slots.values()].some((s) => s.busy)) await new Promise((r) => setTimeout(r, 20));
    },
  };
}
