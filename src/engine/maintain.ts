import type { PGlite, Transaction } from '@electric-sql/pglite';
import {
  AUX,
  aggregatePlan,
  type AggregatePlan,
  aggregateRebuildSql,
  applyAggregate,
  aggregateSetupSql,
} from './aggregate-rule.js';
import type { Relation } from './catalog.js';
import { currentOf, type Sources } from './delta-sql.js';
import { readDelta, rebuildState, recompute, recomputeWorkSql } from './recompute.js';
import { applyGroup, applyLinear, groupWorkSql } from './rules.js';
import { DELTA, inSchema, quote, STATE, WORK } from './sql.js';
import type { Change } from './types.js';
import { mentioned, type Shape, viewShape } from './view-shape.js';
import { changesOf, mirror, type NativePlan, rebuildNative, StepDeltas } from './native-views.js';
import { planView } from './planner/plan.js';
import { ShardPool } from './workers/pool.js';
import type { ZSet } from './zset/zset.js';

// Which way each view is kept, decided once when the program loads, and the views' half of a step:
// in dependency order, each view brings its state up to date from the deltas of what it reads and
// writes its own delta. A view none of whose inputs changed does nothing (unless it reads the
// clock or a volatile function).

interface Plan {
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
  /** A native view written back into PGlite (materialized, or read by a view PGlite keeps). */
  mirrored?: boolean;
}

export class ViewMaintainer {
  /** The error of a step that failed part way through a native circuit: its state is not to be trusted. */
  private broken: unknown;

  private constructor(
    private readonly plans: Plan[],
    private readonly catalog: readonly Relation[],
    /** The shard threads of the native circuits (workers > 1). */
    private readonly pool: ShardPool | undefined,
  ) {}

  static async plan(
    db: PGlite,
    catalog: Relation[],
    incremental: boolean,
    onMaintenance?: (view: string, maintenance: string, reason?: string) => void,
    native = true,
    workers = 1,
  ): Promise<ViewMaintainer> {
    const pool = native && incremental && workers > 1 ? new ShardPool(workers) : undefined;
    try {
      return await ViewMaintainer.planned(db, catalog, incremental, onMaintenance, native, pool);
    } catch (error) {
      await pool?.close();
      throw error;
    }
  }

  private static async planned(
    db: PGlite,
    catalog: Relation[],
    incremental: boolean,
    onMaintenance: ((view: string, maintenance: string, reason?: string) => void) | undefined,
    native: boolean,
    pool: ShardPool | undefined,
  ): Promise<ViewMaintainer> {
    const aggregates = new Set(
      (
        await db.query<{ name: string }>(`SELECT DISTINCT proname AS name FROM pg_proc WHERE prokind IN ('a', 'w')`)
      ).rows.map((r) => r.name),
    );
    const known = new Set(catalog.map((r) => r.name));
    const plans: Plan[] = [];
    const indexes = new Set<string>();
    const setup: string[] = [`CREATE SCHEMA ${AUX}; CREATE SCHEMA ${WORK};`];
    /** Views whose state is a projection (no table to index). */
    const derived = new Set<string>();
    for (const view of catalog.filter((r) => r.kind === 'view')) {
      const { def, ...decided } = await decide(db, view, known, aggregates, incremental);
      const { shape, inputs, always, mentions } = decided;
      const nativePlan = !incremental
        ? { reason: 'incremental maintenance is off' }
        : native
          ? nativeOf(def, view, decided, catalog, pool)
          : { reason: 'the native path is switched off (dev_tweaks.native_engine)' };
      if (nativePlan && 'root' in nativePlan) {
        plans.push(nativeView(view, decided, nativePlan, onMaintenance));
        continue;
      }
      const aggregate = shape.rule === 'group' ? aggregatePlan(view, shape) : undefined;
      if (aggregate) {
        setup.push(aggregateSetupSql(view, aggregate));
        derived.add(view.name);
      } else if (shape.rule === 'group') setup.push(groupWorkSql(view, shape));
      else if (shape.rule === 'recompute') setup.push(recomputeWorkSql(view));
      view.maintenance = ruleName(shape, aggregate);
      view.maintenanceReason = reasonOf(shape, nativePlan.reason);
      onMaintenance?.(view.name, view.maintenance, view.maintenanceReason);
      plans.push({ view, shape, aggregate, inputs, always, mentions, stateless: false });
      for (const sql of indexesFor(view, shape, catalog, derived)) indexes.add(sql);
    }
    await db.exec([...setup, ...indexes].join('\n'));
    for (const plan of plans) keepOrMirror(plan, plans);
    return new ViewMaintainer(plans, catalog, pool);
  }

