import type { Database } from '../../store/database.js';
import { openPglite } from '../../store/pglite-database.js';
import { engineDump } from '../../pglite/shipped-dump.js';

// One in-memory PGlite reused by every compilation: creating an instance costs far more than a
// compilation (see the report in compile.test.ts), and each compilation runs in its own
// transaction that is always rolled back, so none sees another's objects. PGlite is one session,
// so compilations on one scratch database take turns.

export interface Scratch {
  /** Opens the scratch database now rather than at the first compilation. */
  warm(): Promise<void>;
  /** Runs `fn` with the scratch database to itself. */
  use<T>(fn: (db: Database) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * The scratch database by default: loaded from the engine's dump (the database the program will run
 * on; from src/, the one engines started there share), so no initdb runs in the compiler's process,
 * whose RSS would stay.
 */
const openFromEngineDump = (): Promise<Database> => openPglite(undefined, { initdbDump: engineDump(), slim: true });

export function createScratch(open: () => Promise<Database> = openFromEngineDump): Scratch {
  let db: Promise<Database> | undefined;
  let turn: Promise<unknown> = Promise.resolve();
  return {
    use<T>(fn: (d: Database) => Promise<T>): Promise<T> {
      const run = turn.then(async () => {
        // A failed open is not remembered: the next compilation tries again.
        db ??= open().catch((error: unknown) => {
          db = undefined;
          throw error;
        });
        return fn(await db);
      });
      turn = run.catch(() => undefined);
      return run;
    },
    warm() {
      return this.use(async () => undefined);
    },
    async close() {
      await turn;
      const opened = await db?.catch(() => undefined);
      db = undefined;
      await opened?.close();
    },
  };
}
