import type { Logger } from '../logging/logger.js';
import type { DeploymentConfig, ExtendedRuntimeStatus } from '../model/deployment.js';
import { SvcError } from '../model/errors.js';
import type { RuntimeStatus } from '../model/status.js';
import type { PipelineArtifact } from './artifact.js';
import { bootEngine } from './boot.js';
import { Periodic } from './periodic.js';
import { InputHold } from './input-hold.js';
import { watchMemory } from './memory-watch.js';
import { type Checkpoint, CheckpointStore, type CheckpointSummary } from './checkpoints.js';
import {
  checkpointDue,
  type Covered,
  restoreCheckpoint,
  type WithPositions,
  writeCheckpoint,
} from './checkpointing.js';
import type { SayProgress } from './progress.js';
import { Clock, startingNow } from './clock.js';
import type { ThreadEngine } from '../engine/host/thread-engine.js';
import { StepScheduler, type StepTiming } from '../engine/scheduler.js';
import type { JsonValue } from '../model/json.js';
import { activate, bootstrapDecision, type Desired, requestDesired, settledStatus } from './runtime-status.js';
import type { ProcessSettings } from './settings.js';

// The running pipeline: start-up (artifact → engine → bootstrap decision → replay → --initial), the
// runtime status and its desired status, checkpoints and the clock. HTTP (http.ts) only translates.

/** How long close() waits for a running step or checkpoint before it ends the engine's thread. */
const CLOSE_WAIT_MS = 10_000;

const notReady = (status: RuntimeStatus): SvcError =>
  new SvcError(503, 'PipelineNotReady', `the pipeline is not ready (runtime status ${status})`, { status });

export class PipelineController {
  private statusValue: RuntimeStatus = 'Initializing';
  private desiredValue: Desired;
  private fatal: SvcError | undefined;
  private engine: ThreadEngine | undefined;
  private clock: Clock | undefined;
  private scheduler: StepScheduler | undefined;
  private artifact: PipelineArtifact | undefined;
  private approved: (() => void) | undefined;
  /** What the last checkpoint written or resumed from holds (see checkpointDue). */
  private checkpointed: Covered | undefined;
  private readonly periodic = new Periodic((error) =>
    this.log.error({ error }, 'periodic task failed: %s', (error as Error).message),
  );
  /** Checkpoints and suspends take turns: each dumps the engine once, whole. */
  private turn: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly startedHooks: (() => void)[] = [];
  /** The connectors' error sum for /status (src/connectors; set by the HTTP layer that owns them). */
  connectorErrors: () => number = () => 0;
  /**
   * The engine's dump for a checkpoint, with the input connectors' positions that match it exactly
   * (src/connectors/runtime.ts holds their ingests while the dump is queued). Set by the HTTP layer.
   */
  dumpWithPositions: WithPositions = (dump) => dump().then(() => ({}));
  /** The input connectors' positions of the checkpoint this run resumed from. */
  resumedPositions: Record<string, JsonValue> | undefined;
  readonly store: CheckpointStore;
  readonly startedAt = Date.now();
  /** Input backpressure under memory pressure: ingress and input connectors wait while it is held. */
  readonly inputHold: InputHold;

  constructor(
    readonly config: DeploymentConfig,
    readonly settings: ProcessSettings,
    initial: Desired,
    private readonly log: Logger,
    /** What the process was started with (`--initdb-dump`, `--cpu-cores`): see BootOptions. */
    private readonly host: { initdbDump?: string; cores?: number } = {},
  ) {
    this.desiredValue = initial;
    this.store = new CheckpointStore(config.storage_path, undefined, settings.storageMaxBytes);
    this.inputHold = new InputHold(settings.memoryBudgetMb);
  }

  get status(): RuntimeStatus {
    return this.statusValue;
  }
  get desired(): Desired {
    return this.desiredValue;
  }
  get fatalError(): SvcError | undefined {
    return this.fatal;
  }

