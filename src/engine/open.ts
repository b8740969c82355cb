import { setFlagsFromString } from 'node:v8';
import { ownSpill } from './traces/page-file.js';
import { collectEagerly } from './host/heap.js';
import { loadModule } from 'libpg-query';
import { createInMemory, openDump } from '../pglite/initdb-dump.js';
import { ParkingDatabase } from '../pglite/parking.js';
import { engineDump } from '../pglite/shipped-dump.js';
import { NOW_SETTING, ProgramEngine } from './engine.js';
import type { EngineOptions } from './options.js';

export type { EngineOptions } from './options.js';
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
// (Session settings: set through the parking database, which sets them again when it reopens.)
const CLOCK_SQL = `
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

export async function startEngine(options: EngineOptions = {}): Promise<BlankEngine> {
  useBaselineWasmCompiler();
  // The process's heaps sized for the engine's steps (host/heap.ts), until memory pressure says otherwise.
  collectEagerly(false);
  // Without a dump of its own (a Kubernetes pod), the one the build shipped (from src/: one in tmp).
  const dump = options.initdbDump ?? engineDump();
  const opening = createInMemory(dump, { settings: ENGINE_SETTINGS, slim: true });
  const [parser, opened] = await Promise.allSettled([loadModule(), opening]);
  if (opened.status === 'rejected') throw opened.reason;
  const db = new ParkingDatabase(opened.value, (parked) => openDump(parked, { settings: ENGINE_SETTINGS }));
  try {
    if (parser.status === 'rejected') throw parser.reason;
    await db.setSession('search_path', 'public, pg_catalog');
    await db.setSession(NOW_SETTING, '0');
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
        // A spill directory of this engine's own: its close removes it, with the shards' files in it.
        return await ProgramEngine.create(db, statements, { ...options, spill: ownSpill(options.spill) });
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
