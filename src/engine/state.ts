import type { PGlite } from '@electric-sql/pglite';
import { SvcError } from '../model/errors.js';
import type { JsonValue } from '../model/json.js';
import type { Relation } from './catalog.js';
import { stage } from './ingest.js';
import type { ViewMaintainer } from './maintain.js';
import { columnList, inSchema, ORD, quote, STAGE, STATE, W } from './sql.js';
import type { Change } from './types.js';

// The engine's state as a checkpoint holds it: the tables' rows, the views' kept state, and the
// input buffered for the next step (so a checkpoint loses none of what was accepted). Taken between
// steps, in one turn of the engine's queue, so the three agree.

export type TableRows = Record<string, JsonValue[]>;
export interface EngineState {
  tables: TableRows;
  views: TableRows;
  staged: Record<string, Change[]>;
}

async function rowsOf(db: PGlite, source: string): Promise<JsonValue[]> {
  const [row] = (
    await db.query<{ rows: string }>(
      `SELECT coalesce(json_agg(__svc_row), '[]')::text AS rows FROM ${source} __svc_row`,
    )
  ).rows;
  return JSON.parse(row?.rows ?? '[]') as JsonValue[];
}

export async function dumpState(db: PGlite, catalog: readonly Relation[]): Promise<EngineState> {
  const state: EngineState = { tables: {}, views: {}, staged: {} };
  for (const r of catalog) {
    if (r.kind === 'view') {
      state.views[r.name] = await rowsOf(db, inSchema(STATE, r.name));
      continue;
    }
    state.tables[r.name] = await rowsOf(db, `public.${quote(r.name)}`);
    const [staged] = (
      await db.query<{ changes: string }>(
        `SELECT coalesce(json_agg(json_build_object('weight', s.${W}, 'row',
                  (SELECT row_to_json(__svc_row) FROM (SELECT ${columnList(r.columns, 's.')}) __svc_row)) ORDER BY s.${ORD}), '[]')::text
                  AS changes
           FROM ${inSchema(STAGE, r.name)} s`,
      )
    ).rows;
    const changes = JSON.parse(staged?.changes ?? '[]') as Change[];
    if (changes.length > 0) state.staged[r.name] = changes;
  }
  return state;
}

export interface Restored {
  restored: Record<string, number>;
  skipped: string[];
  /** Records put back into the staging tables (applied by the next step). */
  staged: Record<string, number>;
}

/**
 * Loads a checkpoint. `strict` (replay of the same program) fails on anything that does not fit and
 * takes the views' state as written; otherwise (bootstrap of a changed program) a table whose rows
 * no longer fit is left empty and reported, and the views are evaluated from the tables.
 */
export async function restoreState(
  db: PGlite,
  catalog: readonly Relation[],
  state: Partial<EngineState> & { tables: TableRows },
  strict: boolean,
  views: Pick<ViewMaintainer, 'keepsRows' | 'rebuild'>,
): Promise<Restored> {
  const out: Restored = { restored: {}, skipped: [], staged: {} };
  const fail = (message: string) => new SvcError(500, 'CheckpointMismatch', message);
  for (const [name, rows] of Object.entries(state.tables)) {
    const table = catalog.find((r) => r.kind === 'table' && r.name === name);
    if (!table) {
      if (strict) throw fail(`the checkpoint has rows of an unknown table ${name}`);
      out.skipped.push(name);
      continue;
    }
    try {
      await insertRows(db, `public.${quote(name)}`, rows);
      out.restored[name] = rows.length;
    } catch (error) {
      if (strict) throw fail(`cannot restore table ${name}: ${(error as Error).message}`);
      out.skipped.push(name);
    }
  }
  const viewList = catalog.filter((r) => r.kind === 'view');
  const kept = strict && state.views !== undefined && viewList.every((v) => state.views?.[v.name] !== undefined);
  await db.transaction(async (tx) => {
    for (const view of viewList) {
      if (kept && views.keepsRows(view.name)) {
        // The state the engine computed at load (from empty tables) makes way for the checkpoint's.
        await tx.exec(`TRUNCATE ${inSchema(STATE, view.name)}`);
        await insertRows(tx, inSchema(STATE, view.name), state.views?.[view.name] ?? []);
      } else await views.rebuild(tx, view);
    }
  });
  for (const [name, changes] of Object.entries(state.staged ?? {})) {
    const table = catalog.find((r) => r.kind === 'table' && r.name === name);
    if (!table) continue;
    const checked = await stage(db, table, changes);
    if (strict && checked.errors.length > 0) throw fail(`cannot restore the input buffered for ${name}`);
    out.staged[name] = checked.accepted;
  }
  return out;
}

// json_populate_recordset maps members to columns by name: members of dropped columns are ignored
// and new columns get NULL, which is what a bootstrap of a changed table wants.
async function insertRows(db: Pick<PGlite, 'query'>, target: string, rows: JsonValue[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(`INSERT INTO ${target} SELECT * FROM json_populate_recordset(NULL::${target}, $1::json)`, [
    JSON.stringify(rows),
  ]);
}