  private setStatus(to: RuntimeStatus): void {
    const from = this.statusValue;
    if (from === to) return;
    this.statusValue = to;
    this.log.info({ from, to, desired: this.desiredValue }, 'runtime status changed from %s to %s', from, to);
    this.scheduler?.consider();
  }

  /** Steps run while the pipeline runs or is paused (a pause stops input, not the draining of it). */
  private get stepping(): boolean {
    return (
      !this.closed && this.fatal === undefined && (this.statusValue === 'Running' || this.statusValue === 'Paused')
    );
  }

  /**
   * The data path's engine (ingest, steps' outputs, snapshots, queries), once the pipeline has
   * started: undefined before. The HTTP data routes use it; steps are the scheduler's business.
   */
  get dataEngine(): ThreadEngine | undefined {
    return this.scheduler && this.engine;
  }

  /** What the steps have taken so far (zero before the first). */
  get stepTiming(): StepTiming {
    return this.scheduler?.timing ?? { steps: 0, totalMs: 0, lastMs: 0 };
  }

  /**
   * Start-up. Resolves once the process has reached its initial status, or is waiting for approval
   * (then it goes on in the background), or holds a fatal error. Rejects when the program cannot be
   * loaded at all: the process then exits, and the runner reports its exit code and last lines.
   */
  async load(): Promise<void> {
    const t0 = Date.now();
    const { artifact, engine, phases } = await bootEngine(
      {
        config: this.config,
        settings: this.settings,
        log: this.log,
        initdbDump: this.host.initdbDump,
        cores: this.host.cores,
        onEngineExit: (error) => this.fail(error, 'PipelineEngineFailed'),
      },
      t0,
    );
    this.artifact = artifact;
    this.engine = engine;
    const tables = this.engine.tables;
    const { latest, unreadable } = await this.store.open();
    if (unreadable.length > 0) this.log.warn({ unreadable }, 'unreadable checkpoint files were skipped');
    this.log.info(
      { ms: Date.now() - t0, ...phases, tables: tables.length, checkpoint: latest?.id ?? null },
      'program loaded',
    );
    const decision = bootstrapDecision(
      latest?.program_checksum,
      this.artifact.source_checksum,
      this.config.bootstrap_policy,
    );
    switch (decision.kind) {
      case 'fresh':
        return this.finish(undefined);
      case 'replay':
        this.setStatus('Replaying');
        if (latest) {
          const { skipped: _, ...resumed } = await restoreCheckpoint(this.engine, latest, true, this.sayProgress);
          this.log.info(resumed, 'resumed from checkpoint %s', latest.id);
          // The state is that checkpoint's until input or a step changes it (a bootstrap's is not).
          this.checkpointed = { version: this.engine.stateVersion, nowMs: latest.now_ms };
        }
        return this.finish(latest);
      case 'bootstrap':
        return this.bootstrap(latest);
      case 'await_approval':
        this.setStatus('AwaitingApproval');
        void new Promise<void>((resolve) => (this.approved = resolve))
          .then(() => this.bootstrap(latest))
          .catch((error: unknown) => this.fail(error));
        return;
      case 'reject':
        this.fatal = decision.error;
        this.log.error({ error: decision.error.toBody() }, 'pipeline cannot start: %s', decision.error.message);
        return;
    }
  }

  private async bootstrap(latest: Checkpoint | undefined): Promise<void> {
    this.setStatus('Bootstrapping');
    if (latest && this.engine) {
      const { restored, skipped, ms } = await restoreCheckpoint(this.engine, latest, false, this.sayProgress);
      this.log.info({ restored, skipped, ms }, 'bootstrapped the changed program from checkpoint %s', latest.id);
    }
    await this.finish(latest);
  }

