// Periodic tasks of the pipeline process (clock ticks, automatic checkpoints): a run that is still
// busy when the next is due is skipped, a failure is reported and the task goes on.

export class Periodic {
  private readonly timers: NodeJS.Timeout[] = [];

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

  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
  }
}
