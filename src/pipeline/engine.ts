import { setFlagsFromString } from 'node:v8';
import { loadModule } from 'libpg-query';
import { SourceMap } from '../compiler/sql/source-map.js';
import { splitProgram } from '../compiler/sql/split.js';
import type { JsonValue } from '../model/json.js';
import type { Database } from '../store/database.js';
import { openPglite } from '../store/pglite-database.js';

// The engine: an in-memory PGlite holding the program's tables and views. Statements are split and
// stripped of their `WITH ('k'='v')` properties by the compiler's own splitter, so the process runs
// exactly the SQL the compiler checked.

export type TableRows = Record<string, JsonValue[]>;

export class EngineError extends Error {
  override readonly name = 'EngineError';
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

export interface Engine {
  /** Input tables of the program, by name as the catalog spells it. */
  readonly tables: readonly string[];
  /** Every input table's rows, as JSON (what a checkpoint stores). */
  dump(): Promise<TableRows>;
  /**
   * Loads checkpointed rows into the tables of the same name. `strict` (replay of the same program)
   * fails on any row that does not fit; otherwise (bootstrap of a changed program) a table whose rows
   * no longer fit is left empty and reported.
   */
  restore(rows: TableRows, strict: boolean): Promise<{ restored: Record<string, number>; skipped: string[] }>;
  rowCounts(): Promise<Record<string, number>>;
  /** What NOW() returns in the program's queries from now on. */
  setNow(ms: number): Promise<void>;
  close(): Promise<void>;
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
const ENGINE_SETTINGS = { shared_buffers: '16MB' };

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
  load(programCode: string, tables: readonly string[]): Promise<Engine>;
  close(): Promise<void>;
}

/**
 * Starts the database before the program is known, so that a process can fetch its artifact
 * while PGlite reads its files and compiles its WebAssembly (measured: the two used to run one
 * after the other).
 */
export async function startEngine(template?: string): Promise<BlankEngine> {
  useBaselineWasmCompiler();
  const opening = openPglite(undefined, { template, settings: ENGINE_SETTINGS, slim: true });
  const [parser, opened] = await Promise.allSettled([loadModule(), opening]);
  if (opened.status === 'rejected') throw opened.reason;
  const db = opened.value;
  try {
    if (parser.status === 'rejected') throw parser.reason;
    await db.exec(CLOCK_SQL);
  } catch (error) {
    await db.close();
    throw error;
  }
  return {
    async load(programCode, tables) {
      try {
        const { statements } = splitProgram(programCode, new SourceMap(programCode));
        for (const stmt of statements) {
          try {
            await db.exec(stmt.sql);
          } catch (error) {
            throw new EngineError(`the program does not load: ${(error as Error).message} in: ${stmt.sql.trim()}`);
          }
        }
      } catch (error) {
        await db.close();
        throw error;
      }
      return withProgram(db, tables);
    },
    close: () => db.close(),
  };
}

function withProgram(db: Database, tables: readonly string[]): Engine {
  const rowsOf = async (table: string): Promise<JsonValue[]> => {
    const [row] = await db.query<{ rows: JsonValue[] }>(
      `SELECT coalesce(json_agg(t), '[]'::json) AS rows FROM ${quote(table)} t`,
    );
    return row?.rows ?? [];
  };

  // json_populate_recordset maps JSON members to columns by name: members of dropped columns are
  // ignored and new columns get NULL, which is what a bootstrap of a changed table wants.
  const insert = async (q: Pick<Database, 'query'>, table: string, rows: JsonValue[]): Promise<void> => {
    if (rows.length === 0) return;
    await q.query(
      `INSERT INTO ${quote(table)} SELECT * FROM json_populate_recordset(NULL::${quote(table)}, $1::json)`,
      [JSON.stringify(rows)],
    );
  };

  return {
    tables,
    async dump() {
      const out: TableRows = {};
      for (const table of tables) out[table] = await rowsOf(table);
      return out;
    },
    async restore(rows, strict) {
      const restored: Record<string, number> = {};
      const skipped: string[] = [];
      for (const [table, tableRows] of Object.entries(rows)) {
        if (!tables.includes(table)) {
          if (strict) throw new EngineError(`the checkpoint has rows of an unknown table ${table}`);
          skipped.push(table);
          continue;
        }
        try {
          await db.transaction((tx) => insert(tx, table, tableRows));
          restored[table] = tableRows.length;
        } catch (error) {
          if (strict) throw new EngineError(`cannot restore table ${table}: ${(error as Error).message}`);
          skipped.push(table);
        }
      }
      return { restored, skipped };
    },
    async rowCounts() {
      const out: Record<string, number> = {};
      for (const table of tables) {
        const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${quote(table)}`);
        out[table] = row?.n ?? 0;
      }
      return out;
    },
    async setNow(ms) {
      await db.query(`SELECT set_config('svc.now_ms', $1, false)`, [String(ms)]);
    },
    close: () => db.close(),
  };
}
