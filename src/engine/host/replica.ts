import type { Worker } from 'node:worker_threads';
import { SvcError } from '../../model/errors.js';
import { parseExact } from '../../model/exact-json.js';
import type { ColumnInfo, QueryResult, RelationInfo, Row } from '../types.js';
import { startWorker } from './entry.js';
import type { ReplicaWorkerData } from './replica-worker.js';
import { Rpc } from './rpc.js';

// The ad-hoc queries' replica, seen from the main thread: started by the first query (a pipeline
// nobody queries pays nothing for it), seeded with the materialized relations as of one step, then
// fed every step's changes of them in step order, so a query sees the last step that completed
// before it arrived. A query whose client leaves, or that passes its time limit, ends the replica's
// thread (PostgreSQL in WebAssembly cannot be interrupted); the next query starts a new one. So does
// the end of a quiet time with no query: a replica costs a PGlite and a copy of every materialized
// relation, and applying every step to it, for as long as it runs.

export interface QueryOptions {
  /** The memory pool: a buffered result past it, or spills past it, fail with ResourcesExhausted. */
  poolBytes?: number;
  /** Aborted when the client leaves: the query stops. */
  signal?: AbortSignal;
  /** The query's time limit. */
  timeoutMs?: number;
  /** Streams the rows (json): each batch is taken before the next is read. */
  onRows?: (rows: Row[], columns: ColumnInfo[]) => Promise<void>;
}

/** Hands `emit` the relations' rows as of one step, a page of JSON text at a time; says which step. */
type Seed = (
  names: readonly string[],
  emit: (name: string, rows: string) => Promise<void>,
) => Promise<{ step: number }>;

/** Rows per page of a replica's seed: neither the engine's thread nor the replica holds a large relation whole. */
export const SEED_PAGE_ROWS = 10_000;
type Watch = (name: string) => { release: () => void };

/** Time without a query after which the replica's thread ends (the next query starts a new one). */
export const REPLICA_IDLE_MS = 5 * 60_000;

/** What a replica is made from, and how it follows the engine. */
export interface ReplicaSource {
  relations: readonly RelationInfo[];
  definitions: readonly string[];
  initdbDump: string | undefined;
  /** The materialized relations' contents as of one step, page by page. */
  seed: Seed;
  /** Asks for a relation's changes in every step's outputs, until released. */
  watch: Watch;
  tempLimitBytes: number | undefined;
  /** REPLICA_IDLE_MS unless given. */
  idleMs?: number;
}

export const queryTimedOut = (timeoutMs: number): SvcError =>
  new SvcError(
    400,
    'QueryTimeout',
    `the query ran longer than its time limit (${timeoutMs / 1000} s): raise runtime_config.dev_tweaks.query_timeout_secs or narrow the query`,
    { field: 'runtime_config.dev_tweaks.query_timeout_secs', timeout_secs: timeoutMs / 1000 },
  );

const cancelled = (): SvcError =>
  new SvcError(499, 'QueryCancelled', 'the query was cancelled: its client went away', null);

const RESTARTED = 'QueryReplicaRestarted';
/** Times a query runs on a new replica after another query's stop ended the one it was on. */
const RESTART_ATTEMPTS = 3;

interface Running {
  worker: Worker;
  rpc: Rpc;
  ready: Promise<void>;
  releases: (() => void)[];
  /** Steps after the seed, held until it is in. */
  held: { step: number; outputs: string }[] | undefined;
  seededAt: number;
  streams: Map<number, QueryOptions['onRows']>;
}

export class Replica {
  private running: Running | undefined;
  private nextId = 0;
  private closed = false;
  /** Queries under way; the quiet time starts when the last of them ends. */
  private active = 0;
  private idle: NodeJS.Timeout | undefined;
  /** Replica threads started so far. */
  private starts = 0;

  constructor(private readonly source: ReplicaSource) {}

  /** Whether a replica thread runs now, and how many have been started. */
  get state(): { running: boolean; starts: number } {
    return { running: this.running !== undefined, starts: this.starts };
  }