  private changedSinceCheckpoint(): boolean {
    const { engine, clock } = this;
    if (!engine || !clock) return true;
    const now = { version: engine.stateVersion, nowMs: clock.now() };
    return checkpointDue(this.checkpointed, now, this.settings.nowOffsetMs !== undefined);
  }

  private readonly sayProgress: SayProgress = (fields, message) => this.log.info(fields, message);

  private fail(error: unknown, code = 'PipelineStartFailed'): void {
    this.fatal = new SvcError(500, code, (error as Error).message);
    this.log.error({ error, error_code: code }, 'pipeline failed: %s', (error as Error).message);
  }

  /** NOW() moves: a program that reads it gets a step even without input. */
  private async setNow(ms: number): Promise<void> {
    await this.engine?.setNow(ms);
    if (this.engine?.usesNow) this.scheduler?.requestStep();
  }

  private async finish(resumedFrom: Checkpoint | undefined): Promise<void> {
    if (this.closed) return;
    const { settings } = this;
    const start = startingNow({ offsetMs: settings.nowOffsetMs, journaledMs: resumedFrom?.now_ms, wallMs: Date.now() });
    this.resumedPositions = resumedFrom?.connectors;
    const clock = new Clock({ start, httpDriven: settings.nowHttpDriven, resolutionMs: settings.clockResolutionMs });
    this.clock = clock;
    const engine = this.engine;
    if (!engine) return;
    await engine.setNow(clock.now());
    const scheduler = new StepScheduler(engine, {
      minBatchRecords: settings.minBatchSizeRecords,
      maxDelayMs: settings.maxBufferingDelayMs,
      enabled: () => this.stepping,
      onError: (error) => this.fail(error, 'PipelineStepFailed'),
    });
    this.scheduler = scheduler;
    engine.onIngest(() => scheduler.inputArrived());
    // NOW() moves at most once per clock resolution, and only while the pipeline runs.
    this.periodic.every(settings.clockResolutionMs, async () => {
      if (this.statusValue !== 'Running') return;
      const before = clock.now();
      if (clock.tick() !== before) await this.setNow(clock.now());
    });
    if (settings.checkpointIntervalSecs !== undefined)
      this.periodic.afterEach(settings.checkpointIntervalSecs * 1000, async () => {
        if (this.statusValue !== 'Running' && this.statusValue !== 'Paused') return;
        // An idle pipeline would otherwise rewrite its whole state every interval for nothing.
        if (this.changedSinceCheckpoint()) await this.checkpoint();
      });
    watchMemory(this.periodic, this.inputHold, this.log);
    // Before the first step can run: output connectors subscribe to steps in the hook.
    for (const hook of this.startedHooks) hook();
    this.setStatus(settledStatus(this.desiredValue));
    this.log.info(
      { status: this.statusValue, uptime_ms: Date.now() - this.startedAt, now: new Date(clock.now()).toISOString() },
      'pipeline initialization complete',
    );
  }

  /** Called once the engine and its steps run (connectors start then). */
  onStarted(hook: () => void): void {
    this.startedHooks.push(hook);
  }

  get programInfo(): PipelineArtifact['program_info'] | undefined {
    return this.artifact?.program_info;
  }

  private get ready(): boolean {
    return ['Paused', 'Running', 'Standby'].includes(this.statusValue);
  }

  private throwIfFatal(): void {
    if (this.fatal) throw this.fatal;
  }

  /** GET /start and GET /pause: the desired status moves; the status follows once loaded. */
  setDesired(to: 'Running' | 'Paused'): void {
    this.throwIfFatal();
    const result = requestDesired(this.desiredValue, to);
    if (!result.ok) throw result.error;
    this.desiredValue = result.desired;
    if (this.ready) this.setStatus(settledStatus(this.desiredValue));
  }

  activate(to: 'Running' | 'Paused'): void {
    this.throwIfFatal();
    const result = activate(this.desiredValue, to);
    if (!result.ok) throw result.error;
    this.desiredValue = result.desired;
    if (this.ready) this.setStatus(settledStatus(this.desiredValue));
  }

