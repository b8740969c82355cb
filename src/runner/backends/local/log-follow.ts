/**
 * The live lines of one pipeline's log, for any number of readers of GET /logs. The relay's tail
 * publishes each line once; a reader that joins gets the backlog up to that moment, then every line
 * published after it, with none lost or doubled (the backlog is read up to the tail's offset at the
 * moment the reader subscribed). Readers wait on a promise, never on a timer: an idle follow costs
 * nothing.
 */
export class LineFeed {
  private readonly readers = new Set<(line: string | undefined) => void>();
  private ended = false;

  publish(line: string): void {
    for (const r of this.readers) r(line);
  }

  /** The deployment is over: every reader's stream ends after the lines it already has. */
  end(): void {
    this.ended = true;
    for (const r of this.readers) r(undefined);
    this.readers.clear();
  }

  /**
   * The backlog (read by `backlog`, called right after subscribing), then new lines, until the feed
   * ends or `signal` aborts.
   */
  async *follow(backlog: () => Promise<string[]>, signal: AbortSignal): AsyncGenerator<string> {
    const queue: Array<string | undefined> = [];
    let wake: (() => void) | undefined;
    const reader = (line: string | undefined) => {
      queue.push(line);
      wake?.();
    };
    const onAbort = () => wake?.();
    if (this.ended) queue.push(undefined);
    else this.readers.add(reader);
    signal.addEventListener('abort', onAbort);
    try {
      yield* await backlog();
      while (!signal.aborted) {
        if (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        while (queue.length > 0 && !signal.aborted) {
          const line = queue.shift();
          if (line === undefined) return;
          yield line;
        }
      }
    } finally {
      this.readers.delete(reader);
      signal.removeEventListener('abort', onAbort);
    }
  }
}
