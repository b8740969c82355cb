import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from '../../src/runner/backends/local/free-port.js';

// A throw-away PostgreSQL from the machine's own binaries: initdb into a temp dir, a free loopback
// port, no fsync. PostgreSQL refuses to run as root, so as root it runs as the `postgres` user.

export interface TestPostgres {
  url: string;
  dir: string;
}

function binDir(): string {
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  } catch {
    const base = '/usr/lib/postgresql';
    const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
    if (!versions[0]) throw new Error('PostgreSQL binaries not found (no pg_config, nothing in /usr/lib/postgresql)');
    return join(base, versions[0], 'bin');
  }
}

const isRoot = (): boolean => process.getuid?.() === 0;

function run(bin: string, args: string[]): void {
  const [cmd, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const result = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`${bin} ${args.join(' ')} failed (${result.status}): ${result.stderr || result.stdout}`);
  }
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  if (isRoot()) {
    const ids = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
    const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
    chownSync(dir, Number(ids), Number(gid));
  }
  const data = join(dir, 'data');
  run(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freeLoopbackPort();
  startServer({ dir, port });
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, dir };
}

/** pg_ctl start of the server in `dir` on `port` (again after stopServer: the same data). */
export function startServer({ dir, port }: { dir: string; port: number }): void {
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=300',
  ].join(' ');
  const data = join(dir, 'data');
  run(join(binDir(), 'pg_ctl'), [
    '-D',
    data,
    '-o',
    options,
    '-l',
    join(dir, 'postgres.log'),
    '-w',
    '-t',
    '60',
    'start',
  ]);
}

/** Stops the server at once (as a crash would), keeping its files: startServer brings it back. */
export function stopServer({ dir }: { dir: string }): void {
  run(join(binDir(), 'pg_ctl'), ['-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop']);
}

export function stopPostgres(pg: Pick<TestPostgres, 'dir'>): void {
  const data = join(pg.dir, 'data');
  if (existsSync(data)) {
    try {
      run(join(binDir(), 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // Already stopped: nothing to do but remove the files.
    }
  }
  rmSync(pg.dir, { recursive: true, force: true });
}

// `tsx test/support/postgres.ts start` prints shell exports; `stop DIR` stops and removes it.
if (process.argv[1]?.endsWith('postgres.ts')) {
  const [command, dir] = process.argv.slice(2);
  if (command === 'start') {
    const pg = await startPostgres();
    process.stdout.write(`export SVC_TEST_DATABASE_URL='${pg.url}'\nexport SVC_TEST_PG_DIR='${pg.dir}'\n`);
  } else if (command === 'stop' && dir) {
    stopPostgres({ dir });
  } else {
    process.stderr.write('usage: tsx test/support/postgres.ts start | stop DIR\n');
    process.exitCode = 2;
  }
}
