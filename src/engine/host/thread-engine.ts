import type { ViewProfile } from '../operators/profile.js';
import { SvcError } from '../../model/errors.js';
import { parseExact } from '../../model/exact-json.js';
import { resolveName } from '../catalog.js';
import type { DumpedPage, PageSizes } from '../dump.js';
import type { Restored, StatePage, StateSource } from '../state.js';
import type { Change, IngestResult, QueryResult, RelationInfo, Row, StepResult } from '../types.js';
import { startWorker } from './entry.js';
import { STEP_THREAD_LIMITS } from './heap.js';
import type {
  BodyIngest,
  BodyIngested,
  EngineCounters,
  EngineWorkerData,
  HostedEngine,
  Loaded,
  PgliteState,
  SteppedWire,
} from './hosted.js';
import { Replica, type QueryOptions, SEED_PAGE_ROWS } from './replica.js';
import { Rpc } from './rpc.js';
import { replicaText, WireOutputs } from './wire-outputs.js';

// The engine on a thread of its own (node:worker_threads), seen from the main thread through the
// same seam (HostedEngine): the HTTP server, /status, /stats, /metrics, ingress buffering and egress
// stay on the main thread and never wait for a step. Steps' listeners (egress, completion tokens,
// output connectors) run here, in step order, before the step resolves, as they did in-process.
// Ad-hoc queries go to a replica on a third thread (replica.ts), never to the engine's.

/** How long close() lets the engine finish before its thread is ended (a stuck step must not keep an orphan alive). */
const CLOSE_GRACE_MS = 5_000;

const unknownTable = (name: string): SvcError =>
  new SvcError(400, 'UnknownInputTable', `unknown table '${name}'`, { name });

export interface ThreadEngineOptions extends EngineWorkerData {
  onMaintenance?: (view: string, maintenance: string, reason?: string) => void;
  /** The engine's thread ended on its own (a crash): the pipeline fails. */
  onExit?: (error: Error) => void;
  /** Time without a query after which the query replica's thread ends (replica.ts REPLICA_IDLE_MS). */
  replicaIdleMs?: number;
}

/** The engine's thread, started and opening its database; `load` runs the program in it. */
export interface BlankThreadEngine {
  load(programCode: string): Promise<ThreadEngine>;
  close(): Promise<void>;
}

export function startThreadEngine(options: ThreadEngineOptions = {}): BlankThreadEngine {
  const data: EngineWorkerData = {
    initdbDump: options.initdbDump,
    incremental: options.incremental,
    native: options.native,
    workers: options.workers,
    timed: options.timed,
    codec: options.codec,
    spill: options.spill,
  };
  const worker = startWorker('engine-worker', { workerData: data, resourceLimits: STEP_THREAD_LIMITS });
  const rpc = new Rpc(worker);
  let closing = false;
  worker.on('error', (error) => rpc.fail(error));
  worker.on('exit', (code) => {
    const error = new Error(`the engine's thread exited (code ${code})`);
    rpc.fail(error);
    if (!closing) options.onExit?.(error);
  });
  rpc.handle('maintenance', (m: { view: string; maintenance: string; reason?: string }) =>
    options.onMaintenance?.(m.view, m.maintenance, m.reason),
  );
  const close = async () => {
    closing = true;
    const grace = new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref());
    await Promise.race([rpc.call('close').catch(() => undefined), grace]);
    await worker.terminate();
  };
  return {
    async load(programCode) {
      try {
        const loaded = await rpc.call<Loaded>('load', programCode);
        return new ThreadEngine(rpc, loaded, options, close);
      } catch (error) {
        await close();
        throw error;
      }
    },
    close,
  };
}

export class ThreadEngine implements HostedEngine, BodyIngest {
  private counters: EngineCounters;
  private readonly catalog: RelationInfo[];
  private readonly definitions: string[];
  readonly tables: string[];
  readonly usesNow: boolean;
  /** Ingests handed to the engine's thread: the next one's sequence number is this + 1. */
  private sentIngests = 0;
  private stepNo = 0;
  private stepping = false;
  /** Steps and replica seeds take turns (a seed reads every relation as of one step). */
  private exclusive: Promise<unknown> = Promise.resolve();
  private nextId = 0;
  private readonly listeners = new Set<(result: StepResult) => void | Promise<void>>();
  private readonly ingestListeners = new Set<() => void>();
  private readonly dumps = new Map<number, (page: DumpedPage) => Promise<void>>();
  private readonly snapshots = new Map<number, (rows: string) => Promise<void>>();
  private readonly restores = new Map<number, AsyncIterator<StatePage>>();
  private replica: Replica | undefined;
  private lastCounts: Record<string, number> = {};
  private counting: Promise<Record<string, number>> | undefined;
  private closed = false;

