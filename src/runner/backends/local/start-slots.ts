import { availableParallelism } from 'node:os';

/**
 * How many pipeline processes may be starting at once. A start is CPU-bound for about a second
 * (module loading, compiling the engine's WebAssembly, loading the template); fifty at once on two
 * cores starved each other so long that artifact downloads timed out and /status went unanswered
 * (measured: 19 of 50 failed). Queued starts cost nothing; the slot frees when the process says it
 * is initialized, exits, or after MAX_HOLD_MS (a process that hangs must not block the rest).
 */
export const DEFAULT_START_SLOTS = Math.max(2, 2 * availableParallelism());
const MAX_HOLD_MS = 30_000;

export class StartSlots {
  private busy = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number = DEFAULT_START_SLOTS) {}

  /** Waits for a slot; the returned release is idempotent. */
  async acquire(): Promise<() => void> {
    if (this.busy >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.busy += 1;
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      clearTimeout(timer);
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `busy` stays the same.
      if (next) next();
      else this.busy -= 1;
    };
    const timer = setTimeout(release, MAX_HOLD_MS);
    timer.unref();
    return release;
  }
}
