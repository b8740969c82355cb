import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { z } from 'zod';
import { say } from './common.js';
import { jsonOfChild, type LaneResult } from './engine-lanes.js';

// The established engine's side of bench:engine: bench/dbsp-baseline (Rust, the `dbsp` crate),
// built once into a cache outside the repository by its build.sh, and run once per lane.

const BUILD = fileURLToPath(new URL('./dbsp-baseline/build.sh', import.meta.url));

/** Builds the baseline if it is missing or stale (~25 min cold) and returns its path. */
export async function dbspBinary(): Promise<string> {
  say('dbsp baseline: bench/dbsp-baseline/build.sh (builds only when missing or stale)');
  const { stdout } = await promisify(execFile)(BUILD, [], { maxBuffer: 1 << 20 }).catch((error: unknown) => {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`bench/dbsp-baseline/build.sh failed:\n${stderr.split('\n').slice(-30).join('\n')}`);
  });
  const path = stdout.trim().split('\n').at(-1);
  if (!path) throw new Error('bench/dbsp-baseline/build.sh printed no path');
  return path;
}

/** The program's JSON (src/main.rs), snake_case as Rust prints it. */
const DbspOutput = z.object({
  engine: z.literal('dbsp'),
  dbsp_version: z.string(),
  workers: z.number(),
  seconds: z.number(),
  records_per_s: z.number(),
  step_ms: z.array(z.number()),
  latency: z.object({ p50: z.number().nullable(), p99: z.number().nullable(), samples: z.number() }),
  rss_mib: z.number(),
  peak_rss_mib: z.number(),
  views: z.record(z.string(), z.array(z.array(z.string()))).nullable(),
});

export interface DbspRun {
  workers: number;
  records: number;
  batch: number;
  latencyS: number;
  dump: boolean;
}

/** Runs the baseline once; its stderr goes to ours. */
export async function runDbsp(binary: string, run: DbspRun): Promise<LaneResult> {
  const args = ['--workers', run.workers, '--records', run.records, '--batch', run.batch, '--latency', run.latencyS];
  const out = DbspOutput.parse(await jsonOfChild(binary, [...args.map(String), ...(run.dump ? ['--dump'] : [])]));
  const { p50, p99, samples } = out.latency;
  return {
    recordsPerS: out.records_per_s,
    seconds: out.seconds,
    stepMs: out.step_ms,
    latency: p50 !== null && p99 !== null ? { p50, p99, samples } : null,
    rssMiB: out.rss_mib,
    peakRssMiB: out.peak_rss_mib,
    rules: [`dbsp ${out.dbsp_version}, ${out.workers} worker(s): filter, join, aggregate_linear`],
    views: out.views,
  };
}