  constructor(
    private readonly rpc: Rpc,
    loaded: Loaded,
    private readonly options: Pick<ThreadEngineOptions, 'initdbDump' | 'replicaIdleMs'>,
    private readonly closeThread: () => Promise<void>,
  ) {
    this.catalog = loaded.relations;
    this.definitions = loaded.definitions;
    this.tables = loaded.tables;
    this.usesNow = loaded.usesNow;
    this.counters = loaded.counters;
    rpc.handle('dump.page', ({ id, page }: { id: number; page: DumpedPage }) => this.dumps.get(id)?.(page));
    rpc.handle('snapshot.page', ({ id, rows }: { id: number; rows: string }) => this.snapshots.get(id)?.(rows));
    rpc.handle('restore.next', async (id: number) => {
      const next = await this.restores.get(id)?.next();
      if (!next || next.done) return null;
      const { rows, ...page } = next.value;
      return { ...page, rows: JSON.stringify(rows) };
    });
  }

  relations(): RelationInfo[] {
    return this.catalog.map((r) => ({ ...r, columns: [...r.columns] }));
  }

  resolve(name: string, kind: 'table' | 'view'): RelationInfo | undefined {
    const found = resolveName(this.catalog, name, kind);
    return found && { ...found, columns: [...found.columns] };
  }

  get bufferedRecords(): number {
    return this.counters.buffered;
  }
  get pglite(): PgliteState {
    return this.counters.pglite;
  }

  get stateVersion(): number {
    return this.counters.version;
  }

  ingest(table: string, changes: Change[]): Promise<IngestResult> {
    return this.ingestNumbered(table, changes).result;
  }

  /**
   * An ingest and its sequence number, known at once: an ingress that cannot wait for the engine's
   * answer still hands its client the completion token that says later whether it was applied.
   */
  ingestNumbered(table: string, changes: Change[]): { seq: number; result: Promise<IngestResult> } {
    const handed = this.handOver(table, (name) =>
      this.rpc.call<{ result: IngestResult; counters: EngineCounters }>('ingest', {
        table: name,
        changes: JSON.stringify(changes),
      }),
    );
    return { seq: handed.seq, result: handed.result.then((answer) => answer.result) };
  }

  /**
   * An ingest of a request body in its wire format, decoded on the engine's thread (started with a
   * `codec`): this thread only hands the text over. Numbered at once, as ingestNumbered.
   */
  ingestBody(table: string, text: string, options: unknown): { seq: number; result: Promise<BodyIngested> } {
    const handed = this.handOver(table, (name) =>
      this.rpc.call<BodyIngested & { counters: EngineCounters }>('ingestBody', { table: name, text, options }),
    );
    return { seq: handed.seq, result: handed.result.then(({ result, decoded }) => ({ result, decoded })) };
  }

  /** Numbers an ingest, sends it to the table by its catalog name, and takes the engine's counters from its answer. */
  private handOver<T extends { result: IngestResult; counters: EngineCounters }>(
    table: string,
    send: (name: string) => Promise<T>,
  ): { seq: number; result: Promise<T> } {
    const relation = resolveName(this.catalog, table, 'table');
    if (!relation) return { seq: this.sentIngests, result: Promise.reject(unknownTable(table)) };
    const seq = ++this.sentIngests;
    const result = send(relation.name).then((answer) => {
      this.counters = answer.counters;
      if (answer.result.accepted > 0) for (const listener of this.ingestListeners) listener();
      return answer;
    });
    return { seq, result };
  }

  private turn<T>(work: () => Promise<T>): Promise<T> {
    const run = this.exclusive.then(work);
    this.exclusive = run.catch(() => undefined);
    return run;
  }

  step(): Promise<StepResult> {
    return this.turn(async () => {
      this.stepping = true;
      let wire: SteppedWire;
      try {
        wire = await this.rpc.call<SteppedWire>('step');
      } finally {
        this.stepping = false;
      }
      this.counters = wire.counters;
      this.stepNo = wire.step;
      const jsonData = new Map<string, { json: string; changes: number }>();
      for (const o of wire.outputs)
        if (o.jsonData !== undefined) jsonData.set(o.view, { json: o.jsonData, changes: o.count });
      const done: StepResult = {
        step: wire.step,
        appliedSeq: wire.appliedSeq,
        outputs: new WireOutputs(wire.outputs),
        jsonData,
        inputRecords: wire.inputRecords,
      };
      if (this.replica) this.replica.apply(wire.step, replicaText(wire.outputs));
      for (const listener of this.listeners) await listener(done);
      return done;
    });
  }

