// A pipeline process's readable (pino-pretty) log writes one event as several physical lines: the
// head `[time] INFO (target): message`, then its fields and stack frames indented below it. The
// runner relays events, not lines (seed 6.3 rule 5: `fields.line`), so indented lines are joined to
// the event above them. JSON logs are one event a line and pass through as they are.

/** How long an event waits for more indented lines before it is relayed. */
export const EVENT_SETTLE_MS = 50;

const CONTINUATION = /^[ \t]/;

export interface EventGrouperIo {
  onEvent: (event: string) => void;
  setTimer?: (fn: () => void, ms: number) => { unref?: () => unknown };
  clearTimer?: (timer: { unref?: () => unknown }) => void;
}

export class EventGrouper {
  private pending: string[] = [];
  private timer: { unref?: () => unknown } | undefined;
  private readonly setTimer: NonNullable<EventGrouperIo['setTimer']>;
  private readonly clearTimer: NonNullable<EventGrouperIo['clearTimer']>;

  constructor(private readonly io: EventGrouperIo) {
    this.setTimer = io.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = io.clearTimer ?? ((t) => clearTimeout(t as NodeJS.Timeout));
  }

  push(line: string): void {
    // An indented line with no event above it (the file's first line) stands alone.
    if (!(CONTINUATION.test(line) && this.pending.length > 0)) this.flush();
    this.pending.push(line);
    if (this.timer) this.clearTimer(this.timer);
    this.timer = this.setTimer(() => this.flush(), EVENT_SETTLE_MS);
    this.timer.unref?.();
  }

  /** Relays the event being gathered, if any (also when the process's log ends). */
  flush(): void {
    if (this.timer) this.clearTimer(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const event = this.pending.join('\n');
    this.pending = [];
    this.io.onEvent(event);
  }
}
