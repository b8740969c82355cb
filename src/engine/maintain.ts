import type { Transaction } from '@electric-sql/pglite';
import type { Spill } from './traces/page-file.js';
import type { Tx } from '../pglite/lazy-transaction.js';
import type { Database } from '../pglite/parking.js';
import {
  AUX,
  aggregatePlan,
  aggregateRebuildSql,
  applyAggregate,
  aggregateSetupSql,
  withScales,
} from './aggregate-rule.js';
import type { Relation } from './catalog.js';
import type { Sources } from './delta-sql.js';
import { readDelta, rebuildState, recompute, recomputeWorkSql } from './recompute.js';
import { applyGroup, applyLinear, groupWorkSql } from './rules.js';
import { DELTA, inSchema, quote, WORK } from './sql.js';
import type { Change } from './types.js';
import { changesOf, fillHeld, mirror, type NativePlan, rebuildNatives, StepDeltas } from './native-views.js';
import type { ViewProfile } from './operators/profile.js';
import { ShardPool } from './workers/pool.js';
import { CircuitRestore, dumpCircuits, type NativeCircuit } from './circuit-checkpoint.js';
import type { DumpedPage } from './dump.js';
import { decide, indexesFor, keepOrMirror, nativeOf, nativeView, type Plan, reasonOf, ruleName } from './view-plan.js';
import type { ZSet } from './zset/zset.js';

// Which way each view is kept, decided once when the program loads, and the views' half of a step:
// in dependency order, each view brings its state up to date from the deltas of what it reads and
// writes its own delta. A view none of whose inputs changed does nothing (unless it reads the
// clock or a volatile function).

export interface MaintainOptions {
  incremental: boolean;
  native: boolean;
  /** Shards of the native circuits (1: on the engine's thread). */
  workers: number;
  /** The native circuits' operators timed for their profile (runtime_config.cpu_profiler). */
  timed: boolean;
  /** The wire formats' module, for the shards to decode parts of ingress bodies (host/hosted.ts). */
  codec?: string;
  /** Where the shards' kept rows spill (EngineOptions.spill). */
  spill?: Spill;
  onMaintenance?: (view: string, maintenance: string, reason?: string) => void;
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

  static async plan(db: Database, catalog: Relation[], options: MaintainOptions): Promise<ViewMaintainer> {
    const { incremental, native, workers, codec } = options;
    const pool =
      native && incremental && workers > 1
        ? await ShardPool.start(workers, { codec, spill: options.spill })
        : undefined;
    try {
      return await ViewMaintainer.planned(db, catalog, options, pool);
    } catch (error) {
      await pool?.close();
      throw error;
    }
  }

