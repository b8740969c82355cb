import { afterEach, describe, expect, it } from 'vitest';
import { createInMemory, openDump } from './initdb-dump.js';
import { ParkingDatabase } from './parking.js';

// A parked PGlite opens again from its dump as it was: its rows, its catalog and the session's
// settings; a transaction begins only at its first statement, so one that issues none leaves a
// parked database parked, and one that does commits or rolls back as PGlite's own.

async function parkingDatabase(): Promise<ParkingDatabase> {
  const db = new ParkingDatabase(await createInMemory(undefined), (dump) => openDump(dump));
  await db.exec('CREATE TABLE t (id int PRIMARY KEY, name text NOT NULL)');
  await db.setSession('svc.test', 'before');
  return db;
}

const ids = async (db: ParkingDatabase) => (await db.query<{ id: number }>('SELECT id FROM t ORDER BY id')).rows;

describe('a parking PGlite', { timeout: 60_000 }, () => {
  let db: ParkingDatabase | undefined;
  afterEach(() => db?.close());

  it('opens again from its dump with its rows and session settings', async () => {
    db = await parkingDatabase();
    await db.exec(`INSERT INTO t VALUES (1, 'one'), (2, 'two')`);
    await db.park();
    expect(db.awake).toBe(false);
    // A setting made while parked is set when it opens.
    await db.setSession('svc.later', 'parked');
    expect(db.awake).toBe(false);
    const [a, b] = await Promise.all([
      ids(db),
      db.query<{ s: string; l: string }>(`SELECT current_setting('svc.test') AS s, current_setting('svc.later') AS l`),
    ]);
    expect(a).toEqual([{ id: 1 }, { id: 2 }]);
    expect(b.rows).toEqual([{ s: 'before', l: 'parked' }]);
    // Two statements at once while parked: opened once.
    expect(db.wakes).toBe(1);
    expect(db.awake).toBe(true);
  });

  it('begins a transaction only at its first statement', async () => {
    db = await parkingDatabase();
    await db.park();
    const none = await db.transaction(async () => 'nothing asked');
    expect(none).toBe('nothing asked');
    expect(db.awake).toBe(false);
    await db.transaction(async (tx) => {
      await tx.exec(`INSERT INTO t VALUES (1, 'one')`);
    });
    expect(db.wakes).toBe(1);
    expect(await ids(db)).toEqual([{ id: 1 }]);
  });

  it('rolls back a transaction that throws or is rolled back, as PGlite does', async () => {
    db = await parkingDatabase();
    await expect(
      db.transaction(async (tx) => {
        await tx.exec(`INSERT INTO t VALUES (2, 'two')`);
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    await db.transaction(async (tx) => {
      await tx.exec(`INSERT INTO t VALUES (3, 'three')`);
      await tx.rollback();
      expect(tx.closed).toBe(true);
      await expect(tx.query('SELECT 1')).rejects.toThrow('Transaction is closed');
    });
    // A statement that failed inside, caught by the work: COMMIT is answered with ROLLBACK.
    await expect(
      db.transaction(async (tx) => {
        await tx.exec(`INSERT INTO t VALUES (4, 'four')`);
        await tx.exec(`INSERT INTO t VALUES (4, 'again')`).catch(() => undefined);
      }),
    ).rejects.toThrow();
    expect(await ids(db)).toEqual([]);
    // And a failure to begin (the database closed) fails the statement that began it.
    await db.close();
    await expect(db.transaction((tx) => tx.query('SELECT 1'))).rejects.toThrow('closed');
  });
});
