import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProgramEngine } from './engine.js';
import { openEngine } from './open.js';

// The ad-hoc query memory pool (seed 2.6 datafusion_memory_mb): a result past it fails that query
// alone with ResourcesExhausted; the engine goes on.

describe('ad-hoc query pool', { timeout: 60_000 }, () => {
  let engine: ProgramEngine;
  beforeAll(async () => {
    engine = await openEngine(`CREATE TABLE t (id int, s text) WITH ('materialized' = 'true');`);
    const rows = Array.from({ length: 2_500 }, (_, id) => ({ weight: 1, row: { id, s: `row ${id}` } }));
    await engine.ingest('t', rows);
    await engine.step();
  }, 60_000);
  afterAll(() => engine?.close());

  it('reads every row across fetch batches when no pool is set', async () => {
    const result = await engine.query('SELECT id, s FROM t ORDER BY id');
    expect(result.rows).toHaveLength(2_500);
    expect(result.rows[1_999]).toEqual({ id: 1_999, s: 'row 1999' });
    expect(result.columns.map((c) => c.name)).toEqual(['id', 's']);
  });

  it('a result past the pool fails with ResourcesExhausted naming the setting; a narrower one passes', async () => {
    // ~25 bytes a row: 2,500 rows are ~62 KB, past a 10 KB pool; 10 rows are not.
    await expect(engine.query('SELECT id, s FROM t', 10_000)).rejects.toMatchObject({
      status: 400,
      errorCode: 'ResourcesExhausted',
      details: { field: 'runtime_config.datafusion_memory_mb', pool_bytes: 10_000 },
    });
    expect((await engine.query('SELECT id, s FROM t WHERE id < 10', 10_000)).rows).toHaveLength(10);
    await engine.ingest('t', [{ weight: 1, row: { id: 9_999, s: 'after' } }]);
    await engine.step();
    expect((await engine.query('SELECT count(*) AS n FROM t', 10_000)).rows).toEqual([{ n: 2_501 }]);
  });
});