  watch(view: string): { fromStep: number; release: () => void } {
    const name =
      resolveName(this.catalog, view, 'view')?.name ?? resolveName(this.catalog, view, 'table')?.name ?? view;
    const id = ++this.nextId;
    void this.rpc.call('watch', { id, view: name }).catch(() => undefined);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      void this.rpc.call('release', id).catch(() => undefined);
    };
    // A step already asked for may have read its watchers: the one after it carries the view.
    return { fromStep: this.stepNo + (this.stepping ? 2 : 1), release };
  }

  onStep(listener: (result: StepResult) => void | Promise<void>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onIngest(listener: () => void): () => void {
    this.ingestListeners.add(listener);
    return () => this.ingestListeners.delete(listener);
  }

  async snapshot(name: string): Promise<Row[]> {
    return parseExact(await this.rpc.call<string>('snapshot', name)) as Row[];
  }

  snapshotPages(name: string, size: number, emit: (page: Row[]) => Promise<void>): Promise<void> {
    return this.snapshotTexts(name, size, (rows) => emit(parseExact(rows) as Row[]));
  }

  /** A snapshot `size` rows at a time, each page as the JSON text it crossed as. */
  private async snapshotTexts(name: string, size: number, emit: (rows: string) => Promise<void>): Promise<void> {
    const id = ++this.nextId;
    this.snapshots.set(id, emit);
    try {
      await this.rpc.call('snapshotPages', { id, name, size });
    } finally {
      this.snapshots.delete(id);
    }
  }

  /** The materialized relations' contents as of one step, no step between them, a page at a time (a replica's seed). */
  seed(names: readonly string[], emit: (name: string, rows: string) => Promise<void>): Promise<{ step: number }> {
    return this.turn(async () => {
      for (const name of names) await this.snapshotTexts(name, SEED_PAGE_ROWS, (rows) => emit(name, rows));
      return { step: this.stepNo };
    });
  }

  query(sql: string, poolBytes?: number): Promise<QueryResult> {
    return this.queryWith(sql, { poolBytes });
  }

  /** An ad-hoc query on the replica (see replica.ts): bounded, cancellable, its rows streamed if asked. */
  queryWith(sql: string, options: QueryOptions): Promise<QueryResult> {
    if (this.closed) return Promise.reject(new Error('the engine is closed'));
    this.replica ??= new Replica({
      relations: this.catalog.filter((r) => r.materialized),
      definitions: this.definitions,
      initdbDump: this.options.initdbDump,
      seed: (names, emit) => this.seed(names, emit),
      watch: (name) => this.watch(name),
      tempLimitBytes: options.poolBytes,
      idleMs: this.options.replicaIdleMs,
    });
    return this.replica.query(sql, options);
  }

  /** Whether the query replica's thread runs now (started by a query, ended after a quiet time), and how many started. */
  get queryReplica(): { running: boolean; starts: number } {
    return this.replica?.state ?? { running: false, starts: 0 };
  }

  setNow(ms: number): Promise<void> {
    return this.rpc.call('setNow', ms);
  }

  async dump(emit: (page: DumpedPage) => Promise<void>, sizes?: PageSizes): Promise<void> {
    const id = ++this.nextId;
    this.dumps.set(id, emit);
    try {
      this.counters = await this.rpc.call<EngineCounters>('dump', { id, sizes });
    } finally {
      this.dumps.delete(id);
    }
  }

  async restore(source: StateSource, strict: boolean): Promise<Restored> {
    const id = ++this.nextId;
    this.restores.set(id, source.pages[Symbol.asyncIterator]());
    try {
      const { restored, counters } = await this.rpc.call<{ restored: Restored; counters: EngineCounters }>('restore', {
        id,
        views: [...source.views],
        strict,
      });
      this.counters = counters;
      return restored;
    } finally {
      this.restores.delete(id);
    }
  }

  /**
   * The tables' row counts. The engine counts them between steps; while it is busy the last counts
   * answer at once (GET /stats never waits for a step) and the new ones follow when it is done.
   */
  async rowCounts(waitMs = 50): Promise<Record<string, number>> {
    this.counting ??= this.rpc
      .call<Record<string, number>>('rowCounts')
      .then((counts) => (this.lastCounts = counts))
      .finally(() => (this.counting = undefined));
    const late = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), waitMs).unref());
    return (await Promise.race([this.counting.catch(() => undefined), late])) ?? this.lastCounts;
  }

  /** The views' circuits (operators/profile.ts), between two steps. */
  circuitProfile(): Promise<ViewProfile[]> {
    return this.rpc.call<ViewProfile[]>('circuitProfile');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.replica?.close();
    await this.closeThread();
  }
}
