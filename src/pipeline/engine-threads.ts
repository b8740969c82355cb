import { availableParallelism } from 'node:os';

// How many threads a pipeline runs its native views on (the engine's own thread and its shard
// workers, src/engine/workers/). runtime_config.workers asks for them; the cores the process may use
// bound them, one core left to the main thread (HTTP, connectors, egress). Measured on bench:engine
// on 2 cores, with the main thread busy: two engine threads ran at 0.73–0.80× of one (bench/results/,
// 2026-11-28), so a pipeline there runs one. The cores are the machine's (os.availableParallelism,
// which follows the CPU affinity), `--cpu-cores` where that over-counts (a container's CPU quota),
// and at most resources.cpu_cores_max, the pipeline's own CPU limit.

export interface EngineThreads {
  /** Threads the native views run on: at least 1. */
  threads: number;
  /** The cores that bound them. */
  cores: number;
}

export function engineThreads(
  workers: number,
  cpuCoresMax: number | undefined,
  machineCores: number = availableParallelism(),
): EngineThreads {
  const limit = cpuCoresMax === undefined ? machineCores : Math.min(machineCores, Math.floor(cpuCoresMax));
  const cores = Math.max(1, limit);
  return { threads: Math.max(1, Math.min(workers, cores - 1)), cores };
}
