import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../store/database.js';
import { openPglite } from '../../store/pglite-database.js';
import { engineDump } from '../../pglite/shipped-dump.js';
import { createScratch } from './scratch.js';

// The scratch database (a real PGlite from the engine's dump) closes once idle and opens again on use.

function counted() {
  const counts = { opened: 0, closed: 0 };
  const open = async (): Promise<Database> => {
    const db = await openPglite(undefined, { initdbDump: engineDump(), slim: true });
    counts.opened += 1;
    const close = db.close.bind(db);
    return Object.assign(db, { close: () => ((counts.closed += 1), close()) });
  };
  return { counts, open };
}

describe('createScratch', { timeout: 60_000 }, () => {
  it('closes the database after idleMs with no use, and opens it again for the next', async () => {
    const { counts, open } = counted();
    const scratch = createScratch(open, { idleMs: 300 });
    try {
      expect(await scratch.use(async (db) => await db.query<{ n: number }>('SELECT 1 AS n'))).toEqual([{ n: 1 }]);
      expect(scratch.open).toBe(true);
      await expect.poll(() => counts.closed, { timeout: 5_000 }).toBe(1);
      expect(scratch.open).toBe(false);
      expect(await scratch.use(async (db) => await db.query<{ n: number }>('SELECT 2 AS n'))).toEqual([{ n: 2 }]);
      expect(counts).toEqual({ opened: 2, closed: 1 });
    } finally {
      await scratch.close();
    }
    expect(counts).toEqual({ opened: 2, closed: 2 });
  });

  it('never closes under a use, nor while uses keep coming within idleMs', async () => {
    const { counts, open } = counted();
    const scratch = createScratch(open, { idleMs: 400 });
    try {
      // One use longer than idleMs, then uses every 100 ms for a second: one database throughout.
      await scratch.use(async (db) => {
        await sleep(800);
        await db.query('SELECT 1');
      });
      for (let i = 0; i < 10; i++) {
        await scratch.use((db) => db.query('SELECT 1'));
        await sleep(100);
      }
      expect(counts).toEqual({ opened: 1, closed: 0 });
    } finally {
      await scratch.close();
    }
  });
});
