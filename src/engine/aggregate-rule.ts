import type { Tx } from '../pglite/lazy-transaction.js';
import type { Relation } from './catalog.js';
import {
  atScale,
  scaleColumns,
  scaleParts,
  scaleSets,
  rescale,
  scalesVary,
  scaleWindow,
  setScalesSql,
  type GroupRows,
  z,
  zc,
} from './aggregate-scale.js';
import { deltaTerms, type Sources } from './delta-sql.js';
import { consolidateSql, DELTA, inSchema, quote, STATE, W, WORK } from './sql.js';
import type { Core } from './view-core.js';
import type { Shape } from './view-shape.js';

// The `aggregate` rule: GROUP BY whose select list is its keys and COUNT / SUM / AVG / MIN / MAX
// calls. Per group it keeps, in an auxiliary table, the row count and each aggregate's parts (count
// of non-NULL arguments, exact sum, least / greatest value); a step adds the delta's parts, so its
// cost follows the delta even when every group is touched. The view's state is a projection of
// that table. Sums stay exact only for integer and numeric results (a float sum would drift from a
// recomputation), and a MIN / MAX whose group lost a value is evaluated again for that group. A
// numeric sum counts its NaN, Infinity and -Infinity arguments apart and sums only the finite ones:
// NaN and infinities cannot be subtracted again (NaN − NaN is NaN), so a NaN inserted then deleted
// left the sum NaN for good, unlike the same query evaluated from scratch. Such a sum also keeps
// its display scale (src/engine/aggregate-scale.ts).
// Groups are found by the text of their key row, so keys must be of types whose text is canonical.

export const AUX = 'svc_aux';

const CANONICAL_KEYS = /^(smallint|integer|bigint|text|character varying(\(\d+\))?|boolean|date|uuid)$/;
const EXACT_SUM = /^(smallint|integer|bigint|numeric(\(\d+(,\d+)?\))?)$/;

type Target =
  | { kind: 'key'; key: number }
  | { kind: 'count*' }
  | { kind: 'count' | 'min' | 'max'; arg: string }
  /** `scaleVaries`: the argument's values may differ in scale (aggregate-scale.ts). */
  | { kind: 'sum' | 'avg'; arg: string; scaleVaries: boolean };
export interface AggregatePlan {
  core: Core;
  keys: string[];
  targets: Target[];
}

/** `name(arg)` when the text is exactly one call whose parentheses close at its end. */
function call(expr: string): { name: string; arg: string } | undefined {
  const m = /^(\w+)\((.*)\)$/s.exec(expr);
  if (!m) return undefined;
  let depth = 0;
  for (const ch of m[2]!) {
    depth += ch === '(' ? 1 : ch === ')' ? -1 : 0;
    if (depth < 0) return undefined;
  }
  return depth === 0 ? { name: m[1]!.toLowerCase(), arg: m[2]!.trim() } : undefined;
}

export function aggregatePlan(view: Relation, shape: Extract<Shape, { rule: 'group' }>): AggregatePlan | undefined {
  if (shape.having || shape.distinct) return undefined;
  if (shape.keys.some((k) => !CANONICAL_KEYS.test(view.columns[k.column]!.type))) return undefined;
  const targets: Target[] = [];
  for (const [i, expr] of shape.core.targetExprs.entries()) {
    const key = shape.keys.findIndex((k) => k.column === i);
    if (key >= 0) {
      targets.push({ kind: 'key', key });
      continue;
    }
    const c = call(expr);
    if (!c || /^(DISTINCT|ALL)\b/i.test(c.arg)) return undefined;
    const type = view.columns[i]!.type;
    if (c.name === 'count') targets.push(c.arg === '*' ? { kind: 'count*' } : { kind: 'count', arg: c.arg });
    else if ((c.name === 'sum' || c.name === 'avg') && EXACT_SUM.test(type))
      targets.push({ kind: c.name, arg: c.arg, scaleVaries: true });
    else if (c.name === 'min' || c.name === 'max') targets.push({ kind: c.name, arg: c.arg });
    else return undefined;
  }
  return { core: shape.core, keys: shape.keys.map((k) => k.expr), targets };
}

/**
 * The plan with each numeric sum's `scaleVaries` asked of PostgreSQL (else every one keeps its
 * scale); a view with none (integer sums, counts, extremes) asks nothing.
 */
export async function withScales(db: Tx, view: Relation, plan: AggregatePlan): Promise<AggregatePlan> {
  const sums = plan.targets.flatMap((t, j) =>
    (t.kind === 'sum' || t.kind === 'avg') && specials(t, view.columns[j]!.type) ? [t] : [],
  );
  const from = plan.core.text.slice(plan.core.from.start, plan.core.from.end);
  const args = sums.map((t) => t.arg);
  const vary = await scalesVary(db, from, args);
  return {
    ...plan,
    targets: plan.targets.map((t) =>
      t.kind === 'sum' || t.kind === 'avg' ? { ...t, scaleVaries: vary[sums.indexOf(t)] ?? false } : t,
    ),
  };
}

