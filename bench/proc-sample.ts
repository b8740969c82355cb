import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

// CPU time and memory of a process from /proc (Linux), and a sampler that keeps the peak RSS.

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** utime + stime of `pid` in seconds, or NaN when it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    // "pid (comm) state ppid …": fields after the ')' start at field 3; utime and stime are 14 and 15.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return NaN;
  }
}

/** A field of /proc/<pid>/status in MiB (VmRSS, VmHWM), or NaN. */
export function statusMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${field}:`));
    return Number(/(\d+)/.exec(line ?? '')?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

export interface CpuMark {
  at: number;
  cpu: Record<string, number>;
}

/** CPU seconds of each named pid now. */
export function mark(pids: Record<string, number>): CpuMark {
  return { at: performance.now(), cpu: Object.fromEntries(Object.entries(pids).map(([n, p]) => [n, cpuSeconds(p)])) };
}

/** % of one core of each process between two marks. */
export function cpuPct(from: CpuMark, to: CpuMark): Record<string, number> {
  const s = (to.at - from.at) / 1000;
  return Object.fromEntries(
    Object.keys(to.cpu).map((n) => [n, (((to.cpu[n] ?? NaN) - (from.cpu[n] ?? NaN)) / s) * 100]),
  );
}

/** Samples the RSS of `pid` every `everyMs`; `stop()` returns the peak seen and the last sample. */
export function rssSampler(pid: number, everyMs = 500): { stop(): { peakMiB: number; lastMiB: number } } {
  let peak = 0;
  let last = NaN;
  const take = () => {
    last = statusMiB(pid, 'VmRSS');
    if (last > peak) peak = last;
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return { peakMiB: peak, lastMiB: last };
    },
  };
}
