import type { PGlite, Transaction } from '@electric-sql/pglite';

// A transaction that begins at its first statement, not before. Most of an all-native engine's
// transactions (a step, a checkpoint's dump, a restore) touch PGlite only in a case that rarely
// comes (a view PGlite keeps, a value only PostgreSQL converts): begun lazily, one that issues no
// statement costs nothing, and a parked database (parking.ts) stays parked through it.
// Once begun it is PGlite's own transaction (db.transaction): the same BEGIN, COMMIT, ROLLBACK on a
// throw, and the same error for a COMMIT that PostgreSQL answered with ROLLBACK.

/** What the engine's statements use of a transaction (or of the database itself). */
export type Tx = Pick<Transaction, 'query' | 'exec'>;

/** A transaction as `lazyTransaction` hands it out. */
export type LazyTx = Tx & Pick<Transaction, 'rollback' | 'closed'>;

type Outcome = { ok: true } | { ok: false; error: unknown };

/** Runs `work` in a transaction begun on `open()`'s database at the first statement, if any. */
export async function lazyTransaction<T>(open: () => Promise<PGlite>, work: (tx: LazyTx) => Promise<T>): Promise<T> {
  let begun: Promise<Transaction> | undefined;
  let finished: Promise<void> | undefined;
  let settle: ((outcome: Outcome) => void) | undefined;
  let rolledBack = false;
  const begin = (): Promise<Transaction> =>
    (begun ??= new Promise<Transaction>((resolve, reject) => {
      finished = open().then((db) =>
        db.transaction(async (tx) => {
          const outcome = new Promise<Outcome>((done) => (settle = done));
          resolve(tx);
          const end = await outcome;
          if (!end.ok) throw end.error;
        }),
      );
      // Opening or BEGIN failed before the transaction was handed out: the statement fails so.
      finished.catch(reject);
    }));
  const closedCheck = () => {
    if (rolledBack) throw new Error('Transaction is closed');
  };
  const tx: LazyTx = {
    query: async (...args: Parameters<Transaction['query']>) => {
      closedCheck();
      return (await begin()).query(...args);
    },
    exec: async (...args: Parameters<Transaction['exec']>) => {
      closedCheck();
      return (await begin()).exec(...args);
    },
    rollback: async () => {
      closedCheck();
      if (begun) await (await begun).rollback();
      rolledBack = true;
    },
    get closed() {
      return rolledBack;
    },
  } as LazyTx;
  let result: T;
  try {
    result = await work(tx);
  } catch (error) {
    if (begun) {
      settle?.({ ok: false, error });
      await finished?.catch(() => undefined);
    }
    throw error;
  }
  if (begun) {
    settle?.({ ok: true });
    await finished;
  }
  return result;
}
