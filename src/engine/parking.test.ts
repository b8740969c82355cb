import { afterEach, describe, expect, it } from 'vitest';
import { parseSpelled } from '../model/exact-json.js';
import type { JsonValue } from '../model/json.js';
import type { ProgramEngine } from './engine.js';
import { startThreadEngine } from './host/thread-engine.js';
import { openEngine } from './open.js';
import type { StatePage } from './state.js';

// An engine whose tables and views are all native parks its PGlite once loaded (parking.ts): its
// steps, checkpoints and restores leave it parked; a call that needs PostgreSQL opens it again
// and gets the answer it got before parking existed; unused, it is parked again. An engine with a
// table or view PGlite keeps never parks.

const NATIVE = `
  CREATE TABLE orders (id bigint PRIMARY KEY, customer int NOT NULL, amount numeric(10,2) NOT NULL);
  CREATE MATERIALIZED VIEW revenue AS SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer;
  CREATE VIEW big AS SELECT id, amount FROM orders WHERE amount > 100;
`;

const orders = (from: number, n: number, weight = 1) =>
  Array.from({ length: n }, (_, k) => ({
    weight,
    row: { id: from + k, customer: (from + k) % 5, amount: ((from + k) * 37) % 200 },
  }));

const sorted = <T>(rows: T[]): T[] => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe('an all-native engine’s PGlite', { timeout: 120_000 }, () => {
  const engines: ProgramEngine[] = [];
  const open = async (program: string, parkIdleMs?: number) => {
    const engine = await openEngine(program, { parkIdleMs });
    engines.push(engine);
    return engine;
  };
  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.close();
  });

  it('stays parked through ingests, steps, a checkpoint and a restore', async () => {
    const engine = await open(NATIVE);
    expect(engine.pglite).toEqual({ awake: false, wakes: 0 });
    engine.watch('revenue');
    await engine.ingest('orders', orders(0, 500));
    const first = await engine.step();
    expect(first.outputs.get('revenue')).toHaveLength(5);
    await engine.ingest('orders', orders(0, 100, -1));
    await engine.step();
    await engine.ingest('orders', orders(1000, 7)); // buffered: in the checkpoint's input
    const pages: StatePage[] = [];
    await engine.dump(async (page) => void pages.push({ ...page, rows: parseSpelled(page.json) as JsonValue[] }));
    expect(engine.pglite).toEqual({ awake: false, wakes: 0 });

    const next = await open(NATIVE);
    async function* each(): AsyncGenerator<StatePage> {
      yield* pages;
    }
    const restored = await next.restore({ views: ['revenue', 'big'], pages: each() }, true);
    expect(restored.circuits?.resumed).toBe(true);
    expect(restored.staged).toEqual({ orders: 7 });
    await engine.step();
    await next.step();
    expect(sorted(await next.snapshot('revenue'))).toEqual(sorted(await engine.snapshot('revenue')));
    expect(next.pglite).toEqual({ awake: false, wakes: 0 });
  });

  it('opens it for what needs PostgreSQL, with the same answers, and parks it again unused', async () => {
    const engine = await open(NATIVE, 300);
    // A value JS does not convert ("7" for an int: PostgreSQL's conversion decides), and a record
    // PostgreSQL refuses, with PostgreSQL's own message.
    const result = await engine.ingest('orders', [
      { weight: 1, row: { id: 1, customer: '7', amount: 50 } },
      { weight: 1, row: { id: 2, customer: 'seven', amount: 50 } },
    ]);
    expect(result.accepted).toBe(1);
    expect(result.errors).toEqual([
      { index: 1, message: expect.stringContaining('invalid input syntax for type integer') },
    ]);
    expect(engine.pglite).toEqual({ awake: true, wakes: 1 });
    await engine.step();
    expect(await engine.snapshot('revenue')).toEqual([{ customer: 7, n: 1, total: 50 }]);
    // A view PostgreSQL evaluates over the native table (not materialized): answered while open.
    expect(await engine.snapshot('big')).toEqual([]);
    await expect.poll(() => engine.pglite.awake, { timeout: 10_000 }).toBe(false);
    // And opened again for the next such call, as it was: the program's function and the clock.
    await engine.setNow(Date.UTC(2026, 0, 2));
    const query = await engine.query(`SELECT now() AS now, count(*)::int AS n FROM revenue`);
    expect(query.rows).toEqual([{ now: '2026-01-02T00:00:00+00:00', n: 1 }]);
    expect(engine.pglite.wakes).toBe(2);
  });

  it('is never parked when a table or a view is PGlite’s', async () => {
    const mixed = await open(
      `${NATIVE} CREATE VIEW labelled AS SELECT lower('C' || customer::text) AS label FROM orders;`,
      100,
    );
    expect(mixed.resolve('labelled', 'view')?.maintenance).not.toBe('native');
    await mixed.ingest('orders', orders(0, 10));
    await mixed.step();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(mixed.pglite).toEqual({ awake: true, wakes: 0 });
  });
});

describe('a pipeline’s engine thread', { timeout: 120_000 }, () => {
  it('parks its PGlite for an all-native program, and says so in its counters', async () => {
    const engine = await startThreadEngine().load(NATIVE);
    try {
      expect(engine.pglite).toEqual({ awake: false, wakes: 0 });
      await engine.ingest('orders', orders(0, 50));
      await engine.step();
      expect(await engine.snapshot('revenue')).toHaveLength(5);
      expect(engine.pglite).toEqual({ awake: false, wakes: 0 });
      // A value for PostgreSQL's conversion: the thread's next answer says it opened it.
      await engine.ingest('orders', [{ weight: 1, row: { id: 99, customer: '3', amount: 1 } }]);
      expect(engine.pglite).toEqual({ awake: true, wakes: 1 });
    } finally {
      await engine.close();
    }
  });
});