const k = (i: number) => `k${i}`;
/** A sum's counts of NaN, +Infinity and -Infinity arguments (numeric sums only). */
const SPECIAL = [
  { col: (j: number) => `x${j}`, value: "'NaN'::numeric" },
  { col: (j: number) => `p${j}`, value: "'Infinity'::numeric" },
  { col: (j: number) => `q${j}`, value: "'-Infinity'::numeric" },
] as const;
const finite = (arg: string) => `(${arg}) NOT IN (${SPECIAL.map((sp) => sp.value).join(', ')})`;
/** Whether target j sums numerics (which may be NaN or infinite): every AVG, and SUM of a numeric. */
const specials = (t: Target, type: string): boolean =>
  t.kind === 'avg' || (t.kind === 'sum' && type.startsWith('numeric'));
/** Whether target j's sum keeps its display scale: a numeric one whose arguments' scales vary. */
const keepsScale = (t: Target, type: string): t is Extract<Target, { scaleVaries: boolean }> =>
  specials(t, type) && 'scaleVaries' in t && t.scaleVaries;
const n = (j: number) => `n${j}`;
const s = (j: number) => `s${j}`;
const m = (j: number) => `m${j}`;

/**
 * The auxiliary table, the view's state as a projection of it (replacing the state table), and the
 * step's scratch table: the delta's parts per group, in the aux table's types.
 */
export function aggregateSetupSql(view: Relation, plan: AggregatePlan): string {
  const aux = inSchema(AUX, view.name);
  const cols: string[] = ['svc_key text PRIMARY KEY'];
  plan.targets.forEach((t, j) => {
    const type = view.columns[j]!.type;
    if (t.kind === 'key') cols.push(`${k(t.key)} ${type}`);
    else if (t.kind !== 'count*') {
      cols.push(`${n(j)} bigint NOT NULL`);
      if (t.kind === 'sum' || t.kind === 'avg') cols.push(`${s(j)} ${t.kind === 'avg' ? 'numeric' : type} NOT NULL`);
      if (specials(t, type)) for (const sp of SPECIAL) cols.push(`${sp.col(j)} bigint NOT NULL`);
      if (keepsScale(t, type)) cols.push(...scaleColumns(j));
      if (t.kind === 'min' || t.kind === 'max') cols.push(`${m(j)} ${type}`);
    }
  });
  cols.push('c bigint NOT NULL');
  return `CREATE UNLOGGED TABLE ${aux} (${cols.join(', ')});
    CREATE UNLOGGED TABLE ${inSchema(WORK, view.name)} (LIKE ${aux}, recheck boolean NOT NULL);
    DROP TABLE ${inSchema(STATE, view.name)};
    CREATE VIEW ${inSchema(STATE, view.name)} AS SELECT ${projection(view, plan, aux)} FROM ${aux};`;
}

/** The view's row from an aux row `a`. */
function projection(view: Relation, plan: AggregatePlan, a: string): string {
  return plan.targets
    .map((t, j) => {
      const name = quote(view.columns[j]!.name);
      if (t.kind === 'key') return `${a}.${k(t.key)} AS ${name}`;
      if (t.kind === 'count*') return `${a}.c AS ${name}`;
      if (t.kind === 'count') return `${a}.${n(j)} AS ${name}`;
      const type = view.columns[j]!.type;
      const special = specials(t, type) ? specialCases(a, j) : '';
      const sum = keepsScale(t, type) ? atScale(`${a}.${s(j)}`, `${a}.${z(j)}`) : `${a}.${s(j)}`;
      if (t.kind === 'sum') return `CASE WHEN ${a}.${n(j)} = 0 THEN NULL ${special}ELSE ${sum} END AS ${name}`;
      if (t.kind === 'avg')
        return `CASE WHEN ${a}.${n(j)} = 0 THEN NULL ${special}ELSE ${sum} / ${a}.${n(j)}::numeric END AS ${name}`;
      return `${a}.${m(j)} AS ${name}`;
    })
    .join(', ');
}

/** A numeric sum as PostgreSQL's: NaN if any argument is (or both infinities are there), else ±Infinity. */
function specialCases(a: string, j: number): string {
  const [x, p, q] = SPECIAL.map((sp) => `${a}.${sp.col(j)}`);
  return `WHEN ${x} > 0 OR (${p} > 0 AND ${q} > 0) THEN 'NaN'::numeric WHEN ${p} > 0 THEN 'Infinity'::numeric WHEN ${q} > 0 THEN '-Infinity'::numeric `;
}

