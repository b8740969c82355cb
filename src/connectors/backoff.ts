// Back-off between attempts of a failing transport: doubling from `first` up to `max`, and a sleep
// that an abort (the pipeline stopping) cuts short.

export interface Backoff {
  /** The delay before the next attempt; each call doubles it up to the maximum. */
  next(): number;
  reset(): void;
}

export function backoff(firstMs = 100, maxMs = 5_000): Backoff {
  let delay = firstMs;
  return {
    next() {
      const d = delay;
      delay = Math.min(maxMs, delay * 2);
      return d;
    },
    reset() {
      delay = firstMs;
    },
  };
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
