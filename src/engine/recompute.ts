import type { Transaction } from '@electric-sql/pglite';
import type { Relation } from './catalog.js';
import { columnList, DELTA, inSchema, quote, STATE, W, WORK } from './sql.js';
import type { JsonValue } from '../model/json.js';
import type { Change } from './types.js';
import { parseExact } from '../model/exact-json.js';

// The fallback that is correct for every view: evaluate the view's query again and diff it against
// the state of the previous step (EXCEPT ALL both ways keeps multiplicities), the difference being
// the view's delta. Its cost follows the view's size, not the change's.

/** An empty table of the view's columns in `schema`. */
const viewTableSql = (schema: string, view: Relation): string =>
  `CREATE UNLOGGED TABLE ${inSchema(schema, view.name)} AS SELECT * FROM public.${quote(view.name)} WITH NO DATA;`;

/** The view's state: its value after the last step. */
export const stateSql = (view: Relation): string => viewTableSql(STATE, view);

/** The fallback's scratch table: the view's value this step. */
export const recomputeWorkSql = (view: Relation): string => viewTableSql(WORK, view);

const positions = (view: Relation): string => view.columns.map((_, i) => i + 1).join(', ');

/** Fills the state from the view's current value (at load and after a restore); no delta. */
export async function rebuildState(tx: Pick<Transaction, 'exec'>, view: Relation): Promise<void> {
  const state = inSchema(STATE, view.name);
  await tx.exec(`TRUNCATE ${state}; INSERT INTO ${state} SELECT * FROM public.${quote(view.name)};`);
}

export async function recompute(tx: Transaction, view: Relation): Promise<void> {
  const state = inSchema(STATE, view.name);
  const delta = inSchema(DELTA, view.name);
  const work = inSchema(WORK, view.name);
  const by = positions(view);
  await tx.exec(`
    TRUNCATE ${work};
    INSERT INTO ${work} SELECT * FROM public.${quote(view.name)};
    TRUNCATE ${delta};
    INSERT INTO ${delta} SELECT *, count(*) FROM (TABLE ${work} EXCEPT ALL TABLE ${state}) x GROUP BY ${by};
    INSERT INTO ${delta} SELECT *, -count(*) FROM (TABLE ${state} EXCEPT ALL TABLE ${work}) x GROUP BY ${by};`);
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