  approve(): void {
    this.throwIfFatal();
    if (this.statusValue !== 'AwaitingApproval' || !this.approved)
      throw new SvcError(400, 'NotAwaitingApproval', `the pipeline is not awaiting approval (${this.statusValue})`, {
        status: this.statusValue,
      });
    const go = this.approved;
    this.approved = undefined;
    go();
  }

  async checkpoint(): Promise<CheckpointSummary> {
    this.throwIfFatal();
    const { engine, clock, artifact } = this;
    if (!this.ready || !engine || !clock || !artifact) throw notReady(this.statusValue);
    const run = this.turn.then(async () => {
      const head = { program_checksum: artifact.source_checksum, now_ms: clock.now() };
      // Taken before the dump is queued: an ingest queued ahead of it only makes the next one due.
      const covers = { version: engine.stateVersion, nowMs: head.now_ms };
      const written = await writeCheckpoint(this.store, engine, head, this.dumpWithPositions, this.sayProgress);
      this.checkpointed = covers;
      this.log.info({ checkpoint: written.id, rows: written.rows }, 'checkpoint written');
      return written;
    });
    this.turn = run.catch(() => undefined);
    return run;
  }

  /**
   * SIGTERM with `--checkpoint-on-exit` (the template's; issue 29), under fault tolerance: what was
   * acknowledged goes into a checkpoint before the exit (a drain resumes from it), if anything is new.
   */
  async checkpointOnExit(): Promise<CheckpointSummary | undefined> {
    const due = this.settings.checkpointIntervalSecs !== undefined && this.fatal === undefined && this.ready;
    return due && this.changedSinceCheckpoint() ? this.checkpoint() : undefined;
  }

  /** POST /suspend: a checkpoint, then Suspended (the runner then stops the process). */
  async suspend(): Promise<CheckpointSummary | undefined> {
    this.throwIfFatal();
    const result = requestDesired(this.desiredValue, 'Suspended');
    if (!result.ok) throw result.error;
    if (this.statusValue === 'Suspended') return undefined;
    if (!this.ready) throw notReady(this.statusValue);
    const written = await this.checkpoint();
    this.desiredValue = 'Suspended';
    this.setStatus('Suspended');
    return written;
  }

  async advanceClock(deltaMs: number): Promise<number> {
    this.throwIfFatal();
    if (!this.clock || !this.engine) throw notReady(this.statusValue);
    const now = this.clock.advance(deltaMs);
    await this.setNow(now);
    return now;
  }

  now(): number | undefined {
    return this.clock?.now();
  }

  /** GET /status: the fatal error (a non-200 body) or the status of LIFECYCLE.md. */
  extendedStatus(): ExtendedRuntimeStatus {
    this.throwIfFatal();
    return {
      runtime_status: this.statusValue,
      runtime_status_details: { connector_stats: { num_errors: this.connectorErrors() } },
      runtime_desired_status: this.desiredValue,
      storage_status_details: { checkpoints: this.store.summaries().map((c) => ({ ...c })) },
    };
  }

  rowCounts(): Promise<Record<string, number>> {
    return this.engine?.rowCounts() ?? Promise.resolve({});
  }

  get programChecksum(): string | undefined {
    return this.artifact?.source_checksum;
  }

  /**
   * Stops: the running step and checkpoint get CLOSE_WAIT_MS to finish, then the engine's thread is
   * ended whatever it does (an orphaned process must exit even when its engine is stuck).
   */
  async close(): Promise<void> {
    this.closed = true;
    this.periodic.stop();
    this.scheduler?.stop();
    const settled = Promise.all([this.scheduler?.idle(), this.turn]).then(() => undefined);
    const waited = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref());
    await Promise.race([settled, waited]);
    await this.engine?.close();
    this.engine = undefined;
  }
}
