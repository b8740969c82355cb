import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import config from '../../vitest.config.js';
import { FailureRecap } from './failure-recap.js';

// `npm test`: the whole suite as two streams of vitest runs side by side. Vitest runs the files of
// projects with `fileParallelism: false` (the cluster's and the real node's: each shares one
// cluster, and the real node's tests cordon and drain its only node) one at a time, after every
// other file, with both clusters up (and burning CPU) from its start. Those projects have clusters
// of their own, so they run in a vitest process of their own, beside the others, and their clusters
// live only while they do.
//
// The suite is CPU-bound on 2 cores (three files at once beside the clusters took as long as one,
// and tests waiting on compiles timed out), so the two streams are balanced by time: the clusters'
// projects took 30 minutes and the others 57 one at a time (2026-11-29), which left one core idle
// for the last 27. The projects in AFTER_CLUSTERS (no global setup, nothing shared with the others)
// run in the clusters' stream once they are done. Each line of that stream is prefixed with its
// projects, and the exit code is the first failure's; every run goes on whatever an earlier did.
// A failed run's reasons (failure-recap.ts) are printed again at the very end, where CI's excerpt
// of the log can show them.
//
// With arguments (`npm test -- test/api/foo.test.ts`), it is plain `vitest run` with them.

const VITEST = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));

/** Run after the clusters' projects in their stream: the engine's PGlite tests, ~13 of the others' 57 minutes. */
const AFTER_CLUSTERS = ['pglite'];

interface Suite {
  name: string;
  args: string[];
  /** Put before each of its lines; undefined: the run has the terminal to itself. */
  prefix?: string;
}

interface Ran {
  suite: Suite;
  code: number;
  secs: number;
  recap: FailureRecap;
}

function projectNames(): { name: string; sequential: boolean }[] {
  const projects = config.test?.projects ?? [];
  return projects.flatMap((p) =>
    typeof p === 'object' && 'test' in p && p.test?.name
      ? [{ name: String(p.test.name), sequential: p.test.fileParallelism === false }]
      : [],
  );
}

function run(suite: Suite): Promise<Ran> {
  const started = Date.now();
  const alone = suite.prefix === undefined;
  const child = spawn(process.execPath, [VITEST, 'run', ...suite.args], {
    stdio: alone ? 'inherit' : ['ignore', 'pipe', 'pipe'],
  });
  const recap = new FailureRecap();
  const relay = (stream: NodeJS.ReadableStream | null, out: NodeJS.WriteStream) =>
    // Whole lines only, so that the two streams' output never interleaves within a line.
    stream &&
    createInterface({ input: stream }).on('line', (line) => {
      recap.add(line);
      out.write(`${suite.prefix ?? ''}${line}\n`);
    });
  relay(child.stdout, process.stdout);
  relay(child.stderr, process.stderr);
  const stop = (signal: NodeJS.Signals) => () => child.kill(signal);
  const onTerm = stop('SIGTERM');
  const onInt = stop('SIGINT');
  process.once('SIGTERM', onTerm).once('SIGINT', onInt);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      process.off('SIGTERM', onTerm).off('SIGINT', onInt);
      const secs = Math.round((Date.now() - started) / 1000);
      resolve({ suite, code: code ?? (signal ? 1 : 0), secs, recap });
    });
  });
}

/** The runs of one stream, one after the other. */
async function stream(suites: Suite[]): Promise<Ran[]> {
  const ran: Ran[] = [];
  for (const suite of suites) ran.push(await run(suite));
  return ran;
}

async function main(): Promise<number> {
  const given = process.argv.slice(2);
  if (given.length > 0) return (await run({ name: 'vitest', args: given })).code;
  const projects = projectNames();
  const unknown = AFTER_CLUSTERS.filter((n) => !projects.some((p) => p.name === n && !p.sequential));
  if (unknown.length > 0)
    throw new Error(`run-suites: AFTER_CLUSTERS names no parallel project: ${unknown.join(', ')}`);
  const suiteOf = (names: string[], prefix: string): Suite => ({
    name: names.join(', '),
    args: names.flatMap((n) => ['--project', n]),
    prefix,
  });
  const named = (pick: (p: { name: string; sequential: boolean }) => boolean) =>
    projects.filter(pick).map((p) => p.name);
  const clusters = named((p) => p.sequential);
  const after = named((p) => AFTER_CLUSTERS.includes(p.name));
  const others = named((p) => !p.sequential && !AFTER_CLUSTERS.includes(p.name));
  const streams = [
    [suiteOf(others, '')],
    [suiteOf(clusters, `[${clusters.join(', ')}] `), suiteOf(after, `[${after.join(', ')}] `)],
  ];
  const results = (await Promise.all(streams.map(stream))).flat();
  // Last, so that CI's excerpt of the end of the log shows why, not only that.
  for (const { suite, code, recap } of results.filter((r) => r.code !== 0))
    process.stdout.write(
      [`== why suite ${suite.name} failed (exit ${code}):`, ...recap.lines()].map((l) => `${l}\n`).join(''),
    );
  for (const { suite, code, secs } of results)
    process.stdout.write(`suite ${suite.name}: ${code === 0 ? 'passed' : `failed (exit ${code})`} in ${secs} s\n`);
  return results.find((r) => r.code !== 0)?.code ?? 0;
}

process.exitCode = await main();
