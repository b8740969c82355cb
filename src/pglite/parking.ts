import type { PGlite, QueryOptions, Results } from '@electric-sql/pglite';
import { lazyTransaction, type LazyTx } from './lazy-transaction.js';

// A PGlite that can be put aside while nobody needs it. An engine whose tables and views are all
// native keeps its data in JS; its PGlite (the program's catalog, empty tables) is needed only for
// the rare call that asks PostgreSQL (a value JS cannot convert, a snapshot PostgreSQL evaluates,
// a query in the engine's process) and costs ~100 MiB of a pipeline's RSS while open (its
// WebAssembly memory, code and in-memory files). Parked, its files are kept as one compressed
// dump (a few MiB) and the database is closed; the next statement opens it again from that dump,
// as it was, with the session's settings (setSession) put back.

/** What the engine uses of a database: PGlite's own calls, a transaction begun at its first statement. */
export interface Database extends Pick<PGlite, 'query' | 'exec'> {
  transaction<T>(work: (tx: LazyTx) => Promise<T>): Promise<T>;
}

/** Opens a database from a dump of its files (with the same server settings as the first). */
export type Reopen = (dump: Blob) => Promise<PGlite>;

export class ParkingDatabase implements Database {
  #db: PGlite | undefined;
  #dump: Blob | undefined;
  #opening: Promise<PGlite> | undefined;
  #closed = false;
  #wakes = 0;
  #lastUse = performance.now();
  /** Session settings (not in the database's files): set again on a reopened database. */
  readonly #session = new Map<string, string>();

  constructor(
    db: PGlite,
    private readonly reopen: Reopen,
  ) {
    this.#db = db;
  }

  /** Sets a session setting (set_config), now when open and again whenever it is reopened. */
  async setSession(name: string, value: string): Promise<void> {
    this.#session.set(name, value);
    if (this.#db) await this.#db.query('SELECT set_config($1, $2, false)', [name, value]);
  }

  /** Whether the database is open (not parked). */
  get awake(): boolean {
    return this.#db !== undefined;
  }

  /** Times it was opened again after being parked. */
  get wakes(): number {
    return this.#wakes;
  }

  /** Milliseconds since a statement last ran (or the database was parked or opened). */
  get idleMs(): number {
    return performance.now() - this.#lastUse;
  }

  /**
   * Dumps the database's files (after a CHECKPOINT: consistent without recovery) and closes it.
   * The caller makes sure no statement runs meanwhile (the engine parks in a turn of its own).
   */
  async park(): Promise<void> {
    const db = this.#db;
    if (!db || this.#closed) return;
    await db.exec('CHECKPOINT');
    const dump = await db.dumpDataDir('gzip');
    // Parked from here on, whatever the close says: the next statement opens the dump.
    this.#db = undefined;
    this.#dump = dump;
    this.#lastUse = performance.now();
    await db.close();
  }

  private open(): Promise<PGlite> {
    if (this.#closed) return Promise.reject(new Error('the database is closed'));
    this.#lastUse = performance.now();
    if (this.#db) return Promise.resolve(this.#db);
    this.#opening ??= (async () => {
      try {
        const db = await this.reopen(this.#dump!);
        try {
          for (const [name, value] of this.#session) await db.query('SELECT set_config($1, $2, false)', [name, value]);
        } catch (error) {
          await db.close();
          throw error;
        }
        this.#db = db;
        this.#dump = undefined;
        this.#wakes += 1;
        return db;
      } finally {
        this.#opening = undefined;
      }
    })();
    return this.#opening;
  }

  async query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return (await this.open()).query<T>(sql, params, options);
  }

  async exec(sql: string, options?: QueryOptions): Promise<Results[]> {
    return (await this.open()).exec(sql, options);
  }

  transaction<T>(work: (tx: LazyTx) => Promise<T>): Promise<T> {
    return lazyTransaction(() => this.open(), work);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#opening?.catch(() => undefined);
    this.#dump = undefined;
    const db = this.#db;
    this.#db = undefined;
    await db?.close();
  }
}
