import { fullCollector } from '../heap/full-collection.js';
import type { ParkingDatabase } from '../pglite/parking.js';

// When an engine's PGlite is parked (src/pglite/parking.ts). An engine whose tables and views are
// all native asks PGlite nothing in a step: its PGlite is parked once the program is loaded, and,
// when a rare call opened it again (a value only PostgreSQL converts, a snapshot PostgreSQL
// evaluates, a query in the engine's process), parked again once it has been unused for a while:
// opening it costs ~0.5 s, so a run of such calls does not pay it each time. An engine with a view
// PGlite keeps uses it every step and never parks.

/** How long an opened PGlite of an all-native engine stays open unused. */
export const PARK_IDLE_MS = 60_000;

export class Parker {
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  /** V8's collector, reached once (each reach makes a context of its own). */
  readonly #collect = fullCollector('last-resort');

  constructor(
    private readonly db: ParkingDatabase,
    /** Runs work in a turn of the engine's queue: no statement runs meanwhile. */
    private readonly turn: (work: () => Promise<void>) => Promise<void>,
    private readonly idleMs: number = PARK_IDLE_MS,
  ) {}

  /**
   * Parks the database (in a turn, or before the engine takes any), then collects this thread's
   * heap at once: the closed PGlite's WebAssembly memory and files go back to the system only when
   * the collector frees them, which an engine without input might otherwise not run for minutes
   * (measured in a pipeline: 243 MiB 20 s after its start, 169 once a collection ran).
   */
  async park(): Promise<void> {
    await this.db.park();
    this.#collect();
  }

  /** After each turn: an open database is parked once unused for idleMs. */
  watch(): void {
    if (this.#stopped || this.#timer || !this.db.awake) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.due();
      },
      Math.max(0, this.idleMs - this.db.idleMs),
    );
    this.#timer.unref();
  }

  private due(): void {
    if (this.#stopped || !this.db.awake) return;
    if (this.db.idleMs < this.idleMs) return this.watch();
    // Parking failed (the dump or the close): the database stays open, and is tried again later.
    this.turn(async () => {
      if (this.db.idleMs >= this.idleMs) await this.park();
    }).catch(() => undefined);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }
}
