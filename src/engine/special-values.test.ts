import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProgramEngine } from './engine.js';
import { openEngine } from './open.js';
import type { Change, Row } from './types.js';

// A GROUP BY view, kept natively or by the aggregate rule, stays equal to its query evaluated from scratch when the
// values summed cannot be subtracted again: numeric NaN and ±Infinity (NaN − NaN is NaN).

const QUERY = 'SELECT k, count(*) AS n, sum(x) AS total, avg(x) AS mean, sum(i) AS si, avg(i) AS mi FROM t GROUP BY k';
const PROGRAM = `
  CREATE TABLE t (k int NOT NULL, x numeric, i int) WITH ('materialized' = 'true');
  CREATE MATERIALIZED VIEW v AS ${QUERY};
`;

const change = (weight: number, k: number, x: string | number | null, i: number | null = 1): Change => ({
  weight,
  row: { k, x, i },
});
const byKey = (rows: Row[]) => [...rows].sort((a, b) => Number(a['k']) - Number(b['k']));

const PATHS = [
  { native: true, maintenance: 'native' },
  { native: false, maintenance: 'aggregate' },
];

describe.each(PATHS)('aggregates over NaN and infinities (native: $native)', { timeout: 60_000 }, (path) => {
  let engine: ProgramEngine;
  beforeAll(async () => {
    engine = await openEngine(PROGRAM, { native: path.native });
  }, 60_000);
  afterAll(() => engine?.close());

  /** Applies one step of changes, then compares the view with its query from scratch. */
  const stepAndCompare = async (changes: Change[]) => {
    const result = await engine.ingest('t', changes);
    expect(result.errors).toEqual([]);
    await engine.step();
    const kept = byKey(await engine.snapshot('v'));
    const fresh = byKey((await engine.query(`${QUERY} ORDER BY k`)).rows);
    expect(kept).toEqual(fresh);
    return kept;
  };

  it(`is kept by ${path.maintenance}`, () => {
    expect(engine.resolve('v', 'view')?.maintenance).toBe(path.maintenance);
  });

  it('a NaN inserted then deleted leaves the sum and average of the finite values', async () => {
    await stepAndCompare([change(1, 1, '1.5'), change(1, 1, '2'), change(1, 2, 7)]);
    const withNaN = await stepAndCompare([change(1, 1, 'NaN')]);
    expect(withNaN[0]).toMatchObject({ k: 1, total: 'NaN', mean: 'NaN' });
    const without = await stepAndCompare([change(-1, 1, 'NaN')]);
    expect(without[0]).toMatchObject({ k: 1, n: 2, total: 3.5 });
  });

  it('infinities: one kind is that infinity, both are NaN, and each deletes again', async () => {
    expect((await stepAndCompare([change(1, 2, 'Infinity')]))[1]).toMatchObject({ total: 'Infinity' });
    expect((await stepAndCompare([change(1, 2, '-Infinity')]))[1]).toMatchObject({ total: 'NaN' });
    expect((await stepAndCompare([change(-1, 2, 'Infinity')]))[1]).toMatchObject({ total: '-Infinity' });
    expect((await stepAndCompare([change(-1, 2, '-Infinity')]))[1]).toMatchObject({ total: 7 });
  });

  it('NULLs, several specials in one step, and a group emptied and filled again', async () => {
    await stepAndCompare([change(2, 3, 'NaN', null), change(1, 3, null), change(1, 3, 'Infinity'), change(1, 3, 4)]);
    await stepAndCompare([change(-2, 3, 'NaN', null), change(-1, 3, 'Infinity')]);
    await stepAndCompare([change(-1, 3, null), change(-1, 3, 4)]);
    expect((await engine.snapshot('v')).some((r) => r['k'] === 3)).toBe(false);
    await stepAndCompare([change(1, 3, 'NaN'), change(-1, 1, '1.5')]);
  });
});
