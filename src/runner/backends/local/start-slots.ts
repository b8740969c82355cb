import { availableParallelism } from 'node:os';

/**
 * How many pipeline processes may be starting at once. A start is CPU-bound for about a second
 * (module loading, compiling the engine's WebAssembly, loading the template); fifty at once on two
 * cores starved each other so long that artifact downloads timed out and /status went unanswered
 * (measured: 19 of 50 failed). A slot frees when the process says it is initialized, exits, or
 * after MAX_HOLD_MS (a process that hangs must not block the rest).
 *
 * Pipelines wait for a slot while still Stopped (`reserve`), not once Provisioning: the
 * provisioning timeout (20 s by default) then measures the start itself, not the queue; a hundred
 * started at once no longer time out at the back of it.
 */
export const DEFAULT_START_SLOTS = Math.max(2, 2 * availableParallelism());
const MAX_HOLD_MS = 30_000;
/** A reservation nobody claims (the pipeline was stopped while queued) frees its slot after this. */
const UNCLAIMED_MS = 10_000;

interface Waiter {
  id?: string;
  grant: () => void;
}

/** One slot held: released by `release` (or after its time), or ended to pass it on unfreed. */
class Hold {
  private held = true;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly free: () => void,
    ms: number,
    private readonly onEnd?: () => void,
  ) {
    this.timer = setTimeout(this.release, ms);
    this.timer.unref();
  }

  /** Frees the slot; idempotent. */
  readonly release = (): void => {
    if (this.end()) this.free();
  };

  /** Ends this hold without freeing the slot (it goes on under another hold). */
  end(): boolean {
    if (!this.held) return false;
    this.held = false;
    clearTimeout(this.timer);
    this.onEnd?.();
    return true;
  }
}

export class StartSlots {
  private busy = 0;
  private readonly waiting: Waiter[] = [];
  /** Slots granted to a pipeline that its provision has not claimed yet. */
  private readonly reserved = new Map<string, Hold>();

  /** `onGranted` hears of each pipeline whose queued reservation got its slot. */
  constructor(
    private readonly size: number = DEFAULT_START_SLOTS,
    private readonly onGranted: (pipelineId: string) => void = () => undefined,
  ) {}

  /**
   * True when `id` holds a slot (granted now or before); false when it waits in line: then
   * `onGranted(id)` is called when its turn comes.
   */
  reserve(id: string): boolean {
    if (this.reserved.has(id)) return true;
    if (this.waiting.some((w) => w.id === id)) return false;
    if (this.busy < this.size) {
      this.busy += 1;
      this.hold(id);
      return true;
    }
    this.waiting.push({
      id,
      grant: () => {
        this.hold(id);
        this.onGranted(id);
      },
    });
    return false;
  }

  /** The slot reserved for `id` as a running start's hold, or a new one (waited for) if none is. */
  async claim(id: string): Promise<() => void> {
    const reservation = this.reserved.get(id);
    if (!reservation?.end()) return this.acquire();
    return new Hold(this.free, MAX_HOLD_MS).release;
  }

  /** Waits for a slot; the returned release is idempotent. */
  async acquire(): Promise<() => void> {
    if (this.busy >= this.size) await new Promise<void>((grant) => this.waiting.push({ grant }));
    else this.busy += 1;
    return new Hold(this.free, MAX_HOLD_MS).release;
  }

  private hold(id: string): void {
    this.reserved.set(id, new Hold(this.free, UNCLAIMED_MS, () => this.reserved.delete(id)));
  }

  /** The slot passes straight to the next waiter (so `busy` stays the same), else it is free. */
  private readonly free = (): void => {
    const next = this.waiting.shift();
    if (next) next.grant();
    else this.busy -= 1;
  };
}
