import type { ViewProfile } from './operators/profile.js';
import type { Tx } from '../pglite/lazy-transaction.js';
import type { ParkingDatabase } from '../pglite/parking.js';
import { Parker } from './parking.js';
import { type EngineOptions, nativeOff } from './options.js';
import { SvcError } from '../model/errors.js';
import { applyStaged, clearStaged, deltaSql } from './apply.js';
import { readCatalog, type Relation, resolveName } from './catalog.js';
import { HOUSEKEEPING_STEPS, houseKeep, unlogTables } from './housekeeping.js';
import { INGEST_SQL, stage, stagingSql } from './ingest.js';
import type { LoadedStatement } from './program.js';
import { adHocQuery, IN_PROCESS_PATH, type NamedRelation } from './query.js';
import { snapshotPages, snapshotRows } from './snapshot.js';
import { ViewMaintainer } from './maintain.js';
import { readDelta, stateSql } from './recompute.js';
import { DELTA, quote, STATE } from './sql.js';
import { type DumpedPage, dumpState, type PageSizes } from './dump.js';
import { type Restored, restoreState, type StateSource } from './state.js';
import type { Change, DataEngine, IngestResult, QueryResult, RelationInfo, Row, StepResult } from './types.js';
import { NativeTables } from './native-tables.js';
import type { BodyIngested, EngineCodec, PgliteState } from './host/hosted.js';

// The engine of one pipeline: the program's tables and views in PGlite, input staged per table, and
// steps that apply the staged input as one transaction and bring every view's state up to date,
// emitting each view's delta. Ingests and steps take turns (one queue), which is what makes a
// step's `appliedSeq` exact: every ingest before the step's turn is in it, none after.

/** The session setting NOW() reads (open.ts's public.now()): the pipeline's clock, in ms. */
export const NOW_SETTING = 'svc.now_ms';

const unknown = (kind: string, name: string): SvcError =>
  new SvcError(400, kind === 'table' ? 'UnknownInputTable' : 'UnknownOutputView', `unknown ${kind} '${name}'`, {
    name,
  });

const infoOf = ({ primaryKey: _key, ...info }: Relation): RelationInfo => ({ ...info, columns: [...info.columns] });

export class ProgramEngine implements DataEngine {
  private queue: Promise<unknown> = Promise.resolve();
  private seq = 0;
  private stepNo = 0;
  private buffered = 0;
  private readonly stagedTables = new Set<string>();
  private readonly listeners = new Set<(result: StepResult) => void | Promise<void>>();
  private readonly ingestListeners = new Set<() => void>();
  /** Views whose changes someone reads, with how many readers (see watch). */
  private readonly watchers = new Map<string, number>();
  private stepping = false;
  private closed = false;
  /** Parks PGlite while unused, when no step needs it (parking.ts). */
  private parker: Parker | undefined;

  private constructor(
    private readonly db: ParkingDatabase,
    private readonly catalog: Relation[],
    /** Whether a view reads NOW(): then a clock tick changes views without input. */
    readonly usesNow: boolean,
    private readonly maintainer: ViewMaintainer,
    /** Tables held by the native path, not PGlite (native-tables.ts). */
    private readonly natives: NativeTables,
  ) {}