/** SELECT … FROM … WHERE … [AND condition] GROUP BY the keys [, groupAlso], with the given select list. */
function grouped(plan: AggregatePlan, select: string, condition?: string, groupAlso?: string): string {
  const { text, from, where } = plan.core;
  const filters = [where && `(${text.slice(where.start, where.end)})`, condition].filter(Boolean);
  const whereText = filters.length > 0 ? ` WHERE ${filters.join(' AND ')}` : '';
  const by = [...plan.keys, ...(groupAlso ? [groupAlso] : [])].join(', ');
  return `SELECT ${select} ${text.slice(from.start, from.end)}${whereText} GROUP BY ${by}`;
}

const keyText = (exprs: string[]) => `ROW(${exprs.join(', ')})::text`;

/** A group's rows, for evaluating a part of some groups again. */
const groupRows = (plan: AggregatePlan): GroupRows => ({
  key: keyText(plan.keys),
  grouped: (select, condition, groupAlso) => grouped(plan, select, condition, groupAlso),
});

/** The aux table evaluated from scratch (at load and after a restore). */
export function aggregateRebuildSql(view: Relation, plan: AggregatePlan): string {
  const aux = inSchema(AUX, view.name);
  const columns: Array<[select: string, name: string]> = [[keyText(plan.keys), 'svc_key']];
  plan.targets.forEach((t, j) => {
    if (t.kind === 'key') columns.push([plan.keys[t.key]!, k(t.key)]);
    else if (t.kind !== 'count*') columns.push(...rebuiltParts(t, j, view.columns[j]!.type));
  });
  columns.push(['count(*)', 'c']);
  const names = columns.map(([, name]) => name).join(', ');
  const select = columns.map(([expr]) => expr).join(', ');
  return `TRUNCATE ${aux}; INSERT INTO ${aux} (${names}) ${grouped(plan, select)};
    ${scaled(view, plan)
      .map(({ t, j }) => setScalesSql(groupRows(plan), aux, t.arg, j))
      .join('\n')}`;
}

/** One aggregate's parts in the aux table, from scratch: [expression, aux column] each. */
function rebuiltParts(t: Extract<Target, { arg: string }>, j: number, type: string): Array<[string, string]> {
  const parts: Array<[string, string]> = [[`count(${t.arg})`, n(j)]];
  const special = specials(t, type);
  if (t.kind === 'sum' || t.kind === 'avg') {
    const only = special ? ` FILTER (WHERE ${finite(t.arg)})` : '';
    parts.push([`coalesce(sum(${t.arg})${only}${t.kind === 'avg' ? '::numeric' : ''}, 0)`, s(j)]);
  }
  if (special) for (const sp of SPECIAL) parts.push([`count(*) FILTER (WHERE (${t.arg}) = ${sp.value})`, sp.col(j)]);
  // Set by setScalesSql once the groups are in.
  if (keepsScale(t, type)) parts.push(['NULL::int', z(j)], ['0', zc(j)]);
  if (t.kind === 'min' || t.kind === 'max') parts.push([`${t.kind}(${t.arg})`, m(j)]);
  return parts;
}

