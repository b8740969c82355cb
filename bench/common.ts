import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { message, type SvcProcess, startSvc } from '../test/support/svc-process.js';
import type { MachineFacts } from './report.js';

// What every benchmark script here needs: flags, progress lines, waiting for a quiet machine, a
// real `svc manager` process, and the machine table of a recorded result.

/** Parses a bench script's flags; `--help` prints its usage and exits. */
export function benchFlags<const O extends ParseArgsOptionsConfig>(usage: string, options: O) {
  const { values } = parseArgs({ options: { ...options, help: { type: 'boolean', default: false } } });
  // Inside the generic, TypeScript cannot see `help` among the parsed values; callers see theirs.
  if ((values as { help?: boolean }).help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return values;
}

export const say = (text: string): void => void process.stderr.write(`bench: ${text}\n`);
export const uptime = (): string => execFileSync('uptime', { encoding: 'utf8' }).trim();
export const load1 = (): number => Number(/load average:\s*([\d.]+)/.exec(uptime())?.[1] ?? 'NaN');
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** An integer flag within [min, max], or an error naming the flag. */
export function integerFlag(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be an integer from ${min} to ${max}`);
  return n;
}

/** Waits (up to `maxWaitS`) until the 1-minute load is below `maxLoad`, so recorded runs compare. */
export async function waitForQuiet(maxLoad: number, maxWaitS: number): Promise<void> {
  const deadline = Date.now() + maxWaitS * 1000;
  while (load1() >= maxLoad && Date.now() < deadline) {
    say(`waiting for the 1-minute load to drop below ${maxLoad}: ${uptime()}`);
    await sleep(15_000);
  }
}

export interface Manager {
  svc: SvcProcess;
  url: string;
  pid: number;
  /** SIGTERM, and a line on stderr if it does not exit 0. */
  close(): Promise<void>;
}

/** A real `svc manager` (the built program) on a free port with its own data dir. */
/** A process's resident size now (VmRSS) or its peak (VmHWM), from /proc, MiB. */
export function procStatusMiB(pid: number | 'self', field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
}

export async function startManager(dataDir: string, args: string[] = []): Promise<Manager> {
  const svc = startSvc(['manager', '--port', '0', '--data-dir', dataDir, ...args]);
  const line = await svc.waitForLine((l) => message(l).startsWith('svc manager ready at'), 120_000);
  return {
    svc,
    url: (line['fields'] as { url: string }).url,
    pid: svc.child.pid ?? -1,
    async close() {
      svc.child.kill('SIGTERM');
      const code = await svc.exited;
      if (code !== 0) say(`svc manager exited ${code}: ${svc.stderr.join('')}`);
    },
  };
}

/** The "## Machine" table of a recorded result; `rows` adds, replaces or (undefined) drops rows by label. */
export function machineTable(
  facts: MachineFacts,
  uptimeAfter: string,
  rows: Record<string, string | undefined> = {},
): string {
  const base: Record<string, string> = {
    date: facts.date,
    nproc: `${facts.nproc} (${facts.cpu})`,
    memory: `${facts.memoryGiB} GiB`,
    node: facts.node,
    postgres: facts.postgres,
    'uptime before': facts.uptime,
    'uptime after': uptimeAfter,
    'other processes busy at start (CPU over 1 s)': facts.busy.join(', ') || 'none ≥ 5 %',
  };
  const lines = Object.entries({ ...base, ...rows })
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `| ${k} | ${v} |`);
  return `## Machine\n\n| | |\n|---|---|\n${lines.join('\n')}\n`;
}

export type Cleanup = () => Promise<void>;

/**
 * Runs a benchmark's body. Its cleanups (stop servers, drop databases, remove temp dirs) run in
 * reverse order whatever happens; a throw or a `false` result makes the exit code 1.
 */
export async function runBench(body: (cleanups: Cleanup[]) => Promise<boolean>): Promise<void> {
  const cleanups: Cleanup[] = [];
  let ok = false;
  try {
    ok = await body(cleanups);
  } catch (error) {
    say(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    for (const cleanup of cleanups.reverse()) {
      await Promise.resolve()
        .then(cleanup)
        .catch((error: unknown) => say(`cleanup failed: ${String(error)}`));
    }
  }
  if (!ok) process.exitCode = 1;
}

/** Writes bench/results/<YYYY-MM-DD>-<name>.md and returns its path. */
export function writeResult(name: string, date: string, markdown: string): string {
  const dir = new URL('./results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const file = new URL(`${date.slice(0, 10)}-${name}.md`, dir);
  writeFileSync(file, markdown);
  return file.pathname;
}

/** A full garbage collection on call, for heap figures (what is alive). */
export { fullCollector } from '../src/heap/full-collection.js';
