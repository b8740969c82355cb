// The figures of one path of an in-process engine run (bench:native, bench:events: the same
// batches with the native path on, then off), and their line in the output.

export interface PathFigures {
  native: boolean;
  /** Which rule each view got: `view: native`, `view: recompute`… */
  kept: string;
  recordsPerS: number;
  medianStepMs: number;
}

export function pathFigures(
  native: boolean,
  kept: readonly string[],
  records: number,
  seconds: number,
  steps: readonly number[],
): PathFigures {
  const sorted = [...steps].sort((a, b) => a - b);
  return {
    native,
    kept: kept.join(', '),
    recordsPerS: Math.round(records / seconds),
    medianStepMs: Math.round(sorted[Math.floor(sorted.length / 2)] ?? NaN),
  };
}

export const pathLine = (r: PathFigures): string =>
  `native=${String(r.native).padEnd(5)}  ${String(r.recordsPerS).padStart(7)} records/s  median step ${r.medianStepMs} ms  (${r.kept})\n`;