  /** The views' half of a step, after the tables' deltas are written. Returns the wanted views' deltas. */
  async step(
    tx: Transaction,
    tableDeltas: ReadonlyMap<string, string>,
    wanted: (view: string) => boolean,
    nativeDeltas: ReadonlyMap<string, ZSet>,
  ): Promise<Map<string, Change[]>> {
    const changed = new Set([...tableDeltas.keys(), ...nativeDeltas.keys()]);
    const byName = new Map(this.catalog.map((r) => [r.name, r]));
    const sources: Sources = {
      changed: (r) => changed.has(r),
      delta: (r) => tableDeltas.get(r) ?? inSchema(DELTA, r),
      columns: (r) => byName.get(r)?.columns ?? [],
      kind: (r) => byName.get(r)?.kind ?? 'table',
    };
    const outputs = new Map<string, Change[]>();
    if (this.broken !== undefined) throw this.broken;
    const deltas = new StepDeltas(tx, byName, (r) => tableDeltas.get(r) ?? inSchema(DELTA, r));
    for (const [table, delta] of nativeDeltas) deltas.set(table, delta);
    for (const { view, shape, aggregate, inputs, always, stateless, native, mirrored } of this.plans) {
      if (!always && inputs && !inputs.some((r) => changed.has(r))) continue;
      if (native) {
        const changes = await this.stepNative(tx, { view, native, mirrored }, deltas, changed, wanted(view.name));
        if (changes) outputs.set(view.name, changes);
        continue;
      }
      if (aggregate) await applyAggregate(tx, view, aggregate, sources);
      else if (shape.rule === 'linear') await applyLinear(tx, view, shape.arms, sources, !stateless);
      else if (shape.rule === 'group') await applyGroup(tx, view, shape, sources);
      else await recompute(tx, view);
      const [any] = (await tx.query<{ any: boolean }>(`SELECT EXISTS (TABLE ${inSchema(DELTA, view.name)}) AS any`))
        .rows;
      if (!any?.any) continue;
      changed.add(view.name);
      if (wanted(view.name)) outputs.set(view.name, await readDelta(tx, view));
    }
    return outputs;
  }

  /** A native view's half of a step: its delta, written back to PGlite if mirrored; its changes if wanted. */
  private async stepNative(
    tx: Transaction,
    { view, native, mirrored }: Pick<Plan, 'view' | 'mirrored'> & { native: NativePlan },
    deltas: StepDeltas,
    changed: Set<string>,
    wanted: boolean,
  ): Promise<Change[] | undefined> {
    await deltas.load(native.inputs, (r) => changed.has(r));
    let delta;
    try {
      delta = native.root.step(deltas);
    } catch (error) {
      this.broken = error;
      throw error;
    }
    if (delta.size === 0) return undefined;
    deltas.set(view.name, delta);
    changed.add(view.name);
    if (mirrored) await mirror(tx, view, native.types, delta);
    return wanted ? changesOf(view, native.types, delta) : undefined;
  }

  /**
   * The views that read `table`, directly or through other views, and are not native: PGlite
   * evaluates them (or views they read) over its own copy of the table, so it must hold the rows.
   */
  notNativeReaders(table: string): string[] {
    const reading = new Set([table]);
    for (const p of this.plans) if (!p.inputs || p.mentions.some((m) => reading.has(m))) reading.add(p.view.name);
    return this.plans.flatMap((p) => (!p.native && reading.has(p.view.name) ? [p.view.name] : []));
  }

