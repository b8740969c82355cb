import { readFileSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

// What the local backend knows of a running pipeline process, kept on disk beside its storage so a
// restarted runner (even after kill -9) adopts the process instead of starting a second one.

export const ProcessState = z.object({
  pid: z.int(),
  port: z.int(),
  deployment_id: z.string(),
  /** The deployment's HTTP token (this file is 0600, in a 0700 directory). */
  token: z.string().optional(),
  started_at: z.string(),
});
export type ProcessState = z.infer<typeof ProcessState>;

export const stateFile = (dir: string): string => join(dir, 'process.json');

export async function readState(dir: string): Promise<ProcessState | undefined> {
  try {
    return ProcessState.parse(JSON.parse(await readFile(stateFile(dir), 'utf8')));
  } catch {
    return undefined;
  }
}

export async function writeState(dir: string, state: ProcessState): Promise<void> {
  const tmp = `${stateFile(dir)}.tmp`;
  await writeFile(tmp, JSON.stringify(state), { mode: 0o600 });
  await rename(tmp, stateFile(dir));
}

export const removeState = (dir: string): Promise<void> => rm(stateFile(dir), { force: true });

/** Alive and really ours: the pid's command line names this deployment (pids are reused). */
export function isOurProcess(state: ProcessState): boolean {
  try {
    process.kill(state.pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${state.pid}/cmdline`, 'utf8').includes(state.deployment_id);
  } catch {
    // No /proc (not Linux): trust the pid.
    return true;
  }
}
