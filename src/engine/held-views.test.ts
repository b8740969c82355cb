import { afterEach, describe, expect, it } from 'vitest';
import { parseSpelled } from '../model/exact-json.js';
import type { JsonValue } from '../model/json.js';
import type { ProgramEngine } from './engine.js';
import { openEngine } from './open.js';
import type { StatePage } from './state.js';

// A materialized view the native path keeps has its rows held in JS (traces/integral.ts), not
// written back into PGlite each step: its snapshot, an in-process query and a restart see exactly
// the rows PostgreSQL would give, a global aggregate's row of empty input included. One a view
// PGlite keeps reads is still written back (mirrored), and that view sees it.

const PROGRAM = `
  CREATE TABLE orders (id bigint NOT NULL, customer int NOT NULL, amount numeric(10,2) NOT NULL);
  CREATE MATERIALIZED VIEW revenue AS SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer;
  CREATE MATERIALIZED VIEW everything AS SELECT count(*) AS n, sum(amount) AS total FROM orders;
  CREATE MATERIALIZED VIEW big AS SELECT customer, n FROM revenue WHERE n > 1;
  CREATE VIEW labelled AS SELECT lower('C' || customer::text) AS label, total FROM big JOIN revenue USING (customer);
`;

const order = (id: number, customer: number, amount: string, weight = 1) => ({
  weight,
  row: { id, customer, amount },
});

const sorted = <T>(rows: T[]): T[] => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

async function restarted(
  engine: ProgramEngine,
  program = PROGRAM,
  views = ['revenue', 'everything', 'big', 'labelled'],
  /**
   * Whether the checkpoint keeps its circuit state (else: as one of an earlier version), and so what
   * the restore must say of the circuits (PROGRAM's are taken back, PGlite's copy of `big` evaluated).
   */
  circuits: { keep: boolean; resumed: boolean | undefined } = { keep: true, resumed: true },
): Promise<ProgramEngine> {
  const pages: StatePage[] = [];
  await engine.dump(async (page) => void pages.push({ ...page, rows: parseSpelled(page.json) as JsonValue[] }));
  await engine.close();
  const next = await openEngine(program);
  async function* each(): AsyncGenerator<StatePage> {
    yield* pages.filter((p) => circuits.keep || p.section !== 'circuit');
  }
  const restored = await next.restore({ views, pages: each() }, true);
  expect(restored.circuits?.resumed).toBe(circuits.resumed);
  return next;
}

describe('materialized native views', { timeout: 120_000 }, () => {
  let engine: ProgramEngine | undefined;
  afterEach(() => engine?.close());

  it('are held in JS: snapshots, in-process queries and a restart see PostgreSQL’s rows', async () => {
    engine = await openEngine(PROGRAM);
    for (const view of ['revenue', 'everything', 'big'])
      expect(engine.resolve(view, 'view')?.maintenance, view).toBe('native');
    expect(engine.resolve('labelled', 'view')?.maintenance).not.toBe('native');
    // The row of empty input, which the circuit's first delta does not carry.
    expect(await engine.snapshot('everything')).toEqual([{ n: 0, total: null }]);
    expect((await engine.query('SELECT n, total FROM everything')).rows).toEqual([{ n: 0, total: null }]);

    await engine.ingest('orders', [order(1, 7, '2.50'), order(2, 7, '1.25'), order(3, 8, '4.00'), order(3, 8, '4.00')]);
    await engine.step();
    const revenue = [
      { customer: 7, n: 2, total: 3.75 },
      { customer: 8, n: 2, total: 8 },
    ];
    expect(sorted(await engine.snapshot('revenue'))).toEqual(revenue);
    const queried = await engine.query('SELECT customer, n, total FROM revenue ORDER BY customer');
    expect(queried.rows).toEqual(revenue);
    // The query's rows were rolled back: a second one sees them once, not twice.
    expect((await engine.query('SELECT count(*) AS c FROM revenue')).rows).toEqual([{ c: 2 }]);
    expect(await engine.snapshot('everything')).toEqual([{ n: 4, total: 11.75 }]);
    // big is read by a view PGlite keeps, so it is written back, and that view sees it.
    expect(sorted(await engine.snapshot('labelled'))).toEqual([
      { label: 'c7', total: 3.75 },
      { label: 'c8', total: 8 },
    ]);

    await engine.ingest('orders', [order(3, 8, '4.00', -1), order(4, 9, '0.10')]);
    await engine.step();
    engine = await restarted(engine);
    const after = [
      { customer: 7, n: 2, total: 3.75 },
      { customer: 8, n: 1, total: 4 },
      { customer: 9, n: 1, total: 0.1 },
    ];
    expect(sorted(await engine.snapshot('revenue'))).toEqual(after);
    expect((await engine.query('SELECT customer, n, total FROM revenue ORDER BY customer')).rows).toEqual(after);
    expect(await engine.snapshot('everything')).toEqual([{ n: 4, total: 7.85 }]);
    expect(await engine.snapshot('big')).toEqual([{ customer: 7, n: 2 }]);
  });

  // A table PGlite holds (materialized) is read a page at a time into the circuits at a restore
  // whose checkpoint has no circuit state (one of an earlier version): more rows than one page
  // (10,000), into an aggregate, a self-join and a view over the join.
  it('are rebuilt from a PGlite table read in pages, to the same rows', async () => {
    const program = `
      CREATE TABLE ev (id bigint NOT NULL, kind text NOT NULL, amount numeric(10,2) NOT NULL) WITH ('materialized' = 'true');
      CREATE MATERIALIZED VIEW per_kind AS SELECT kind, count(*) AS n, sum(amount) AS total FROM ev GROUP BY kind;
      CREATE VIEW pairs AS SELECT a.id, b.amount FROM ev a JOIN ev b ON a.id = b.id WHERE a.id % 1000 = 0;
      CREATE MATERIALIZED VIEW pair_sum AS SELECT count(*) AS n, sum(amount) AS total FROM pairs;`;
    const views = ['per_kind', 'pairs', 'pair_sum'];
    engine = await openEngine(program);
    for (const view of views) expect(engine.resolve(view, 'view')?.maintenance, view).toBe('native');
    const rows = Array.from({ length: 25_000 }, (_, i) => ({
      weight: 1,
      row: { id: i, kind: `k${i % 7}`, amount: ((i * 37) % 10_000) / 100 },
    }));
    await engine.ingest('ev', rows);
    await engine.step();
    const before = await Promise.all(['per_kind', 'pair_sum'].map(async (v) => sorted(await engine!.snapshot(v))));
    expect(before[1]).toEqual([{ n: 25, total: expect.any(Number) as number }]);
    engine = await restarted(engine, program, views, { keep: false, resumed: false });
    const after = await Promise.all(['per_kind', 'pair_sum'].map(async (v) => sorted(await engine!.snapshot(v))));
    expect(after).toEqual(before);
    // And the circuits carry on from the restored state.
    await engine.ingest('ev', [
      { weight: 1, row: { id: 30_000, kind: 'k0', amount: 1 } },
      { weight: 1, row: { id: 29_999, kind: 'k1', amount: 2 } },
    ]);
    await engine.step();
    expect(await engine.snapshot('pair_sum')).toEqual([
      { n: 26, total: (before[1]![0] as { total: number }).total + 1 },
    ]);
  });
});