  /** Ends the shard threads. */
  async close(): Promise<void> {
    await this.pool?.close();
  }

  /**
   * Whether the view's state is a table of rows (a checkpoint can load it) rather than derived or
   * none. A native view's is derived: its circuit is evaluated again from the restored tables.
   */
  keepsRows(view: string): boolean {
    return !this.plans.some((p) => p.view.name === view && (p.aggregate || p.stateless || p.native));
  }

  /** Whether the view keeps its value at all (a stateless one has only its deltas). */
  keepsState(view: string): boolean {
    return !this.plans.some((p) => p.view.name === view && (p.stateless || (p.native && !p.mirrored)));
  }

  /**
   * After a restore that loaded the view's state from the checkpoint: a native view's circuit (its
   * traces and accumulators are not in the checkpoint) is evaluated again from its inputs.
   */
  async restored(tx: Pick<Transaction, 'exec' | 'query'>, view: Relation): Promise<void> {
    const plan = this.plans.find((p) => p.view.name === view.name);
    if (!plan?.native) return;
    await rebuildNative(tx, view, plan.native, new Map(this.catalog.map((r) => [r.name, r])), false);
    this.broken = undefined;
  }

  /** Evaluates a view's state from scratch (at load, after a restore). */
  async rebuild(tx: Pick<Transaction, 'exec' | 'query'>, view: Relation): Promise<void> {
    const plan = this.plans.find((p) => p.view.name === view.name);
    if (plan?.native) {
      const byName = new Map(this.catalog.map((r) => [r.name, r]));
      await rebuildNative(tx, view, plan.native, byName, plan.mirrored ?? false);
      this.broken = undefined;
      return;
    }
    if (plan?.stateless) return;
    if (plan?.aggregate) await tx.exec(aggregateRebuildSql(view, plan.aggregate));
    else await rebuildState(tx, view);
  }
}

/** The shape of one view's query and what it reads; `recompute` when a rule may not keep it. */
async function decide(
  db: PGlite,
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
function indexesFor(
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
const ruleName = (shape: Shape, aggregate: AggregatePlan | undefined): string =>
  aggregate ? 'aggregate' : shape.rule === 'group' && shape.touchedBy ? 'outer-join' : shape.rule;

/** Why a view is not kept natively, and why not by an incremental rule either (recompute). */
function reasonOf(shape: Shape, notNative: string): string {
  const why = `not native: ${notNative}`;
  return shape.rule === 'recompute' && shape.reason !== notNative ? `${shape.reason}; ${why}` : why;
}

/** The view's native circuit, or why it has none. */
function nativeOf(
  def: string,
  view: Relation,
  { always, inputs }: Pick<Plan, 'always' | 'inputs'>,
  catalog: readonly Relation[],
  pool: ShardPool | undefined,
): NativePlan | { reason: string } {
  if (always) return { reason: 'reads NOW() or a volatile function' };
  if (!inputs) return { reason: 'reads a relation that is not the program’s' };
  const byName = new Map(catalog.map((r) => [r.name, r]));
  const reads = { columnsOf: (r: string) => (r === view.name ? undefined : byName.get(r)?.columns) };
  const planned = pool ? pool.plan(def, view.columns, reads) : planView(def, view.columns, reads);
  return planned.native ? planned : { reason: planned.reason };
}

/** A view the native path keeps. */
function nativeView(
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
 * Once every plan is known: a native view is written back into PGlite when materialized or read by a
 * view PGlite keeps; a linear PGlite view keeps no state when nothing reads it.
 */
function keepOrMirror(plan: Plan, plans: readonly Plan[]): void {
  const readBy = (pick: (p: Plan) => boolean) =>
    plans.some((other) => other !== plan && pick(other) && other.mentions.includes(plan.view.name));
  if (plan.native) plan.mirrored = plan.view.materialized || readBy((p) => !p.native);
  else plan.stateless = plan.shape.rule === 'linear' && !plan.view.materialized && !readBy(() => true);
}
