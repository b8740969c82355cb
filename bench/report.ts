import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { machineTable } from './common.js';
import type { Measurement, RunOptions } from './scenarios.js';
import type { SeedResult } from './seed.js';

// The results as markdown: printed always, written to bench/results/<date>-api.md with --record.
// Machine facts travel with the numbers, because on 2 shared cores they explain half of them.

export interface MachineFacts {
  date: string;
  nproc: number;
  cpu: string;
  memoryGiB: number;
  node: string;
  postgres: string;
  uptime: string;
  /** Other processes using CPU when the bench started (a background build skews everything). */
  busy: string[];
}

const sh = (cmd: string, args: string[]): string => {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8' }).trim();
  } catch {
    return 'unavailable';
  }
};

/** This process and its ancestors (npm, the shell): not "other load". */
function ownPids(): Set<number> {
  const pids = new Set<number>([process.pid]);
  let pid = process.ppid;
  while (pid > 1 && !pids.has(pid)) {
    pids.add(pid);
    // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces, so split after ')'.
    pid = Number(
      sh('cat', [`/proc/${pid}/stat`])
        .split(') ')[1]
        ?.split(' ')[1] ?? 0,
    );
  }
  return pids;
}

/** Processes using ≥ 5 % CPU over one second (top's second sample; ps would give lifetime averages). */
function busyProcesses(): string[] {
  const own = ownPids();
  const lines = sh('top', ['-b', '-n', '2', '-d', '1', '-w', '200']).split('\n');
  const second = lines.slice(lines.findLastIndex((l) => l.trim().startsWith('PID ')) + 1);
  return second
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => !own.has(Number(f[0])) && Number(f[8]) >= 5)
    .slice(0, 8)
    .map((f) => `${f[11] ?? '?'} ${f[8] ?? '?'} %`);
}

export function machineFacts(postgres: string): MachineFacts {
  const busy = busyProcesses();
  return {
    date: new Date().toISOString(),
    nproc: Number(sh('nproc', [])) || cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    postgres,
    uptime: sh('uptime', []),
    busy,
  };
}

const ms = (v: number): string => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
const num = (v: number, digits = 0): string => v.toLocaleString('en-US', { maximumFractionDigits: digits });

export function resultsTable(results: Measurement[]): string {
  const head = [
    '| Scenario | Req/s | p50 ms | p97.5 ms | p99 ms | max ms | MB/s | Bytes/resp | Requests | Errors / non-2xx | TOAST blocks/req | Load 1m |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  const rows = results.map((m) =>
    [
      m.scenario.title.replace('|', '\\|'),
      num(m.requestsPerSecond, 1),
      ms(m.latency.p50),
      ms(m.latency.p97_5),
      ms(m.latency.p99),
      ms(m.latency.max),
      num(m.megabytesPerSecond, 1),
      num(m.bytesPerResponse),
      num(m.requests),
      `${m.errors} / ${m.non2xx}`,
      `${num(m.toastBlocksPerRequest, 2)}${m.counters.settled ? '' : ' (partial)'}`,
      m.load1.toFixed(2),
    ].join(' | '),
  );
  return [...head, ...rows.map((r) => `| ${r} |`)].join('\n');
}

export interface Report {
  command: string;
  options: RunOptions;
  facts: MachineFacts;
  database: string;
  seed: SeedResult;
  results: Measurement[];
  evidence: string[];
  uptimeAfter: string;
}

export function renderReport(r: Report): string {
  const { facts, seed, options } = r;
  return `# API benchmark, ${facts.date.slice(0, 10)}

\`${r.command}\`: ${num(seed.pipelines)} pipelines with ${num(seed.programChars)}-byte programs in PostgreSQL,
each scenario ${options.warmup} s warm-up then ${options.duration} s with ${options.connections} connections (autocannon 9,
load generator and server in separate processes on the same machine, loopback only).

## Results

${resultsTable(r.results)}

Req/s is autocannon's mean of per-second samples; latencies are per request; MB = 10^6 bytes.
TOAST blocks/req: blocks of the pipeline table's TOAST relation (where the 10 KiB programs live)
read or hit per answered request, from \`pg_statio_user_tables\`, warm-up included.

## Proof that list?selector=status does not read program texts

${r.evidence.join('\n')}

## Data set

- seeded in ${seed.seconds.toFixed(1)} s (1 POST through the API, then one INSERT … SELECT, VACUUM ANALYZE)
- program_code: ${num(seed.programChars)} characters, ${num(seed.programStoredBytes)} bytes stored (compressed, out of line)
- table heap ${(seed.heapBytes / 2 ** 20).toFixed(1)} MiB, TOAST ${(seed.toastBytes / 2 ** 20).toFixed(1)} MiB
- database: ${r.database}

${machineTable(facts, r.uptimeAfter)}`;
}
