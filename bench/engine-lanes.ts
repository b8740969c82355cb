import { spawn } from 'node:child_process';
import { z } from 'zod';
import type { JsonValue } from '../src/model/json.js';
import type { EngineOptions } from '../src/engine/open.js';

// The rows of bench:engine's table: each is an engine choice, run in a process of its own (so that
// its RSS is its own). Ours run bench/engine-lane.ts; the established engine runs
// bench/dbsp-baseline (Rust, the `dbsp` crate).
//
// A row of ours is just how its engine is opened: `options` for `--via engine` (openEngine), and
// `runtimeConfig` for `--via http` (the pipeline app). A row whose engine does not exist yet carries
// `unavailable` instead and is printed as "not available" with that reason. The native path (issue
// 28) is the default (EngineOptions.native, dev_tweaks.native_engine); the PGlite row switches it
// off. With workers=2 the native circuits run on two threads (src/engine/workers): the engine's own
// and a shard worker; `--via engine` and `--via thread` pass workers to the engine, `--via http` goes
// through a pipeline, which runs them on at most one thread fewer than the machine's cores
// (src/pipeline/engine-threads.ts): on 2 cores, one.

export interface OurLane {
  kind: 'ours';
  id: string;
  label: string;
  open:
    | { options: Omit<EngineOptions, 'onMaintenance'>; runtimeConfig: Record<string, JsonValue> }
    | { unavailable: string };
}

export interface DbspLane {
  kind: 'dbsp';
  id: string;
  label: string;
  workers: number;
}

export type Lane = OurLane | DbspLane;

export const LANES: Lane[] = [
  {
    kind: 'ours',
    id: 'native-1',
    label: 'native path, one thread',
    open: { options: { native: true }, runtimeConfig: { dev_tweaks: { native_engine: true } } },
  },
  {
    kind: 'ours',
    id: 'native-2',
    label: 'native path, workers=2',
    open: { options: { native: true, workers: 2 }, runtimeConfig: { workers: 2 } },
  },
  {
    kind: 'ours',
    id: 'pglite',
    label: 'PGlite path (dev_tweaks.native_engine: false)',
    open: { options: { native: false }, runtimeConfig: { dev_tweaks: { native_engine: false } } },
  },
  { kind: 'dbsp', id: 'dbsp-1', label: 'dbsp 0.349.0, workers=1', workers: 1 },
  { kind: 'dbsp', id: 'dbsp-2', label: 'dbsp 0.349.0, workers=2', workers: 2 },
];

/** The row every ratio is taken against. */
export const BASELINE_ID = 'dbsp-1';
/** The row whose views are the truth in the check: PostgreSQL's own evaluation. */
export const ORACLE_ID = 'pglite';

export function laneById(id: string): Lane {
  const lane = LANES.find((l) => l.id === id);
  if (!lane) throw new Error(`--lanes: no lane ${id} (there are ${LANES.map((l) => l.id).join(', ')})`);
  return lane;
}

/** What one lane's process prints (one JSON object on stdout); the dbsp program's is mapped to it. */
export const LaneResult = z.object({
  recordsPerS: z.number(),
  seconds: z.number(),
  /** Each batch's step: ours `step()` (with every watched view's changes), dbsp's transaction + reading them. */
  stepMs: z.array(z.number()),
  latency: z.object({ p50: z.number(), p99: z.number(), samples: z.number() }).nullable(),
  /** VmRSS after the throughput phase, and the process's peak (VmHWM) at its end. */
  rssMiB: z.number(),
  /**
   * Ours: VmRSS with the program loaded and the customers in, before the first order: the runtime's
   * floor (Node, the TypeScript loader, PGlite), which the orders' state comes on top of.
   */
  loadedRssMiB: z.number().optional(),
  /**
   * Ours, `--via engine`: where the RSS after the throughput phase is, MiB: the JS heap as V8 sized
   * it, what of it a full collection leaves (the rest is garbage its heap sizing let pile up), and
   * the typed arrays off the heap (rows held by column).
   */
  heap: z.object({ totalMiB: z.number(), liveMiB: z.number(), offHeapMiB: z.number() }).optional(),
  peakRssMiB: z.number(),
  /** How each view is kept (ours: the maintenance rule). */
  rules: z.array(z.string()),
  /** With --dump: each view's contents summed from its changes (see ViewSums). */
  views: z.record(z.string(), z.array(z.array(z.string()))).nullable(),
});
export type LaneResult = z.infer<typeof LaneResult>;

/** Runs a lane's process and parses the one JSON object it prints; its stderr (progress) goes to ours. */
export async function jsonOfChild(
  command: string,
  args: string[],
  { cwd, env }: { cwd?: string; env?: Record<string, string> } = {},
): Promise<unknown> {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${code}`);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}
