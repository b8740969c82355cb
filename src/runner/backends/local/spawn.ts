import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALLOCATOR_ENV } from '../../../heap/allocator.js';
import { assertBuildCurrent } from './build-freshness.js';

/** How to start `svc pipeline`: this very program, by the Node that runs it. */
export interface SvcCommand {
  program: string;
  args: string[];
}

/**
 * cli.js beside the running code. Run from source (src/ has no cli.js), dist/cli.js, provided the
 * build is not older than the source (build-freshness.ts): never old code without a word.
 */
export function defaultSvcCommand(): SvcCommand {
  const beside = fileURLToPath(new URL('../../../cli.js', import.meta.url));
  if (existsSync(beside)) return { program: process.execPath, args: [beside] };
  const dist = fileURLToPath(new URL('../../../../dist/', import.meta.url));
  assertBuildCurrent(fileURLToPath(new URL('../../../', import.meta.url)), dist);
  return { program: process.execPath, args: [join(dist, 'cli.js')] };
}

/**
 * A pipeline process whose runner stopped asking for its status this long exits by itself: a
 * manager killed with -9 and not restarted leaves nothing running for longer than this.
 */
export const ORPHAN_TIMEOUT_SECS = 60;

export interface SpawnSpec {
  command: SvcCommand;
  configFile: string;
  /** The deployment's token, 0600 (`--auth-token-file`: never on the command line itself). */
  tokenFile: string;
  port: number;
  initial: string;
  deploymentId: string;
  env: Record<string, string>;
  logFile: string;
  /** The engine's initdb dump (src/pglite/initdb-dump.ts), passed as `--initdb-dump`. */
  initdbDump: string;
  /**
   * Node's on-disk code cache (NODE_COMPILE_CACHE) shared by the pipeline processes: each reads
   * hundreds of module files at start, and compiling them anew cost 100–150 ms of CPU (measured).
   */
  compileCache: string;
}

/**
 * Starts the pipeline process in its own process group (so a terminal's Ctrl-C reaches the
 * manager, which stops pipelines in order), its output appended to a log file that outlives it.
 */
export async function spawnPipeline(spec: SpawnSpec): Promise<ChildProcess> {
  const log = await open(spec.logFile, 'a');
  try {
    const child = spawn(
      spec.command.program,
      [
        ...spec.command.args,
        'pipeline',
        '--config-file',
        spec.configFile,
        '--bind-address',
        '127.0.0.1',
        '--port',
        String(spec.port),
        '--initial',
        spec.initial,
        '--deployment-id',
        spec.deploymentId,
        '--orphan-timeout-secs',
        String(ORPHAN_TIMEOUT_SECS),
        '--initdb-dump',
        spec.initdbDump,
        '--auth-token-file',
        spec.tokenFile,
      ],
      {
        // The allocator's settings (heap/allocator.ts) first: the manager's and the user's env may override them.
        env: { NODE_COMPILE_CACHE: spec.compileCache, ...ALLOCATOR_ENV, ...spec.env },
        stdio: ['ignore', log.fd, log.fd],
        detached: true,
      },
    );
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    return child;
  } finally {
    await log.close();
  }
}
