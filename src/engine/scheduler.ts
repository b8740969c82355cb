// When steps run (seed 2.6): as soon as input is buffered, unless `min_batch_size_records` asks to
// wait for that many records; then at the latest `max_buffering_delay_usecs` after the first of
// them arrived. A clock tick of a program that uses NOW() asks for a step even without input. One
// step at a time: input that arrives during a step goes into the next, which is what batches
// records under load. Timers and the clock are passed in, so tests drive them.

export interface SchedulerIo {
  /** Milliseconds, monotonic enough for delays. */
  now(): number;
  /** Runs `fn` after `ms`; returns a cancel. */
  setTimer(ms: number, fn: () => void): () => void;
}

export const realIo: SchedulerIo = {
  now: () => performance.now(),
  setTimer(ms, fn) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export interface Steppable {
  readonly bufferedRecords: number;
  step(): Promise<unknown>;
}

export interface SchedulerOptions {
  minBatchRecords: number;
  maxDelayMs: number;
  /** Whether steps may run now (the pipeline runs or is paused, not initializing or stopping). */
  enabled: () => boolean;
  onError: (error: unknown) => void;
}

/** What the steps took, as the scheduler timed them (the step time of /stats and /metrics). */
export interface StepTiming {
  steps: number;
  totalMs: number;
  lastMs: number;
}

export class StepScheduler {
  /** Read by /stats and /metrics; the scheduler is the one caller of step(), so it sees every step. */
  readonly timing: StepTiming = { steps: 0, totalMs: 0, lastMs: 0 };
  private running: Promise<void> | undefined;
  private forced = false;
  private firstBufferedAt: number | undefined;
  private cancelTimer: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly engine: Steppable,
    private readonly opts: SchedulerOptions,
    private readonly io: SchedulerIo = realIo,
  ) {}

  /** Input was buffered (the engine's ingest listener). */
  inputArrived(): void {
    if (this.firstBufferedAt === undefined && this.engine.bufferedRecords > 0) this.firstBufferedAt = this.io.now();
    this.consider();
  }

  /** A clock tick of a NOW() program, or a request to flush: a step runs even without input. */
  requestStep(): void {
    this.forced = true;
    this.consider();
  }

  /** Resolves when no step is running (tests, checkpoints). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  stop(): void {
    this.stopped = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }

  /** Decides: step now, wait for the delay, or nothing to do. Called on every event. */
  consider(): void {
    if (this.stopped || this.running || !this.opts.enabled()) return;
    const buffered = this.engine.bufferedRecords;
    if (buffered === 0 && !this.forced) {
      this.firstBufferedAt = undefined;
      return;
    }
    // Input buffered before the scheduler heard of it (restored from a checkpoint) waits from now.
    this.firstBufferedAt ??= buffered > 0 ? this.io.now() : undefined;
    const waited = this.firstBufferedAt === undefined ? Infinity : this.io.now() - this.firstBufferedAt;
    if (this.forced || buffered >= this.opts.minBatchRecords || waited >= this.opts.maxDelayMs) {
      this.runStep();
      return;
    }
    if (!this.cancelTimer) {
      this.cancelTimer = this.io.setTimer(this.opts.maxDelayMs - waited, () => {
        this.cancelTimer = undefined;
        this.consider();
      });
    }
  }

  private runStep(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.forced = false;
    this.firstBufferedAt = undefined;
    const startedAt = this.io.now();
    this.running = this.engine
      .step()
      .then(
        () => {
          const ms = this.io.now() - startedAt;
          this.timing.steps += 1;
          this.timing.totalMs += ms;
          this.timing.lastMs = ms;
        },
        (error: unknown) => {
          // A step that fails (a view's query raising an error on this input) would fail again on
          // the same input: the scheduler stops and the pipeline reports the error.
          this.stop();
          this.opts.onError(error);
        },
      )
      .finally(() => {
        this.running = undefined;
        this.consider();
      });
  }
}
