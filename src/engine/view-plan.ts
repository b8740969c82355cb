import { rowMaker } from './json-rows.js';
import { valueToJson } from './expressions/values.js';
import type { Database } from '../pglite/parking.js';
import type { AggregatePlan } from './aggregate-rule.js';
import type { Relation } from './catalog.js';
import { currentOf } from './delta-sql.js';
import type { NativePlan } from './native-views.js';
import { planView } from './planner/plan.js';
import { quote, inSchema, STATE } from './sql.js';
import { Integral } from './traces/integral.js';
import { mentioned, type Shape, viewShape } from './view-shape.js';
import type { ShardPool } from './workers/pool.js';
import { shardedCircuit } from './workers/sharded-root.js';
import { CircuitProfile } from './operators/profile.js';

// How each view is kept, decided once when the program loads (maintain.ts runs the plans): its
// shape and inputs, natively or by which PGlite rule and why, the indexes its rule's lookups want,
// and whether a native view's rows are written back into PGlite, held in JS, or neither.

export interface Plan {
  view: Relation;
  shape: Shape;
  /** Set when the `aggregate` rule keeps it (a GROUP BY shape whose aggregates decompose). */
  aggregate?: AggregatePlan;
  /** Relations it reads; undefined when one of them is not the program's (then it always runs). */
  inputs: string[] | undefined;
  /** Reads NOW() or a volatile function: evaluated every step. */
  always: boolean;
  /** Names its query mentions (the program's relations among them). */
  mentions: string[];
  /**
   * Kept without state: a linear view's delta needs none, and only a reader needs its value (an
   * ad-hoc query or snapshot of a materialized view, another view's join). Measured at 10,000-row
   * steps: writing a join view's state was a tenth of a step.
   */
  stateless: boolean;
  /** Kept by the native path (src/engine/planner): its circuit. */
  native?: NativePlan;
  /** A native view written back into PGlite (read by a view PGlite keeps). */
  mirrored?: boolean;
  /** A materialized native view's rows, when not mirrored (traces/integral.ts). */
  held?: Integral;
}

/** The shape of one view's query and what it reads; `recompute` when a rule may not keep it. */
export async function decide(
  db: Database,
  view: Relation,
  known: ReadonlySet<string>,
  aggregates: ReadonlySet<string>,
  incremental: boolean,
): Promise<Pick<Plan, 'shape' | 'inputs' | 'always' | 'mentions'> & { def: string }> {
  const [info] = (
    await db.query<{ def: string; always: boolean }>(
      `SELECT pg_get_viewdef(c.oid) AS def,
              EXISTS (SELECT 1 FROM pg_rewrite r JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass
                        AND d.objid = r.oid AND d.refclassid = 'pg_proc'::regclass
                        JOIN pg_proc p ON p.oid = d.refobjid
                       WHERE r.ev_class = c.oid AND (p.provolatile = 'v' OR p.oid = 'public.now()'::regprocedure)) AS always
         FROM pg_class c WHERE c.oid = $1::regclass`,
      [`public.${quote(view.name)}`],
    )
  ).rows;
  const def = info?.def ?? '';
  const names = mentioned(def);
  const inputs = names.every((n) => known.has(n)) ? names : undefined;
  const always = info?.always ?? false;
  const because = (reason: string) => ({
    shape: { rule: 'recompute', reason } as const,
    inputs,
    always,
    mentions: names,
    def,
  });
  if (!incremental) return because('incremental maintenance is off');
  if (always) return because('reads NOW() or a volatile function');
  if (!inputs) return because('reads a relation that is not the program’s');
  return { shape: viewShape(def, aggregates), inputs, always, mentions: names, def };
}