  static async create(
    db: ParkingDatabase,
    statements: readonly LoadedStatement[],
    options: EngineOptions = {},
  ): Promise<ProgramEngine> {
    const catalog = await readCatalog(db, statements);
    await unlogTables(db, catalog);
    const setup = [INGEST_SQL, `CREATE SCHEMA ${DELTA}; CREATE SCHEMA ${STATE};`];
    for (const r of catalog) {
      if (r.kind === 'table') setup.push(stagingSql(r));
      else setup.push(stateSql(r));
      setup.push(deltaSql(r));
    }
    await db.exec(setup.join('\n'));
    const clocked = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_depend d JOIN pg_rewrite r ON d.classid = 'pg_rewrite'::regclass
         AND d.objid = r.oid WHERE d.refobjid = 'public.now()'::regprocedure`,
    );
    const maintainer = await ViewMaintainer.plan(db, catalog, {
      ...options, // codec, spill, onMaintenance
      incremental: options.incremental ?? true,
      native: options.native ?? true,
      workers: options.workers ?? 1,
      timed: options.timed ?? true,
    });
    try {
      const readers = (table: string) => maintainer.notNativeReaders(table);
      const how = { off: nativeOff(options), shards: maintainer.shards, spill: options.spill };
      const natives = await NativeTables.decide(db, catalog, readers, how);
      const engine = new ProgramEngine(db, catalog, (clocked.rows[0]?.n ?? 0) > 0, maintainer, natives);
      // The program's own inserts at load went into PGlite's copy of a native table: they move over
      // first, and the native views are evaluated from them there.
      await db.transaction((tx) => natives.adopt(tx));
      // Every view is evaluated over the tables as loaded, as PostgreSQL would at step 0: one that
      // fails there (22012 over a global aggregate's row of empty input) fails the load, whichever
      // way it is kept and on however many workers, rather than a later step that is fine.
      await engine.rebuildViews();
      await db.transaction((tx) => maintainer.checkStateless(tx));
      await engine.parkIfAllNative(options.parkIdleMs);
      return engine;
    } catch (error) {
      await maintainer.close(); // the shard threads
      throw error;
    }
  }

  /** Parks PGlite now, and again whenever unused, when no step asks it anything (parking.ts). */
  private async parkIfAllNative(idleMs: number | undefined): Promise<void> {
    if (this.natives.names.length < this.tables.length || !this.maintainer.allNative) return;
    this.parker = new Parker(this.db, (work) => this.turn(work), idleMs);
    await this.parker.park();
  }

  private turn<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the engine is closed'));
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined).then(() => this.parker?.watch());
    return run;
  }

  private get tableRelations(): Relation[] {
    return this.catalog.filter((r) => r.kind === 'table');
  }
  private get viewRelations(): Relation[] {
    return this.catalog.filter((r) => r.kind === 'view');
  }
  /** Input tables of the program, by name as the catalog spells it. */
  get tables(): string[] {
    return this.tableRelations.map((r) => r.name);
  }

  relations(): RelationInfo[] {
    return this.catalog.map(infoOf);
  }

  resolve(name: string, kind: 'table' | 'view'): RelationInfo | undefined {
    const found = resolveName(this.catalog, name, kind);
    return found && infoOf(found);
  }

  /** Whether PGlite is open now (an all-native engine's is parked while unused), and how often it was reopened. */
  get pglite(): PgliteState {
    return { awake: this.db.awake, wakes: this.db.wakes };
  }

  get bufferedRecords(): number {
    return this.buffered;
  }

  /**
   * Grows with every ingest (accepted or not: an input connector's position moves either way) and
   * every step; while it stays the same, so do the tables, the views and the buffered input.
   */
  get stateVersion(): number {
    return this.seq + this.stepNo;
  }

  ingest(table: string, changes: Change[]): Promise<IngestResult> {
    const relation = resolveName(this.catalog, table, 'table');
    if (!relation) return Promise.reject(unknown('table', table));
    return this.turn(() => this.ingestNow(relation, changes));
  }

  /**
   * A body for `table` decoded by `codec` and ingested in one turn (one number, in call order). A
   * native table's body is cut into a part per shard thread, each decoded and converted there; a
   * part that does not decode cleanly has the whole body decoded here, so answers stay the same.
   */
  ingestDecoding(table: string, text: string, format: unknown, codec: EngineCodec): Promise<BodyIngested> {
    const relation = resolveName(this.catalog, table, 'table');
    if (!relation) return Promise.reject(unknown('table', table));
    return this.turn(async () => {
      const native = this.natives.decodeTable(relation.name);
      const { shards } = this.maintainer;
      const parts = native && shards && codec.splitBody(text, format, shards.count);
      // A watched table's changes are reported from this thread: its rows would only come back.
      const keep = native !== undefined && native.keep && !this.watchers.has(relation.name);
      const decoded = native && shards && parts && shards.decode(native.table, parts, format, keep);
      if (decoded) {
        const accepted = this.natives.bufferRows(relation.name, decoded.parts) + decoded.kept;
        this.accepted(accepted);
        const { records, indexes } = decoded;
        return { result: { seq: ++this.seq, accepted, errors: [] }, decoded: { indexes, errors: [], records } };
      }
      const { changes, ...whole } = codec.decodeBody(text, format, relation.columns);
      return { result: await this.ingestNow(relation, changes), decoded: whole };
    });
  }

  /** An ingest in its turn. */
  private async ingestNow(relation: Relation, changes: Change[]): Promise<IngestResult> {
    // Numbered before staging, failed or not: one number per call, in call order (HostedEngine).
    this.seq += 1;
    const seq = this.seq;
    const native = this.natives.has(relation.name);
    const checked = native
      ? await this.natives.ingest(this.db, relation.name, changes)
      : await stage(this.db, relation, changes);
    if (checked.accepted > 0 && !native) this.stagedTables.add(relation.name);
    this.accepted(checked.accepted);
    return { seq, ...checked };
  }

  private accepted(records: number): void {
    this.buffered += records;
    if (records > 0) for (const listener of this.ingestListeners) listener();
  }

  step(): Promise<StepResult> {
    return this.turn(async () => {
      const appliedSeq = this.seq;
      const inputRecords = this.buffered;
      const wanted = new Set(this.watchers.keys());
      this.stepping = true;
      let outputs: Map<string, Change[]>;
      // The native tables' deltas, applied to them only once the whole step went through.
      const natives = this.natives.prepare((table) => wanted.has(table));
      try {
        outputs = await this.db.transaction(async (tx) => {
          const deltas = new Map<string, string>();
          const staged = this.tableRelations.filter((t) => this.stagedTables.has(t.name));
          for (const table of staged) {
            const delta = await applyStaged(tx, table);
            if (delta) deltas.set(table.name, delta);
          }
          const out = await this.maintainer.step(tx, deltas, (view) => wanted.has(view), natives);
          for (const [table, delta] of natives.deltas)
            if (wanted.has(table)) out.set(table, this.natives.changes(table, delta));
          // A watched table's changes too (the query replica follows materialized tables by them).
          for (const table of staged) {
            const delta = deltas.get(table.name);
            if (delta && wanted.has(table.name)) out.set(table.name, await readDelta(tx, table, delta));
          }
          for (const table of staged) await clearStaged(tx, table);
          return out;
        });
        natives.commit();
        this.stagedTables.clear();
        this.buffered = 0;
        this.stepNo += 1;
      } finally {
        this.stepping = false;
      }
      const done: StepResult = { step: this.stepNo, appliedSeq, outputs, inputRecords };
      for (const listener of this.listeners) await listener(done);
      // After the listeners: the step's changes reach egress and connectors without waiting for it.
      if (this.stepNo % HOUSEKEEPING_STEPS === 0 && this.db.awake) await houseKeep(this.db);
      return done;
    });
  }

  /**
   * Asks for a view's changes in the step results (`outputs`) until released: a view nobody reads
   * is kept up to date but its changes are not read back out of the database (measured: reading a
   * 10,000-row join delta back as JSON was a tenth of a step). `fromStep` is the first step whose
   * results carry them: the next one, or the one after when a step is running now.
   */
  watch(view: string): { fromStep: number; release: () => void } {
    const name = resolveName(this.catalog, view, 'view')?.name ?? view;
    this.watchers.set(name, (this.watchers.get(name) ?? 0) + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.watchers.get(name) ?? 1) - 1;
      if (left > 0) this.watchers.set(name, left);
      else this.watchers.delete(name);
    };
    return { fromStep: this.stepNo + (this.stepping ? 2 : 1), release };
  }

  onStep(listener: (result: StepResult) => void | Promise<void>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called after every ingest that buffered records (the scheduler listens). */
  onIngest(listener: () => void): () => void {
    this.ingestListeners.add(listener);
    return () => this.ingestListeners.delete(listener);
  }

  async snapshot(name: string): Promise<Row[]> {
    const read = this.snapshotSource(name);
    return this.turn(async () => [...(await read())]);
  }

  /**
   * A snapshot handed to `emit` `size` rows at a time, all as of one step (none runs until the last
   * page is taken): the query replica's seed, which so never holds a large table whole.
   */
  async snapshotPages(name: string, size: number, emit: (page: Row[]) => Promise<void>): Promise<void> {
    const read = this.snapshotSource(name);
    return this.turn(async () => snapshotPages(await read(), size, emit));
  }

  /** How a snapshot of `name` reads its rows (snapshot.ts); an unknown name throws. */
  private snapshotSource(name: string): () => Promise<Iterable<Row>> {
    const relation = resolveName(this.catalog, name, 'view') ?? resolveName(this.catalog, name, 'table');
    if (!relation) throw unknown('view', name);
    return () => snapshotRows({ db: this.db, maintainer: this.maintainer, natives: this.natives }, relation);
  }

  query(sql: string, poolBytes?: number): Promise<QueryResult> {
    const queryable = (name: string) => this.catalog.find((r) => r.name === name)?.materialized;
    // Native tables' and held views' rows go into PGlite for the query only (it is rolled back):
    // those it names when it names only such (a held view by its name alone reads the rows written
    // for it), all of them when it names anything else (`public.v` evaluates v over the tables).
    const before = async (tx: Tx, reads: readonly NamedRelation[]) => {
      const direct = reads.every((r) => !r.qualified && (this.natives.has(r.name) || this.maintainer.holds(r.name)));
      const named = (name: string) => !direct || reads.some((r) => r.name === name);
      await this.natives.fill(tx, named);
      await this.maintainer.fillHeld(tx, named);
    };
    return this.turn(() => adHocQuery(this.db, sql, queryable, { searchPath: IN_PROCESS_PATH, poolBytes, before }));
  }

  /** What NOW() returns in the program's queries from the next step on. */
  setNow(ms: number): Promise<void> {
    return this.turn(async () => {
      await this.db.setSession(NOW_SETTING, String(ms));
    });
  }

  private async rebuildViews(): Promise<void> {
    await this.db.transaction(async (tx) => {
      for (const view of this.viewRelations) await this.maintainer.rebuild(tx, view);
      await this.maintainer.rebuildNatives(tx, (table) => this.natives.whole(table));
    });
  }

  /**
   * The engine's state between steps (what a checkpoint stores), page by page to `emit` (see
   * dumpState); no step runs until the last page is taken.
   */
  dump(emit: (page: DumpedPage) => Promise<void>, sizes?: PageSizes): Promise<void> {
    const keepsRows = (view: string) => this.maintainer.keepsRows(view);
    const circuits = (to: (page: DumpedPage) => Promise<void>, rows: number) => this.maintainer.dumpCircuits(to, rows);
    return this.turn(() => dumpState(this.db, this.catalog, keepsRows, emit, sizes, this.natives, circuits));
  }

  /** Loads a checkpoint's state (see restoreState); its buffered input goes to the next step. */
  restore(source: StateSource, strict: boolean): Promise<Restored> {
    return this.turn(async () => {
      const restored = await restoreState(this.db, this.catalog, source, strict, this.maintainer, this.natives);
      for (const [table, n] of Object.entries(restored.staged)) {
        if (n === 0) continue;
        if (!this.natives.has(table)) this.stagedTables.add(table);
        this.buffered += n;
      }
      return restored;
    });
  }

  /** The views' circuits: their operators, what they hold and, when timed, what their steps took. */
  circuitProfile(): Promise<ViewProfile[]> {
    return this.turn(() => Promise.resolve(this.maintainer.profile()));
  }

  rowCounts(): Promise<Record<string, number>> {
    return this.turn(async () => {
      const out: Record<string, number> = {};
      for (const table of this.tables) {
        const held = this.natives.count(table);
        if (held !== undefined) {
          out[table] = held;
          continue;
        }
        const [row] = (await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM public.${quote(table)}`))
          .rows;
        out[table] = row?.n ?? 0;
      }
      return out;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.parker?.stop();
    await this.queue;
    this.closed = true;
    await this.maintainer.close();
    this.natives.close();
    await this.db.close();
  }
}
