// Periodic tasks of the pipeline process (clock ticks, automatic checkpoints): a run that is still
// busy when the next is due is skipped, a failure is reported and the task goes on.

export class Periodic {
  private readonly timers: NodeJS.Timeout[] = [];
  private stopped = false;

  constructor(private readonly onError: (error: unknown) => void) {}

  every(ms: number, fn: () => Promise<void>): void {
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      fn()
        .catch(this.onError)
        .finally(() => (busy = false));
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }

  /**
   * `fn` again `ms` after each run has finished, not on a fixed beat: a task that takes long (a
   * checkpoint of a large state, during which steps wait) leaves the pipeline `ms` to work between.
   */
  afterEach(ms: number, fn: () => Promise<void>): void {
    const next = () => {
      if (this.stopped) return;
      const timer = setTimeout(() => {
        this.timers.splice(this.timers.indexOf(timer), 1);
        fn().catch(this.onError).finally(next);
      }, ms);
      timer.unref();
      this.timers.push(timer);
    };
    next();
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
  }
}