  private static async planned(
    db: Database,
    catalog: Relation[],
    { incremental, native, timed, onMaintenance }: MaintainOptions,
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
          ? nativeOf(def, view, decided, catalog, { pool, timed })
          : { reason: 'the native path is switched off (dev_tweaks.native_engine)' };
      if (nativePlan && 'root' in nativePlan) {
        plans.push(nativeView(view, decided, nativePlan, onMaintenance));
        continue;
      }
      const planned = shape.rule === 'group' ? aggregatePlan(view, shape) : undefined;
      const aggregate = planned && (await withScales(db, view, planned));
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
    tx: Tx,
    tableDeltas: ReadonlyMap<string, string>,
    wanted: (view: string) => boolean,
    natives: { deltas: ReadonlyMap<string, ZSet>; onShards: ReadonlySet<string> },
  ): Promise<Map<string, Change[]>> {
    const nativeDeltas = natives.deltas;
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
    const deltas = new StepDeltas(tx, byName, (r) => tableDeltas.get(r) ?? inSchema(DELTA, r), natives.onShards);
    for (const [table, delta] of nativeDeltas) deltas.set(table, delta);
    for (const { view, shape, aggregate, inputs, always, stateless, native, mirrored, held } of this.plans) {
      if (!always && inputs && !inputs.some((r) => changed.has(r))) continue;
      if (native) {
        const kept = { view, native, mirrored, held };
        const changes = await this.stepNative(tx, kept, deltas, changed, wanted(view.name));
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
    tx: Tx,
    { view, native, mirrored, held }: Pick<Plan, 'view' | 'mirrored' | 'held'> & { native: NativePlan },
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
    held?.add(delta);
    return wanted ? changesOf(native.json, delta) : undefined;
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

  /** Whether every view is native and none is written back into PGlite: a step asks PGlite nothing. */
  get allNative(): boolean {
    return this.plans.every((p) => p.native && !p.mirrored);
  }

  /**
   * The shard threads, where the native views run on several (workers > 1): they decode the parts
   * of bodies for native tables, and keep rows of some (workers/kept.ts). Undefined without.
   */
  get shards(): ShardPool | undefined {
    return this.pool;
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

  /** Whether PGlite keeps the view's value (a stateless one has only its deltas; a native one its circuit). */
  keepsState(view: string): boolean {
    return !this.plans.some((p) => p.view.name === view && (p.stateless || (p.native && !p.mirrored)));
  }

  /** Whether the view is a materialized native one whose rows are held in JS (traces/integral.ts). */
  holds(view: string): boolean {
    return this.plans.some((p) => p.view.name === view && p.held);
  }

  /** Every view, as GET /circuit_profile shows it (no step may run meanwhile: the shards answer). */
  profile(): ViewProfile[] {
    return this.plans.map(({ view, native, held }) => ({
      view: view.name,
      maintenance: view.maintenance ?? null,
      reason: view.maintenanceReason ?? null,
      shards: native ? (this.pool?.count ?? 1) : null,
      held_rows: held?.size ?? null,
      operators: native ? native.profile() : null,
    }));
  }

  /** A held view's rows as a snapshot gives them. */
  heldRows(view: string): Change['row'][] {
    const plan = this.plans.find((p) => p.view.name === view && p.held);
    if (!plan?.held || !plan.native) return [];
    const out: Change['row'][] = [];
    for (const { row, weight } of changesOf(plan.native.json, plan.held.whole()))
      for (let n = 0; n < weight; n++) out.push(row);
    return out;
  }

  /** Puts the held views' rows into their state tables, for an in-process query (rolled back). */
  async fillHeld(tx: Pick<Transaction, 'query'>, only: (view: string) => boolean = () => true): Promise<void> {
    for (const { view, native, held } of this.plans)
      if (held && native && only(view.name)) await fillHeld(tx, view, native.types, held);
  }

  /**
   * Evaluates a PGlite-kept view's state from scratch (at load, after a restore); native views are
   * evaluated all together afterwards (rebuildNatives).
   */
  async rebuild(tx: Tx, view: Relation): Promise<void> {
    const plan = this.plans.find((p) => p.view.name === view.name);
    if (plan?.native || plan?.stateless) return;
    if (plan?.aggregate) await tx.exec(aggregateRebuildSql(view, plan.aggregate));
    else await rebuildState(tx, view);
  }

  /**
   * Evaluates each stateless view once over the tables as loaded (the program's own inserts), every
   * column of every row, for its errors only: a step evaluates such a view only over its inputs'
   * changes, so a row that fails (a division by zero over a global aggregate's row of empty input)
   * would otherwise fail later at its retraction, in a step PostgreSQL evaluates without error.
   * Every other view is evaluated whole at load already; a view failing there fails the load.
   */
  async checkStateless(tx: Pick<Transaction, 'query'>): Promise<void> {
    for (const { view, stateless } of this.plans)
      if (stateless) await tx.query(`SELECT count(v.*) FROM public.${quote(view.name)} v`);
  }

  /**
   * The native views' circuits, whose state a checkpoint holds; undefined when it holds none (no
   * native view). PGlite's copy of a mirrored one (a view PGlite evaluates reads it) is not part of
   * it: a resume evaluates that copy from PGlite's tables (rebuildNatives).
   */
  private circuits(): NativeCircuit[] | undefined {
    const natives = this.plans.filter((p) => p.native);
    if (natives.length === 0) return undefined;
    return natives.map(({ view, native, held }) => ({ view: view.name, root: native!.root, held }));
  }

  /** The native views' circuit state, a page at a time (between steps: see dumpState). */
  async dumpCircuits(emit: (page: DumpedPage) => Promise<void>, rows: number): Promise<void> {
    const circuits = this.circuits();
    if (circuits) await dumpCircuits(circuits, emit, rows);
  }

  /** For a restore: takes the circuits' state back from a checkpoint's pages (undefined: none to take). */
  circuitRestore(): CircuitRestore | undefined {
    const circuits = this.circuits();
    return circuits && new CircuitRestore(circuits);
  }

  /**
   * Evaluates every native view from scratch, after the PGlite-kept ones (see rebuildNatives), unless
   * a restore has `resumed` their circuits' state.
   */
  async rebuildNatives(tx: Tx, nativeWhole: (table: string) => ZSet | undefined, resumed = false): Promise<void> {
    if (resumed) {
      // The circuits are as they were; PGlite's copies of the mirrored ones are evaluated by PGlite,
      // whose tables hold every row they read (a table a PGlite-kept view reads is PGlite's).
      for (const { view, mirrored } of this.plans) if (mirrored) await rebuildState(tx, view);
      this.broken = undefined;
      return;
    }
    const views = this.plans.flatMap(({ view, native, mirrored, held }) =>
      native ? [{ view, plan: native, mirrored: mirrored ?? false, held }] : [],
    );
    await rebuildNatives(tx, views, new Map(this.catalog.map((r) => [r.name, r])), nativeWhole);
    this.broken = undefined;
  }
}
