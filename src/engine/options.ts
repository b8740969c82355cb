import type { Spill } from './traces/page-file.js';

// How an engine is opened (open.ts) and its program engine made (engine.ts): one set of options.

export interface EngineOptions {
  /** An initdb dump to start from (`--initdb-dump`, src/pglite/initdb-dump.ts): much faster than initdb. */
  initdbDump?: string;
  /**
   * Incremental view maintenance where a rule covers the view's shape (default); false keeps every
   * view by recompute-and-diff (a way around a rule's fault, and the baseline it is compared to).
   */
  incremental?: boolean;
  /**
   * The native path (src/engine/planner): views of the shapes and types it covers are kept by
   * native circuits, the rest by the rules above, view by view (default); false keeps every view
   * on the PGlite path (`runtime_config.dev_tweaks.native_engine: false`, docs/engine.md).
   */
  native?: boolean;
  /**
   * Native circuits on this many shard threads (src/engine/workers), each owning a shard of every
   * stateful operator; 1 (default): on the engine's own thread.
   */
  workers?: number;
  /**
   * The native circuits' operators timed for GET /circuit_profile (runtime_config.cpu_profiler,
   * default true); off, the profile has what they hold but no times.
   */
  timed?: boolean;
  /**
   * The wire formats' module (host/hosted.ts `codec`): with shard threads, the parts of an ingress
   * body for a native table are decoded on them at once (ProgramEngine.ingestDecoding).
   */
  codec?: string;
  /**
   * How long the PGlite of an engine whose tables and views are all native stays open unused once
   * a call reopened it (parking.ts; default PARK_IDLE_MS).
   */
  parkIdleMs?: number;
  /**
   * Storage for the engine's scratch files (a pipeline with `runtime_config.storage`: its
   * `<storage>/spill`, and `storage.min_storage_bytes`): a native table that only grows writes its
   * full pages of rows there once that many bytes of them wait (traces/page-file.ts), rather than
   * holding them in memory. Unset: they stay in memory.
   */
  spill?: Spill;
  /** Called once per view with the way it is maintained (the pipeline logs it). */
  onMaintenance?: (view: string, maintenance: string, reason?: string) => void;
}

/** Why no table is native whatever its readers, if so (the native path or incremental maintenance off). */
export const nativeOff = (options: { incremental?: boolean; native?: boolean }): string | undefined =>
  !(options.incremental ?? true)
    ? 'incremental maintenance is off'
    : !(options.native ?? true)
      ? 'the native path is switched off (dev_tweaks.native_engine)'
      : undefined;
