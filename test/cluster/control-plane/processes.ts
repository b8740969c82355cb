// Daemons of the test cluster: started detached with a pid file each, logs in the state dir, and a
// marker variable in their environment so that `down` can find every process the cluster started
// (including the pods' processes, which the node agent starts) even after a crash lost a pid file.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Environment variable carried by every process of a cluster; its value is the state dir. */
export const MARKER_ENV = 'SVC_TEST_CLUSTER_STATE';

/** One free-port helper for the whole repository. */
export { freeLoopbackPort as freePort } from '../../../src/runner/backends/local/free-port.js';

export interface DaemonOptions {
  stateDir: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** Starts `command` in its own process group, detached from ours; returns its pid. */
export function startDaemon(name: string, command: string, args: string[], opts: DaemonOptions): number {
  const logs = join(opts.stateDir, 'logs');
  const pids = join(opts.stateDir, 'pids');
  mkdirSync(logs, { recursive: true });
  mkdirSync(pids, { recursive: true });
  const out = openSync(join(logs, `${name}.log`), 'a');
  const child = spawn(command, args, {
    cwd: opts.cwd ?? opts.stateDir,
    env: { ...process.env, ...opts.env, [MARKER_ENV]: opts.stateDir },
    detached: true,
    stdio: ['ignore', out, out],
  });
  if (child.pid === undefined) throw new Error(`could not start ${name} (${command})`);
  writeFileSync(join(pids, `${name}.pid`), `${child.pid}\n`);
  child.unref();
  return child.pid;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of live processes whose environment carries the marker for `stateDir`. */
export function markedProcesses(stateDir: string): number[] {
  return findMarked(`${MARKER_ENV}=${stateDir}`);
}

/** Pids of live processes (other than this one) with the `NAME=value` entry `needle` in their environment. */
export function findMarked(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
      if (env.includes(needle)) found.push(pid);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  // Negative pid: the whole process group (a daemon's or a pod's children go with it).
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, sig);
    } catch {
      // Not a group leader, or already gone.
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** SIGTERM, then SIGKILL whatever is still alive after `graceMs`. */
export async function terminate(pids: number[], graceMs: number): Promise<void> {
  for (const pid of pids) signal(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (pids.some(isAlive) && Date.now() < deadline) await sleep(100);
  for (const pid of pids.filter(isAlive)) signal(pid, 'SIGKILL');
  while (pids.some(isAlive) && Date.now() < deadline + 5000) await sleep(50);
}

export function readPid(stateDir: string, name: string): number | undefined {
  const file = join(stateDir, 'pids', `${name}.pid`);
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Thrown from a waitFor check to stop waiting at once (a process died, say). */
export class GaveUp extends Error {}

/** Polls `check` until it returns a value other than undefined; fails with `what` on time-out. */
export async function waitFor<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      if (err instanceof GaveUp) throw err;
      last = err;
    }
    if (Date.now() > deadline) {
      const reason = last instanceof Error ? `: ${last.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
    }
    await sleep(200);
  }
}