/** Indexes that make a rule's lookups cheap: join columns of its inputs, group keys of its state. */
export function indexesFor(
  view: Relation,
  shape: Shape,
  catalog: readonly Relation[],
  derived: ReadonlySet<string>,
): string[] {
  const out: string[] = [];
  const on = (relation: string, columns: string[]) => {
    const r = catalog.find((c) => c.name === relation);
    if (!r || derived.has(relation) || columns.some((c) => !r.columns.some((rc) => rc.name === c))) return;
    out.push(`CREATE INDEX ON ${currentOf(relation, r.kind)} (${columns.map(quote).join(', ')});`);
  };
  const cores = shape.rule === 'linear' ? shape.arms : shape.rule === 'group' ? [shape.core] : [];
  for (const core of cores)
    for (const eq of core.equalities) {
      const occurrence = core.occurrences.find((o) => o.alias === eq.alias);
      if (occurrence) on(occurrence.relation, [eq.column]);
    }
  if (shape.rule === 'group' && !derived.has(view.name)) {
    const stateKeys = shape.keys.map((k) => view.columns[k.column]!.name);
    out.push(`CREATE INDEX ON ${inSchema(STATE, view.name)} (${stateKeys.map(quote).join(', ')});`);
    const [only] = shape.core.occurrences;
    if (shape.core.occurrences.length === 1 && only) {
      const plain = shape.keys.map((k) => /^(?:\w+\.)?"?(\w+)"?$/.exec(k.expr)?.[1]);
      if (plain.every((c) => c !== undefined)) on(only.relation, plain as string[]);
    }
  }
  return out;
}

/** The name of the rule that keeps a view PGlite keeps. */
export const ruleName = (shape: Shape, aggregate: AggregatePlan | undefined): string =>
  aggregate ? 'aggregate' : shape.rule === 'group' && shape.touchedBy ? 'outer-join' : shape.rule;

/** Why a view is not kept natively, and why not by an incremental rule either (recompute). */
export function reasonOf(shape: Shape, notNative: string): string {
  const why = `not native: ${notNative}`;
  return shape.rule === 'recompute' && shape.reason !== notNative ? `${shape.reason}; ${why}` : why;
}

/** The view's native circuit, or why it has none. */
export function nativeOf(
  def: string,
  view: Relation,
  { always, inputs }: Pick<Plan, 'always' | 'inputs'>,
  catalog: readonly Relation[],
  { pool, timed }: { pool: ShardPool | undefined; timed: boolean },
): NativePlan | { reason: string } {
  if (always) return { reason: 'reads NOW() or a volatile function' };
  if (!inputs) return { reason: 'reads a relation that is not the program’s' };
  const byName = new Map(catalog.map((r) => [r.name, r]));
  const reads = { columnsOf: (r: string) => (r === view.name ? undefined : byName.get(r)?.columns) };
  const planned = pool ? pool.plan(def, view.columns, reads, timed) : planView(def, view.columns, reads);
  if (!planned.native) return { reason: planned.reason };
  const names = view.columns.map((c) => c.name);
  const sharded = pool && shardedCircuit(planned.root);
  const local = sharded ? undefined : new CircuitProfile(planned.root, timed);
  const profile = sharded ? () => sharded.pool.profile(sharded.id) : () => local?.read() ?? [];
  return { ...planned, json: rowMaker(names, planned.types, valueToJson), profile };
}

/** A view the native path keeps. */
export function nativeView(
  view: Relation,
  decided: Pick<Plan, 'shape' | 'inputs' | 'always' | 'mentions'>,
  native: NativePlan,
  onMaintenance?: (view: string, maintenance: string, reason?: string) => void,
): Plan {
  view.maintenance = 'native';
  onMaintenance?.(view.name, 'native');
  return { view, ...decided, stateless: false, native };
}

/**
 * Once every plan is known: a native view is written back into PGlite when a view PGlite keeps reads
 * it, else a materialized one's rows are held in JS; a linear PGlite view keeps no state when nothing
 * reads it.
 */
export function keepOrMirror(plan: Plan, plans: readonly Plan[]): void {
  const readBy = (pick: (p: Plan) => boolean) =>
    plans.some((other) => other !== plan && pick(other) && other.mentions.includes(plan.view.name));
  if (plan.native) {
    plan.mirrored = readBy((p) => !p.native);
    if (plan.view.materialized && !plan.mirrored) plan.held = new Integral();
  } else plan.stateless = plan.shape.rule === 'linear' && !plan.view.materialized && !readBy(() => true);
}
