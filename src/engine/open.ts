import { setFlagsFromString } from 'node:v8';
import { collectEagerly } from './host/heap.js';
import type { PGlite } from '@electric-sql/pglite';
import { loadModule } from 'libpg-query';
import { createInMemory } from '../pglite/initdb-dump.js';
import { engineDump } from '../pglite/shipped-dump.js';
import { ProgramEngine } from './engine.js';
import { WAL_SETTINGS } from './housekeeping.js';
import { programStatements } from './program.js';

// Opening the engine: an in-memory PGlite (the evaluator), the pipeline's clock function, then the
// program's statements. Split in two so a process can fetch its artifact while PGlite reads its
// files and compiles its WebAssembly (measured: the two used to run one after the other).

export class EngineError extends Error {
  override readonly name = 'EngineError';
}

// NOW() is the pipeline's clock, not the database's: public.now() shadows pg_catalog.now() for the
// program's unqualified calls (views bind to it when they are created) and reads the value the
// clock last set. CURRENT_TIMESTAMP is a keyword and keeps the database's time.
const CLOCK_SQL = `
  SET search_path = public, pg_catalog;
  SELECT set_config('svc.now_ms', '0', false);
  CREATE FUNCTION public.now() RETURNS timestamptz LANGUAGE sql STABLE
    AS $$ SELECT to_timestamp(current_setting('svc.now_ms')::double precision / 1000) $$;
`;

/**
 * The engine's data lives in the process's memory already (PGlite's in-memory file system), so a
 * large buffer cache only holds a second copy: PostgreSQL's default 128 MiB of shared_buffers,
 * which it touches at start, cost ~130 MiB of RSS per pipeline process (measured: 353 → 224 MiB
 * anonymous memory after load).
 */
const ENGINE_SETTINGS = { shared_buffers: '16MB', ...WAL_SETTINGS };

/**
 * WebAssembly compiled by the baseline compiler only. V8 otherwise recompiles PGlite's hot
 * functions with its optimising compiler in background threads while the engine loads: measured
 * on 2 cores, that doubled the CPU of a start (user 1.1 s → 0.55 s) and added ~40 MiB of code, for
 * speed the engine's small statements do not need. Set before any module is compiled.
 */
function useBaselineWasmCompiler(): void {
  setFlagsFromString('--liftoff-only');
}

/** An engine whose database is up but holds no program yet. */
export interface BlankEngine {
  /** Runs the program's statements: the engine's, or it is closed and rejects. */
  load(programCode: string): Promise<ProgramEngine>;
  close(): Promise<void>;
}

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
  /** Called once per view with the way it is maintained (the pipeline logs it). */
  onMaintenance?: (view: string, maintenance: string, reason?: string) => void;
}

export async function startEngine(options: EngineOptions = {}): Promise<BlankEngine> {
  useBaselineWasmCompiler();
  // The process's heaps sized for the engine's steps (host/heap.ts), until memory pressure says otherwise.
  collectEagerly(false);
  // Without a dump of its own (a Kubernetes pod), the one the build shipped (from src/: one in tmp).
  const dump = options.initdbDump ?? engineDump();
  const opening = createInMemory(dump, { settings: ENGINE_SETTINGS, slim: true });
  const [parser, opened] = await Promise.allSettled([loadModule(), opening]);
  if (opened.status === 'rejected') throw opened.reason;
  const db: PGlite = opened.value;
  try {
    if (parser.status === 'rejected') throw parser.reason;
    await db.exec(CLOCK_SQL);
  } catch (error) {
    await db.close();
    throw error;
  }
  return {
    async load(programCode) {
      try {
        const statements = programStatements(programCode);
        for (const stmt of statements) {
          try {
            await db.exec(stmt.sql);
          } catch (error) {
            throw new EngineError(`the program does not load: ${(error as Error).message} in: ${stmt.sql.trim()}`);
          }
        }
        return await ProgramEngine.create(db, statements, options);
      } catch (error) {
        await db.close();
        throw error;
      }
    },
    close: () => db.close(),
  };
}

/** Starts an engine and loads a program into it (tests, benchmarks). */
export async function openEngine(programCode: string, options: EngineOptions = {}): Promise<ProgramEngine> {
  return (await startEngine(options)).load(programCode);
}
