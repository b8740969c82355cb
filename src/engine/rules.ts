import type { Tx } from '../pglite/lazy-transaction.js';
import { applyDelta } from './apply.js';
import type { Relation } from './catalog.js';
import { deltaTerms, restricted, type Sources } from './delta-sql.js';
import { columnList, consolidateSql, DELTA, inSchema, quote, STATE, W, WORK } from './sql.js';
import type { Core } from './view-core.js';
import type { Shape } from './view-shape.js';

// The incremental rules. `linear` (filter, project, inner joins, UNION ALL of those): the view's
// delta is the sum of the delta terms, consolidated, and is applied to the view's state. `group`
// (GROUP BY with any aggregates and HAVING, and DISTINCT as a GROUP BY of its select list): the
// groups the input's delta touches are taken out of the state and evaluated again, restricted to
// those keys, so a step's cost follows the groups it changes, not the table.

const names = (n: number, prefix: string): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

export async function applyLinear(
  tx: Tx,
  view: Relation,
  arms: readonly Core[],
  sources: Sources,
  keepState: boolean,
): Promise<void> {
  const delta = inSchema(DELTA, view.name);
  const cols = columnList(view.columns);
  const terms = arms.flatMap((arm) => deltaTerms(arm, arm.text.slice(arm.targets.start, arm.targets.end), sources));
  await tx.exec(`TRUNCATE ${delta}`);
  if (terms.length === 0) return;
  await tx.exec(`
    INSERT INTO ${delta}
      SELECT ${cols}, sum(${W}) FROM (${terms.join('\nUNION ALL\n')}) x(${cols}, ${W})
       GROUP BY ${cols} HAVING sum(${W}) <> 0;`);
  if (keepState) await applyDelta(tx, STATE, view.name, delta, view.columns);
}

/** The `group` rule's scratch table: the keys a step touches, in the view's column types. */
export function groupWorkSql(view: Relation, shape: Extract<Shape, { rule: 'group' }>): string {
  const columns = shape.keys.map((key, i) => `k${i} ${view.columns[key.column]!.type}`);
  return `CREATE UNLOGGED TABLE ${inSchema(WORK, view.name)} (${columns.join(', ')});`;
}

export async function applyGroup(
  tx: Tx,
  view: Relation,
  shape: Extract<Shape, { rule: 'group' }>,
  sources: Sources,
): Promise<void> {
  const state = inSchema(STATE, view.name);
  const delta = inSchema(DELTA, view.name);
  const work = inSchema(WORK, view.name);
  const { core, keys } = shape;
  await tx.exec(`TRUNCATE ${delta}`);
  const terms = shape.touchedBy
    ? shape.touchedBy
        .filter((t) => sources.changed(t.relation))
        .map((t) => `SELECT ${quote(t.column)}, 0::bigint FROM ${sources.delta(t.relation)}`)
    : deltaTerms(core, keys.map((k) => k.expr).join(', '), sources);
  if (terms.length === 0) return;
  const k = names(keys.length, 'k');
  const kCols = k.join(', ');
  const stateKey = (i: number) => `s.${quote(view.columns[keys[i]!.column]!.name)}`;
  const allKnown = k.map((c) => `${c} IS NOT NULL`).join(' AND ');
  const someNull = `(${k.map((c) => `svc_t.${c} IS NULL`).join(' OR ')})`;
  await tx.exec(`
    TRUNCATE ${work};
    INSERT INTO ${work} SELECT DISTINCT ${kCols} FROM (${terms.join('\nUNION ALL\n')}) x(${kCols}, ${W});
    WITH gone AS (DELETE FROM ${state} s USING ${work} svc_t
                   WHERE ${k.map((c, i) => `${stateKey(i)} = svc_t.${c}`).join(' AND ')} RETURNING s.*)
    INSERT INTO ${delta} SELECT gone.*, -1 FROM gone;
    WITH fresh AS (INSERT INTO ${state}
                     ${restricted(core, `(${keys.map((key) => key.expr).join(', ')}) IN (SELECT ${kCols} FROM ${work} WHERE ${allKnown})`)}
                   RETURNING *)
    INSERT INTO ${delta} SELECT fresh.*, 1 FROM fresh;`);
  // Keys with NULLs do not match with `=`: a second, slower pass for them only when there are any.
  const [nulls] = (await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${work} svc_t WHERE ${someNull}`))
    .rows;
  if ((nulls?.n ?? 0) > 0) {
    const match = (left: (i: number) => string) =>
      `${k.map((c, i) => `${left(i)} IS NOT DISTINCT FROM svc_t.${c}`).join(' AND ')} AND ${someNull}`;
    await tx.exec(`
      WITH gone AS (DELETE FROM ${state} s USING ${work} svc_t WHERE ${match(stateKey)} RETURNING s.*)
      INSERT INTO ${delta} SELECT gone.*, -1 FROM gone;
      WITH fresh AS (INSERT INTO ${state}
                       ${restricted(core, `EXISTS (SELECT 1 FROM ${work} svc_t WHERE ${match((i) => `(${keys[i]!.expr})`)})`)}
                     RETURNING *)
      INSERT INTO ${delta} SELECT fresh.*, 1 FROM fresh;`);
  }
  // A group evaluated again to the same row leaves −row +row: consolidated away.
  await tx.exec(consolidateSql(delta, view.columns));
}
