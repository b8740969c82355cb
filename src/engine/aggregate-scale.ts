import type { Tx } from '../pglite/lazy-transaction.js';
import { W } from './sql.js';

// A numeric SUM's display scale (and so an AVG's, which divides it), as PostgreSQL's: the largest
// scale among the finite arguments the group holds now. Numeric addition keeps the larger scale, so
// an exact sum kept by adding and subtracting shows 12345678901234567.500 once the 0.125 that
// brought the third digit is deleted, where the same SUM evaluated again shows
// 12345678901234567.5 (JSON output keeps a number of that many digits as written). Per group the
// aux table keeps that scale (z) and how many finite arguments have it (zc); a step's delta brings
// its own largest scale and the weights at it. Only when the last argument at the largest scale
// leaves, with finite arguments left, is the group's scale evaluated again over its rows. Arguments
// of a type with one scale (integers, a numeric(10,2) column) keep none of this: measured on
// bench:native's PGlite rules (a SUM of a numeric(10,2)), keeping it cost about a tenth of the rate.

export const z = (j: number) => `z${j}`;
export const zc = (j: number) => `zc${j}`;
/** The delta's largest scale of argument i, a window column beside the delta's rows. */
const dz = (i: number) => `dz${i}`;

/** The aux table's columns for target j: the largest scale (NULL: no finite argument) and its count. */
export const scaleColumns = (j: number): string[] => [`${z(j)} int`, `${zc(j)} bigint NOT NULL`];

const PROBE = 'pg_temp.svc_scale_probe';

/**
 * Whether the values of each of `args` (expressions over `source`, the view's FROM … text) may
 * come in several scales: a numeric without a declared scale. Asked of PostgreSQL through a temporary
 * view's column types; if that fails, they may.
 */
export async function scalesVary(db: Tx, source: string, args: readonly string[]): Promise<boolean[]> {
  if (args.length === 0) return [];
  try {
    await db.exec(`CREATE VIEW ${PROBE} AS SELECT ${args.map((a, i) => `${a} AS a${i}`).join(', ')} ${source}`);
    const { rows } = await db.query<{ type: string; typmod: number }>(
      `SELECT format_type(atttypid, NULL) AS type, atttypmod AS typmod FROM pg_attribute
        WHERE attrelid = '${PROBE}'::regclass AND attnum > 0 ORDER BY attnum`,
    );
    await db.exec(`DROP VIEW ${PROBE}`);
    return args.map((_, i) => rows[i]?.type === 'numeric' && rows[i].typmod < 0);
  } catch {
    await db.exec(`DROP VIEW IF EXISTS ${PROBE}`).catch(() => undefined);
    return args.map(() => true);
  }
}

// scale() is NULL for NULL, NaN and ±Infinity: only finite arguments have one.

/** The delta's largest scale of argument `a` per group, over the delta's rows grouped by `keys`. */
export const scaleWindow = (a: string, i: number, keys: string[]): string =>
  `max(scale(${a})) OVER (PARTITION BY ${keys.join(', ')}) AS ${dz(i)}`;

/** The delta's parts for target j: its largest scale, and the weights of the arguments at it. */
export const scaleParts = (a: string, i: number, j: number): string[] => [
  `max(${dz(i)}) AS ${z(j)}`,
  `coalesce(sum(${W}) FILTER (WHERE scale(${a}) = ${dz(i)}), 0) AS ${zc(j)}`,
];

/**
 * The aux row `a` after the delta's parts (EXCLUDED): a larger scale in the delta replaces the
 * group's (no argument held had it), a smaller one leaves it as it was; with no finite argument
 * left (`finiteLeft` false) the group has no scale.
 */
export const scaleSets = (j: number, finiteLeft: string): string[] => [
  `${z(j)} = CASE WHEN ${finiteLeft} THEN greatest(a.${z(j)}, EXCLUDED.${z(j)}) END`,
  `${zc(j)} = CASE WHEN NOT (${finiteLeft}) THEN 0
     WHEN EXCLUDED.${z(j)} IS NULL OR EXCLUDED.${z(j)} < a.${z(j)} THEN a.${zc(j)}
     WHEN a.${z(j)} IS NULL OR EXCLUDED.${z(j)} > a.${z(j)} THEN EXCLUDED.${zc(j)}
     ELSE a.${zc(j)} + EXCLUDED.${zc(j)} END`,
];

/** An exact sum `s` shown at scale `scale` (NULL while the group has no finite argument). */
export const atScale = (s: string, scale: string): string => `round(${s}, coalesce(${scale}, 0))`;

/** The view's rows of some groups, grouped by the view's keys (and `groupAlso`); `key` is a row's group. */
export interface GroupRows {
  key: string;
  grouped: (select: string, condition?: string, groupAlso?: string) => string;
}

/** Target j's largest scale and its count per group, from the groups' rows (all, or those of `condition`). */
export function setScalesSql(rows: GroupRows, aux: string, arg: string, j: number, condition?: string): string {
  const perScale = rows.grouped(
    `${rows.key} AS svc_key, scale(${arg}) AS sc, count(*) AS cnt`,
    condition,
    `scale(${arg})`,
  );
  const largest = `SELECT DISTINCT ON (svc_key) svc_key, sc, cnt FROM (${perScale}) r
    WHERE sc IS NOT NULL ORDER BY svc_key, sc DESC`;
  return `UPDATE ${aux} a SET ${z(j)} = r.sc, ${zc(j)} = r.cnt FROM (${largest}) r WHERE a.svc_key = r.svc_key;`;
}

/** The touched groups (in `work`) whose largest scale lost its last argument: their scale evaluated again. */
export async function rescale(
  tx: Tx,
  rows: GroupRows,
  targets: readonly { t: { arg: string }; j: number }[],
  aux: string,
  work: string,
): Promise<void> {
  if (targets.length === 0) return;
  const lost = (j: number) => `a.${zc(j)} <= 0 AND a.${z(j)} IS NOT NULL`;
  const touched = `${aux} a JOIN ${work} d ON a.svc_key = d.svc_key`;
  const found = await tx.query<Record<string, boolean | null>>(
    `SELECT ${targets.map(({ j }) => `bool_or(${lost(j)}) AS ${z(j)}`).join(', ')} FROM ${touched}`,
  );
  for (const { t, j } of targets) {
    if (found.rows[0]?.[z(j)] !== true) continue;
    const groups = `${rows.key} IN (SELECT a.svc_key FROM ${touched} WHERE ${lost(j)})`;
    await tx.exec(setScalesSql(rows, aux, t.arg, j, groups));
  }
}
