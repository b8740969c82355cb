import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll } from 'vitest';
import { createInMemory } from '../../src/pglite/initdb-dump.js';
import { engineDump } from '../../src/pglite/shipped-dump.js';

/**
 * A PGlite in the engine's settings, as the oracle a test block compares the native path's
 * evaluation with: opened before the block's tests, closed after them. Call it inside `describe`.
 */
export function oracleDb(): () => PGlite {
  let db: PGlite | undefined;
  beforeAll(async () => {
    db = await createInMemory(engineDump(), { slim: true });
  }, 180_000);
  afterAll(() => db?.close());
  return () => {
    if (!db) throw new Error('the oracle database is not open (oracleDb is called inside describe)');
    return db;
  };
}
