import type { StatePage } from '../engine/state.js';

// Long work on a large state (a checkpoint, a resume) says how far it is: every `everyMs` a log line
// with the rows done so far and the time taken, so that minutes of silence are not mistaken for a hang.

export interface Progress {
  /** `n` more rows done. */
  add(n: number): void;
  readonly rows: number;
}

/** Where a progress line goes (the pipeline's log). */
export type SayProgress = (fields: { rows: number; ms: number }, message: string) => void;

export function progress(say: SayProgress, message: string, everyMs = 10_000, now: () => number = Date.now): Progress {
  const start = now();
  let last = start;
  let rows = 0;
  return {
    add(n: number) {
      rows += n;
      const t = now();
      if (t - last < everyMs) return;
      last = t;
      say({ rows, ms: t - start }, message);
    },
    get rows() {
      return rows;
    },
  };
}

/** The same pages, counted as they are read. */
export async function* counted(pages: AsyncIterable<StatePage>, into: Progress): AsyncGenerator<StatePage> {
  for await (const page of pages) {
    into.add(page.rows.length);
    yield page;
  }
}
