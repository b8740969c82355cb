import { openEngine } from '../src/engine/open.js';
import type { Change } from '../src/engine/types.js';
import { benchFlags, integerFlag, say, uptime } from './common.js';
import { pathFigures, pathLine } from './engine-paths.js';

// `npm run bench:native -- [--records 200000] [--batch 10000]`
// A quick in-process comparison on bench:engine's workload (orders and customers; a filter view, a
// join view, a GROUP BY view, every view's changes read out): the same batches through the engine
// with the native path on (all three views native) and off (the PGlite rules). bench:engine is the
// full benchmark (latency, RSS, the dbsp baseline); this one isolates what the native path changes.

const USAGE = `usage: npm run bench:native -- [--records N] [--batch N]`;
const values = benchFlags(USAGE, {
  records: { type: 'string', default: '200000' },
  batch: { type: 'string', default: '10000' },
});
const RECORDS = integerFlag('records', values.records, 1, 100_000_000);
const BATCH = integerFlag('batch', values.batch, 1, 1_000_000);

const PROGRAM = `
  CREATE TABLE orders (id bigint NOT NULL, customer int NOT NULL, amount numeric(10,2) NOT NULL, status text NOT NULL);
  CREATE TABLE customers (id int PRIMARY KEY, region text NOT NULL);
  CREATE VIEW big_orders AS SELECT id, customer, amount FROM orders WHERE amount > 900;
  CREATE VIEW order_regions AS SELECT o.id, c.region, o.amount FROM orders o JOIN customers c ON c.id = o.customer;
  CREATE MATERIALIZED VIEW revenue AS SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer;`;
const CUSTOMERS = 1000;
const STATUSES = ['new', 'paid', 'shipped'];
const batch = (from: number, n: number): Change[] =>
  Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return {
      weight: 1,
      row: { id: i, customer: (i % CUSTOMERS) + 1, amount: ((i * 7919) % 100_000) / 100, status: STATUSES[i % 3]! },
    };
  });

async function run(native: boolean) {
  const kept: string[] = [];
  const engine = await openEngine(PROGRAM, { native, onMaintenance: (v, m) => kept.push(`${v}: ${m}`) });
  for (const v of ['big_orders', 'order_regions', 'revenue']) engine.watch(v);
  const customers = Array.from({ length: CUSTOMERS }, (_, i) => ({
    weight: 1,
    row: { id: i + 1, region: `r${i % 7}` },
  }));
  await engine.ingest('customers', customers);
  await engine.step();
  const steps: number[] = [];
  const t0 = performance.now();
  for (let from = 0; from < RECORDS; from += BATCH) {
    await engine.ingest('orders', batch(from, Math.min(BATCH, RECORDS - from)));
    const s0 = performance.now();
    await engine.step();
    steps.push(performance.now() - s0);
  }
  const seconds = (performance.now() - t0) / 1000;
  await engine.close();
  return pathFigures(native, kept, RECORDS, seconds, steps);
}

say(`machine: ${uptime()}`);
const results = [await run(true), await run(false)];
for (const r of results) process.stdout.write(pathLine(r));
process.stdout.write(`native / PGlite rules: ${(results[0]!.recordsPerS / results[1]!.recordsPerS).toFixed(2)}×\n`);
