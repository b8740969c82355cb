import { stripVTControlCharacters } from 'node:util';

// Why a vitest run failed, kept while its lines stream by, to be printed again at the very end of
// `npm test`. CI shows only the last lines of a run, and the two streams of run-suites.ts interleave:
// a failure in the clusters' stream scrolled away under the PGlite tests that ran after it, and
// two CI runs ended in "exit 1" with no failing test in sight.

/** Vitest's section headers, e.g. "⎯⎯⎯ Failed Tests 1 ⎯⎯⎯", "⎯⎯⎯ Unhandled Rejection ⎯⎯⎯". */
const SECTION = /^⎯+\s*(Failed Tests|Failed Suites|Unhandled Errors?|Unhandled Rejection)\b/;
/** The summary that ends a run's sections. */
const SUMMARY = /^\s*(Test Files|Tests|Errors)\s{2}/;
/** A failed file or test in the listing: "❯ a.test.ts (2 tests | 1 failed)", "× fails here". */
const MARK = /^\s*(❯ \S+\.test\.ts|×\s)/;
/** Frames inside vitest or a library tell nothing about the failure. */
const NOISE = /node_modules\//;

export interface RecapLimits {
  /** Failed files and tests of the listing. */
  marks: number;
  /** Lines of vitest's failure sections. */
  sections: number;
  /** Last lines of output, when the run printed no section (a global setup that threw, a crash). */
  tail: number;
}

// Small enough that the recap, the summary and the suites' lines fit the ~100 lines CI shows of a log.
const DEFAULT_LIMITS: RecapLimits = { marks: 12, sections: 60, tail: 40 };

export class FailureRecap {
  private readonly marks: string[] = [];
  private readonly sections: string[] = [];
  private readonly summary: string[] = [];
  private readonly tail: string[] = [];
  private inSection = false;
  private dropped = 0;

  constructor(private readonly limits: RecapLimits = DEFAULT_LIMITS) {}

  add(raw: string): void {
    const line = stripVTControlCharacters(raw).trimEnd();
    this.tail.push(line);
    if (this.tail.length > this.limits.tail) this.tail.shift();
    if (SUMMARY.test(line)) {
      this.inSection = false;
      this.summary.push(line.trim());
      return;
    }
    if (SECTION.test(line)) this.inSection = true;
    if (this.inSection) {
      if (NOISE.test(line) || (line === '' && this.sections.at(-1) === '')) return;
      if (this.sections.length < this.limits.sections) this.sections.push(line);
      else this.dropped++;
      return;
    }
    if (MARK.test(line) && this.marks.length < this.limits.marks) this.marks.push(line.trim());
  }

  /** What to print for a failed run: its failed tests, vitest's sections, or else its last lines. */
  lines(): string[] {
    if (this.sections.length === 0) return ['(no failure section; the last lines of the run:)', ...this.tail];
    const more = this.dropped > 0 ? [`… ${this.dropped} more lines in the output above`] : [];
    return [...this.marks, ...this.sections, ...more, ...this.summary];
  }
}
