import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInMemory } from '../pglite/initdb-dump.js';
import { engineDump } from '../pglite/shipped-dump.js';
import { scalesVary } from './aggregate-scale.js';

// Which sums keep a display scale: only those whose arguments may come in several scales.
describe('scalesVary', { timeout: 60_000 }, () => {
  let db: PGlite;
  beforeAll(async () => {
    db = await createInMemory(engineDump(), { slim: true });
    await db.exec(`CREATE TABLE t (i int, b bigint, fixed numeric(10,2), free numeric, f float8)`);
  }, 60_000);
  afterAll(() => db?.close());

  it('asks PostgreSQL the type of each argument: only a numeric of no declared scale varies', async () => {
    const args = ['i', 'b', 'fixed', 'free', 'fixed * 2', 'fixed::numeric(8,3)', 'i + free', 'f'];
    expect(await scalesVary(db, 'FROM t WHERE i > 0', args)).toEqual([
      false,
      false,
      false,
      true,
      true,
      false,
      true,
      false,
    ]);
  });

  it('answers "may vary" for an argument it cannot type, and leaves no probe behind', async () => {
    expect(await scalesVary(db, 'FROM t', ['free', 'no_such_column'])).toEqual([true, true]);
    expect(await scalesVary(db, 'FROM t', ['fixed'])).toEqual([false]);
    const left = await db.query(`SELECT 1 FROM pg_class WHERE relname = 'svc_scale_probe'`);
    expect(left.rows).toHaveLength(0);
  });
});
