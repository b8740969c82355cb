import type { Database } from '../../store/database.js';
import { openPglite } from '../../store/pglite-database.js';
import { engineDump } from '../../pglite/shipped-dump.js';

// One in-memory PGlite reused by every compilation: creating an instance costs far more than a
// compilation (see the report in compile.test.ts), and each compilation runs in its own
// transaction that is always rolled back, so none sees another's objects. PGlite is one session,
// so compilations on one scratch database take turns.
//
// It is closed again once no compilation has used it for a while: an open scratch database holds
// ~125 MiB of the manager's RSS, and closing it gave ~57 MiB back (measured after a full
// collection), where the next compilation after a quiet spell pays ~1 s to open it again.

/** Idle time after which the scratch database is closed (the next compilation opens it again). */
export const SCRATCH_IDLE_MS = 5 * 60_000;

export interface Scratch {
  /** Opens the scratch database now rather than at the first compilation. */
  warm(): Promise<void>;
  /** Runs `fn` with the scratch database to itself. */
  use<T>(fn: (db: Database) => Promise<T>): Promise<T>;
  /** Whether the database is open (or opening) now. */
  readonly open: boolean;
  close(): Promise<void>;
}

/**
 * The scratch database by default: loaded from the engine's dump (the database the program will run
 * on; from src/, the one engines started there share), so no initdb runs in the compiler's process,
 * whose RSS would stay.
 */
const openFromEngineDump = (): Promise<Database> => openPglite(undefined, { initdbDump: engineDump(), slim: true });

export function createScratch(
  open: () => Promise<Database> = openFromEngineDump,
  { idleMs = SCRATCH_IDLE_MS }: { idleMs?: number } = {},
): Scratch {
  let db: Promise<Database> | undefined;
  let turn: Promise<unknown> = Promise.resolve();
  let idle: NodeJS.Timeout | undefined;
  /** Uses queued or running: the idle time starts when the last of them ends. */
  let pending = 0;
  const shut = async () => {
    const opened = await db?.catch(() => undefined);
    db = undefined;
    await opened?.close();
  };
  /** After each use: closed once idleMs pass with no other (it takes its turn, so never mid-use). */
  const rearm = () => {
    pending -= 1;
    if (pending > 0) return;
    idle = setTimeout(() => {
      turn = turn.then(shut).catch(() => undefined);
    }, idleMs);
    idle.unref();
  };
  return {
    use<T>(fn: (d: Database) => Promise<T>): Promise<T> {
      clearTimeout(idle);
      pending += 1;
      const run = turn.then(async () => {
        // A failed open is not remembered: the next compilation tries again.
        db ??= open().catch((error: unknown) => {
          db = undefined;
          throw error;
        });
        return fn(await db);
      });
      turn = run.catch(() => undefined).finally(rearm);
      return run;
    },
    warm() {
      return this.use(async () => undefined);
    },
    get open() {
      return db !== undefined;
    },
    async close() {
      clearTimeout(idle);
      await turn;
      clearTimeout(idle);
      await shut();
    },
  };
}
