import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { alive } from './svc-manager.js';

// The ecosystem's Python SDK from PyPI, pinned, in a venv made once and kept outside the repository
// (~/.cache/svc-python-sdk/<version>/venv), the way test/cluster keeps its binaries. Several test
// files may ask at once: a lock directory (mkdir is atomic) lets one of them build it while the
// others wait; the `ready` marker is written last, so a venv half made by a killed run is rebuilt.

export const SDK_PACKAGE = 'feldera';
export const SDK_VERSION = '0.369.0';

const run = promisify(execFile);
const cacheDir = join(homedir(), '.cache', 'svc-python-sdk', SDK_VERSION);
const venv = join(cacheDir, 'venv');
const python = join(venv, 'bin', 'python');
const readyMarker = join(cacheDir, 'ready');
const lockDir = join(cacheDir, 'lock');

/** Takes the lock, or returns false while a live process holds it (a dead holder's lock is taken over). */
function tryLock(): boolean {
  try {
    mkdirSync(lockDir);
  } catch {
    let holder: number;
    try {
      holder = Number(readFileSync(join(lockDir, 'pid'), 'utf8'));
    } catch {
      return false; // Just made, pid not written yet.
    }
    if (alive(holder)) return false;
    rmSync(lockDir, { recursive: true, force: true });
    return tryLock();
  }
  writeFileSync(join(lockDir, 'pid'), String(process.pid));
  return true;
}

async function build(): Promise<void> {
  rmSync(venv, { recursive: true, force: true });
  rmSync(readyMarker, { force: true });
  await run('python3', ['-m', 'venv', venv]);
  await run(
    python,
    ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `${SDK_PACKAGE}==${SDK_VERSION}`],
    {
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  writeFileSync(readyMarker, `${SDK_PACKAGE}==${SDK_VERSION}\n`);
}

/** The venv's python, with the pinned SDK installed (made on first use, then reused). */
export async function sdkPython(): Promise<string> {
  mkdirSync(cacheDir, { recursive: true });
  while (!existsSync(readyMarker)) {
    if (tryLock()) {
      try {
        if (!existsSync(readyMarker)) await build();
      } finally {
        rmSync(lockDir, { recursive: true, force: true });
      }
    } else {
      await sleep(500);
    }
  }
  return python;
}

export interface ScriptResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout's JSON lines, parsed. */
  steps: Array<Record<string, unknown> & { step: string }>;
}

/** Runs a script of test/python/ with the SDK's python; `env` adds to the environment. */
export async function runSdkScript(script: string, env: Record<string, string>, timeoutMs = 600_000) {
  const py = await sdkPython();
  const path = new URL(`../python/${script}`, import.meta.url).pathname;
  let result: { code: number; stdout: string; stderr: string };
  try {
    const { stdout, stderr } = await run(py, [path], {
      env: { ...process.env, ...env, PYTHONUNBUFFERED: '1' },
      timeout: timeoutMs,
      maxBuffer: 16 * 1024 * 1024,
    });
    result = { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    result = {
      code: typeof e.code === 'number' ? e.code : -1,
      stdout: e.stdout ?? '',
      stderr: e.stderr ?? String(error),
    };
  }
  const steps = result.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as ScriptResult['steps'][number]);
  return { ...result, steps } satisfies ScriptResult;
}

// `npx tsx test/support/python-sdk.ts`: makes the venv ahead of the tests (.ci/run does).
if (process.argv[1]?.endsWith('python-sdk.ts')) {
  process.stdout.write(`${await sdkPython()}\n`);
}
