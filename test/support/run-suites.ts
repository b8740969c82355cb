import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import config from '../../vitest.config.js';

// `npm test`: the whole suite as two vitest runs side by side. Vitest runs the files of projects
// with `fileParallelism: false` (the cluster's and the real node's: each shares one cluster, and
// the real node's tests cordon and drain its only node) one at a time, after every other file: on
// a 2-core machine that was 19 minutes alone at the end of an 80-minute run, with both clusters up
// (and burning CPU) from its start. Those projects have clusters of their own, so they run here in a
// second vitest process while the others run in the first, and their clusters live only while they
// do. Each line of the second is prefixed, and the exit code is the first failure's.
//
// With arguments (`npm test -- test/api/foo.test.ts`), it is plain `vitest run` with them.

const VITEST = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));

interface Suite {
  name: string;
  args: string[];
  /** Put before each of its lines; undefined: the run has the terminal to itself. */
  prefix?: string;
}

function projectNames(sequential: boolean): string[] {
  const projects = config.test?.projects ?? [];
  return projects.flatMap((p) => {
    if (typeof p !== 'object' || !('test' in p) || !p.test?.name) return [];
    const isSequential = p.test.fileParallelism === false;
    return isSequential === sequential ? [String(p.test.name)] : [];
  });
}

function run(suite: Suite): Promise<{ suite: Suite; code: number; secs: number }> {
  const started = Date.now();
  const alone = suite.prefix === undefined;
  const child = spawn(process.execPath, [VITEST, 'run', ...suite.args], {
    stdio: alone ? 'inherit' : ['ignore', 'pipe', 'pipe'],
  });
  const relay = (stream: NodeJS.ReadableStream | null, out: NodeJS.WriteStream) =>
    // Whole lines only, so that the two runs' output never interleaves within a line.
    stream && createInterface({ input: stream }).on('line', (line) => out.write(`${suite.prefix ?? ''}${line}\n`));
  relay(child.stdout, process.stdout);
  relay(child.stderr, process.stderr);
  const stop = (signal: NodeJS.Signals) => () => child.kill(signal);
  process.once('SIGTERM', stop('SIGTERM')).once('SIGINT', stop('SIGINT'));
  return new Promise((resolve) => {
    child.on('close', (code, signal) =>
      resolve({ suite, code: code ?? (signal ? 1 : 0), secs: Math.round((Date.now() - started) / 1000) }),
    );
  });
}

async function main(): Promise<number> {
  const given = process.argv.slice(2);
  if (given.length > 0) return (await run({ name: 'vitest', args: given })).code;
  const sequential = projectNames(true);
  const suiteOf = (names: string[], prefix: string): Suite => ({
    name: names.join(', '),
    args: names.flatMap((n) => ['--project', n]),
    prefix,
  });
  const suites = [suiteOf(projectNames(false), ''), suiteOf(sequential, `[${sequential.join(', ')}] `)];
  const results = await Promise.all(suites.map(run));
  for (const { suite, code, secs } of results)
    process.stdout.write(`suite ${suite.name}: ${code === 0 ? 'passed' : `failed (exit ${code})`} in ${secs} s\n`);
  return results.find((r) => r.code !== 0)?.code ?? 0;
}

process.exitCode = await main();