  private start(): Running {
    const { tempLimitBytes } = this.source;
    const workerData: ReplicaWorkerData = {
      initdbDump: this.source.initdbDump,
      relations: [...this.source.relations],
      definitions: [...this.source.definitions],
      tempLimitKb: tempLimitBytes === undefined ? undefined : Math.ceil(tempLimitBytes / 1024),
    };
    const worker = startWorker('replica-worker', { workerData });
    this.starts += 1;
    const rpc = new Rpc(worker);
    const kept = this.source.relations.filter((r) => r.materialized).map((r) => r.name);
    const run: Running = {
      worker,
      rpc,
      ready: Promise.resolve(),
      // Watched before the seed is read: every step after it carries these relations' changes.
      releases: kept.map((name) => this.source.watch(name).release),
      held: [],
      seededAt: 0,
      streams: new Map(),
    };
    worker.on('error', (error) => rpc.fail(error));
    worker.on('exit', (code) => {
      rpc.fail(new Error(`the query replica's thread exited (code ${code})`));
      if (this.running === run) this.discard();
    });
    rpc.handle('rows', ({ id, rows, columns }: { id: number; rows: string; columns: ColumnInfo[] }) =>
      run.streams.get(id)?.(parseExact(rows) as Row[], columns),
    );
    run.ready = (async () => {
      await rpc.call('ready');
      const seed = await this.source.seed(kept, (name, rows) => rpc.call('seed', { name, rows }));
      run.seededAt = seed.step;
      const held = run.held ?? [];
      run.held = undefined;
      for (const h of held) if (h.step > seed.step) await rpc.call('apply', h.outputs);
    })();
    run.ready.catch(() => {
      if (this.running === run) this.discard();
    });
    return run;
  }

  /** A step's outputs (JSON text of [name, changes][]), in step order. */
  apply(step: number, outputs: string): void {
    const run = this.running;
    if (!run) return;
    if (run.held) {
      run.held.push({ step, outputs });
      return;
    }
    if (step <= run.seededAt) return;
    // A replica that cannot follow is discarded; the next query seeds a new one.
    run.rpc.call('apply', outputs).catch(() => {
      if (this.running === run) this.discard();
    });
  }

  async query(sql: string, options: QueryOptions): Promise<QueryResult> {
    if (this.closed) throw new Error('the engine is closed');
    this.active += 1;
    clearTimeout(this.idle);
    const id = ++this.nextId;
    let current: Running | undefined;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    // The query's end from outside: its client left, or its time ran out. The thread is ended.
    const stopped = new Promise<never>((_, reject) => {
      const stop = (error: SvcError) => {
        if (current && this.running === current) this.discard();
        reject(error);
      };
      if (options.timeoutMs !== undefined) {
        const ms = options.timeoutMs;
        timer = setTimeout(() => stop(queryTimedOut(ms)), ms);
      }
      onAbort = () => stop(cancelled());
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener('abort', onAbort, { once: true });
    });
    stopped.catch(() => undefined);
    let streamed = false;
    const onRows = options.onRows;
    const rowsOut =
      onRows &&
      ((rows: Row[], columns: ColumnInfo[]) => {
        streamed = true;
        return onRows(rows, columns);
      });
    try {
      for (let attempt = 1; ; attempt++) {
        const run = (this.running ??= this.start());
        current = run;
        if (rowsOut) run.streams.set(id, rowsOut);
        try {
          const answer = run.ready.then(() =>
            run.rpc.call<{ columns: ColumnInfo[]; rows: string }>('query', {
              id,
              sql,
              poolBytes: options.poolBytes,
              stream: rowsOut !== undefined,
            }),
          );
          const { columns, rows } = await Promise.race([answer, stopped]);
          return { columns, rows: parseExact(rows) as Row[] };
        } catch (error) {
          // Another query's stop ended the replica under this one: it runs again on a new replica
          // (read-only, so running it twice changes nothing), unless rows of it were already sent.
          const restarted = error instanceof SvcError && error.errorCode === RESTARTED;
          if (!restarted || streamed || attempt >= RESTART_ATTEMPTS) throw error;
        } finally {
          run.streams.delete(id);
        }
      }
    } finally {
      clearTimeout(timer);
      if (onAbort) options.signal?.removeEventListener('abort', onAbort);
      this.active -= 1;
      if (this.active === 0 && !this.closed) this.armIdle();
    }
  }

  /** Ends the replica's thread once the quiet time passes with no query. */
  private armIdle(): void {
    this.idle = setTimeout(() => {
      if (this.active === 0) this.discard();
    }, this.source.idleMs ?? REPLICA_IDLE_MS);
    this.idle.unref();
  }

  /** Ends the replica's thread (its changes are no longer asked for); the next query starts a new one. */
  private discard(): void {
    const run = this.running;
    if (!run) return;
    this.running = undefined;
    for (const release of run.releases) release();
    run.rpc.fail(
      new SvcError(503, RESTARTED, 'the query replica was restarted (another query was stopped): retry', null),
    );
    void run.worker.terminate();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idle);
    const run = this.running;
    if (!run) return;
    this.discard();
  }
}