export async function applyAggregate(tx: Tx, view: Relation, plan: AggregatePlan, sources: Sources): Promise<void> {
  const aux = inSchema(AUX, view.name);
  const delta = inSchema(DELTA, view.name);
  await tx.exec(`TRUNCATE ${delta}`);
  const args = plan.targets.flatMap((t) => ('arg' in t ? [t.arg] : []));
  const terms = deltaTerms(plan.core, [...plan.keys, ...args].join(', '), sources);
  if (terms.length === 0) return;
  const kx = plan.keys.map((_, i) => k(i));
  const ax = args.map((_, i) => `a${i}`);
  const parts: string[] = [];
  const sets: string[] = ['c = a.c + EXCLUDED.c'];
  const recheck: string[] = [];
  const windows: string[] = [];
  let arg = 0;
  plan.targets.forEach((t, j) => {
    if (!('arg' in t)) return;
    const i = arg++;
    const a = ax[i]!;
    parts.push(`sum(CASE WHEN ${a} IS NULL THEN 0 ELSE ${W} END) AS ${n(j)}`);
    sets.push(`${n(j)} = a.${n(j)} + EXCLUDED.${n(j)}`);
    const special = specials(t, view.columns[j]!.type);
    if (t.kind === 'sum' || t.kind === 'avg') {
      parts.push(
        `coalesce(sum(${special ? `CASE WHEN ${finite(a)} THEN ${a} * ${W} END` : `${a} * ${W}`}), 0) AS ${s(j)}`,
      );
      sets.push(`${s(j)} = a.${s(j)} + EXCLUDED.${s(j)}`);
    }
    if (special)
      for (const sp of SPECIAL) {
        parts.push(`sum(CASE WHEN ${a} = ${sp.value} THEN ${W} ELSE 0 END) AS ${sp.col(j)}`);
        sets.push(`${sp.col(j)} = a.${sp.col(j)} + EXCLUDED.${sp.col(j)}`);
      }
    if (keepsScale(t, view.columns[j]!.type)) {
      windows.push(scaleWindow(a, i, kx));
      parts.push(...scaleParts(a, i, j));
      const after = (col: string) => `(a.${col} + EXCLUDED.${col})`;
      sets.push(...scaleSets(j, `${after(n(j))} > ${SPECIAL.map((sp) => after(sp.col(j))).join(' + ')}`));
    }
    if (t.kind === 'min' || t.kind === 'max') {
      parts.push(`${t.kind}(${a}) FILTER (WHERE ${W} > 0) AS ${m(j)}`);
      sets.push(`${m(j)} = ${t.kind === 'min' ? 'least' : 'greatest'}(a.${m(j)}, EXCLUDED.${m(j)})`);
      recheck.push(`bool_or(${W} < 0 AND ${a} IS NOT NULL)`);
    }
  });
  const partNames = plan.targets.flatMap((t, j) =>
    !('arg' in t)
      ? []
      : [
          n(j),
          ...(t.kind === 'sum' || t.kind === 'avg' ? [s(j)] : []),
          ...(specials(t, view.columns[j]!.type) ? SPECIAL.map((sp) => sp.col(j)) : []),
          ...(keepsScale(t, view.columns[j]!.type) ? [z(j), zc(j)] : []),
          ...(t.kind === 'min' || t.kind === 'max' ? [m(j)] : []),
        ],
  );
  const insertCols = ['svc_key', ...kx, ...partNames, 'c'].join(', ');
  const view2aux = projection(view, plan, 'a');
  const work = inSchema(WORK, view.name);
  const rows = `(${terms.join('\nUNION ALL\n')}) x(${[...kx, ...ax, W].join(', ')})`;
  await tx.exec(`
    TRUNCATE ${work};
    INSERT INTO ${work} (${insertCols}, recheck)
      SELECT ${keyText(kx)}, ${[...kx, ...parts].join(', ')}, sum(${W}),
             ${recheck.length > 0 ? `(${recheck.join(' OR ')})` : 'false'}
        FROM ${windows.length > 0 ? `(SELECT x.*, ${windows.join(', ')} FROM ${rows}) x` : rows}
        GROUP BY ${kx.join(', ')};
    INSERT INTO ${delta} SELECT ${view2aux}, -1 FROM ${aux} a JOIN ${work} d ON a.svc_key = d.svc_key;
    INSERT INTO ${aux} AS a (${insertCols}) SELECT ${insertCols} FROM ${work}
      ON CONFLICT (svc_key) DO UPDATE SET ${sets.join(', ')};`);
  if (recheck.length > 0) await recheckExtremes(tx, plan, aux, work);
  await rescale(tx, groupRows(plan), scaled(view, plan), aux, work);
  await tx.exec(`
    DELETE FROM ${aux} a USING ${work} d WHERE a.svc_key = d.svc_key AND a.c = 0;
    INSERT INTO ${delta} SELECT ${view2aux}, 1 FROM ${aux} a JOIN ${work} d ON a.svc_key = d.svc_key;
    ${consolidateSql(delta, view.columns)}`);
}

/** MIN / MAX of the groups that lost a value: evaluated again over those groups' rows. */
async function recheckExtremes(tx: Tx, plan: AggregatePlan, aux: string, work: string): Promise<void> {
  const extremes = plan.targets.flatMap((t, j) => (t.kind === 'min' || t.kind === 'max' ? [{ t, j }] : []));
  const select = [
    `${keyText(plan.keys)} AS svc_key`,
    ...extremes.map(({ t, j }) => `${t.kind}(${'arg' in t ? t.arg : ''}) AS ${m(j)}`),
  ];
  const condition = `${keyText(plan.keys)} IN (SELECT svc_key FROM ${work} WHERE recheck)`;
  await tx.exec(`
    UPDATE ${aux} a SET ${extremes.map(({ j }) => `${m(j)} = r.${m(j)}`).join(', ')}
      FROM (${grouped(plan, select.join(', '), condition)}) r WHERE a.svc_key = r.svc_key;`);
}

/** The targets whose numeric sum keeps a display scale (aggregate-scale.ts). */
const scaled = (view: Relation, plan: AggregatePlan) =>
  plan.targets.flatMap((t, j) => (keepsScale(t, view.columns[j]!.type) ? [{ t, j }] : []));
