import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { say } from './common.js';

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
  machine: MachineCpu;
}

/** The whole machine's CPU (all cores) in seconds, and the time some task waited for a CPU (PSI). */
interface MachineCpu {
  busy: number;
  /** Of `busy`: processes at a nice value above 0 (the test cluster's request-less pods run at 19). */
  niced: number;
  /** Time the hypervisor ran something else on this machine's virtual CPUs. */
  steal: number;
  /** /proc/pressure/cpu "some": time during which at least one runnable task had no CPU. */
  waiting: number;
}

function machineCpu(): MachineCpu {
  try {
    // cpu  user nice system idle iowait irq softirq steal …
    const [user, nice, system, , , irq, softirq, steal] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
      .split(/\s+/)
      .slice(1)
      .map((v) => Number(v) / CLK_TCK);
    const some = /^some .*total=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1];
    return {
      busy: (user ?? NaN) + (nice ?? NaN) + (system ?? NaN) + (irq ?? NaN) + (softirq ?? NaN),
      niced: nice ?? NaN,
      steal: steal ?? NaN,
      waiting: Number(some ?? NaN) / 1e6,
    };
  } catch {
    return { busy: NaN, niced: NaN, steal: NaN, waiting: NaN };
  }
}

/** CPU seconds of each named pid now, and of the whole machine. */
export function mark(pids: Record<string, number>): CpuMark {
  return {
    at: performance.now(),
    cpu: Object.fromEntries(Object.entries(pids).map(([n, p]) => [n, cpuSeconds(p)])),
    machine: machineCpu(),
  };
}

/**
 * % of one core of each process between two marks, then the machine's rows: every process, those
 * at nice > 0, steal (all % of one core), and the % of the time a runnable task waited for a CPU.
 */
export function cpuPct(from: CpuMark, to: CpuMark): Record<string, number> {
  const s = (to.at - from.at) / 1000;
  const pct = (a: number | undefined, b: number | undefined) => (((b ?? NaN) - (a ?? NaN)) / s) * 100;
  return {
    ...Object.fromEntries(Object.keys(to.cpu).map((n) => [n, pct(from.cpu[n], to.cpu[n])])),
    'whole machine (all processes)': pct(from.machine.busy, to.machine.busy),
    '… at nice > 0 (request-less pods)': pct(from.machine.niced, to.machine.niced),
    'steal (hypervisor)': pct(from.machine.steal, to.machine.steal),
    'time a runnable task waited for a CPU (PSI some), %': pct(from.machine.waiting, to.machine.waiting),
  };
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

/** Processes whose command line mentions `needle` (e.g. <data-dir>/pipelines), not counting this one. */
export function pidsWith(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(needle)) pids.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Kills any `dist/cli.js pipeline` process of this data dir still alive; returns how many there were. */
export function killLeftovers(dataDir: string): number {
  // Only pipeline processes name <data-dir>/pipelines on their command line (their --config-file).
  const left = pidsWith(join(dataDir, 'pipelines'));
  for (const pid of left) {
    say(`killing leftover pipeline process ${pid}`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return left.length;
}
