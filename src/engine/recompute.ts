import type { Transaction } from '@electric-sql/pglite';
import type { Tx } from '../pglite/lazy-transaction.js';
import type { Relation } from './catalog.js';
import { columnList, DELTA, inSchema, quote, STATE, W, WORK } from './sql.js';
import type { JsonValue } from '../model/json.js';
import type { Change } from './types.js';
import { parseExact } from '../model/exact-json.js';

// The fallback that is correct for every view: evaluate the view's query again and diff it against
// the state of the previous step, the difference (with multiplicities) being the view's delta. Its
// cost follows the view's size, not the change's. Rows are compared as their text, not by the
// types' equality, under which 0 = -0 and 1.0 = 1.00: a view whose value went from 0 to -0 (a float
// sum after an upsert) or from 1.0 to 1.00 must show it, as PostgreSQL from scratch does (found by
// the native property test), and a column of a type without equality (json) does not fail the diff.

/** An empty table of the view's columns in `schema`. */
const viewTableSql = (schema: string, view: Relation): string =>
  `CREATE UNLOGGED TABLE ${inSchema(schema, view.name)} AS SELECT * FROM public.${quote(view.name)} WITH NO DATA;`;

/** The view's state: its value after the last step. */
export const stateSql = (view: Relation): string => viewTableSql(STATE, view);

/** The fallback's scratch table: the view's value this step. */
export const recomputeWorkSql = (view: Relation): string => viewTableSql(WORK, view);

/** Fills the state from the view's current value (at load and after a restore); no delta. */
export async function rebuildState(tx: Pick<Transaction, 'exec'>, view: Relation): Promise<void> {
  const state = inSchema(STATE, view.name);
  await tx.exec(`TRUNCATE ${state}; INSERT INTO ${state} SELECT * FROM public.${quote(view.name)};`);
}

export async function recompute(tx: Tx, view: Relation): Promise<void> {
  const state = inSchema(STATE, view.name);
  const delta = inSchema(DELTA, view.name);
  const work = inSchema(WORK, view.name);
  // A row's text read back as the work table's row type gives the same values (record_in of
  // record_out), so the delta holds the rows themselves.
  await tx.exec(`
    TRUNCATE ${work};
    INSERT INTO ${work} SELECT * FROM public.${quote(view.name)};
    TRUNCATE ${delta};
    INSERT INTO ${delta}
      SELECT (x.t::${work}).*, x.w FROM (
        SELECT t, sum(w) AS w FROM (
          SELECT svc_now::text AS t, 1 AS w FROM ${work} svc_now
          UNION ALL
          SELECT svc_was::text, -1 FROM ${state} svc_was) u
        GROUP BY t HAVING sum(w) <> 0) x;`);
  const [changed] = (await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${delta}`)).rows;
  if ((changed?.n ?? 0) > 0) await tx.exec(`TRUNCATE ${state}; INSERT INTO ${state} TABLE ${work};`);
}

/**
 * The relation's delta of this step as changes (values as to_json gives them): a view's, or a
 * table's from `source` (its delta, or its staged input when the step only inserted).
 */
export async function readDelta(
  tx: Pick<Transaction, 'query'>,
  relation: Relation,
  source = inSchema(DELTA, relation.name),
): Promise<Change[]> {
  // Whole rows by row_to_json (the fast path in C), the weight taken out of each in JS.
  const [result] = (
    await tx.query<{ rows: string }>(
      `SELECT coalesce(json_agg(__svc_row), '[]')::text AS rows
         FROM (SELECT ${columnList(relation.columns)}, ${W} FROM ${source}) __svc_row`,
    )
  ).rows;
  const rows = parseExact(result?.rows ?? '[]') as Record<string, JsonValue>[];
  return rows.map((row) => {
    const weight = Number(row[W]);
    delete row[W];
    return { weight, row };
  });
}
