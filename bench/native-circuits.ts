import { createInMemory } from '../src/pglite/initdb-dump.js';
import { parseNumeric } from '../src/engine/expressions/numeric.js';
import type { Value } from '../src/engine/expressions/types.js';
import { changesOf } from '../src/engine/native-views.js';
import { rowMaker } from '../src/engine/json-rows.js';
import { valueToJson } from '../src/engine/expressions/values.js';
import { planView } from '../src/engine/planner/plan.js';
import { ZSet } from '../src/engine/zset/zset.js';
import { ShardPool } from '../src/engine/workers/pool.js';
import { CircuitProfile } from '../src/engine/operators/profile.js';
import type { Relation } from '../src/engine/catalog.js';
import { benchFlags, fullCollector, integerFlag, say, uptime } from './common.js';
import { CUSTOMERS, order, PROGRAM } from './engine-workload.js';
import { median, mib } from './engine-workload.js';

// `node --import tsx bench/native-circuits.ts [--records 300000] [--batch 10000] [--workers 1] [--timed]`
// The native path's own cost on bench:engine's workload, without PGlite around it: the three views'
// circuits (planned from PostgreSQL's canonical text as the engine plans them) fed the orders as
// native rows, every view's delta turned into the changes a step reports. Prints records/s of the
// circuits alone and with the changes, and the bytes of JS heap each order held in the state costs
// (the join's traces hold every order; measured after a full GC, before and after the run).
// --timed: the operators timed as with runtime_config.cpu_profiler (operators/profile.ts), to see
// what the circuit profile's timing costs against a run without it.

const USAGE = 'usage: node --import tsx bench/native-circuits.ts [--records N] [--batch N] [--workers N] [--timed]';
const values = benchFlags(USAGE, {
  records: { type: 'string', default: '300000' },
  batch: { type: 'string', default: '10000' },
  workers: { type: 'string', default: '1' },
  timed: { type: 'boolean', default: false },
});
const TIMED = values.timed;
const WORKERS = integerFlag('workers', values.workers, 1, 64);
const RECORDS = integerFlag('records', values.records, 1, 100_000_000);
const BATCH = integerFlag('batch', values.batch, 1, 1_000_000);
// The heap measured after full collections.
const gc = fullCollector();

/** Each view's canonical text and columns, as the engine reads them from PGlite at load. */
type Columns = { name: string; type: string; nullable: boolean }[];
async function views(): Promise<{ views: { relation: Relation; def: string }[]; tables: Map<string, Columns> }> {
  const db = await createInMemory(undefined, {});
  await db.exec(PROGRAM);
  const out: { relation: Relation; def: string }[] = [];
  const { rows } = await db.query<{ name: string; def: string; materialized: boolean }>(
    `SELECT c.relname AS name, pg_get_viewdef(c.oid) AS def, c.relkind = 'm' AS materialized
       FROM pg_class c WHERE c.relkind IN ('v', 'm') AND c.relnamespace = 'public'::regnamespace ORDER BY 1`,
  );
  for (const { name, def, materialized } of rows) {
    const cols = await db.query<Columns[number]>(
      `SELECT attname AS name, format_type(atttypid, atttypmod) AS type, NOT attnotnull AS nullable FROM pg_attribute
        WHERE attrelid = $1::regclass AND attnum > 0 ORDER BY attnum`,
      [name],
    );
    const relation: Relation = { name, kind: 'view', materialized, columns: cols.rows, primaryKey: [] };
    out.push({ relation, def });
  }
  const tables = new Map<string, Columns>();
  for (const t of ['orders', 'customers']) {
    const cols = await db.query<Columns[number]>(
      `SELECT attname AS name, format_type(atttypid, atttypmod) AS type, NOT attnotnull AS nullable FROM pg_attribute
        WHERE attrelid = $1::regclass AND attnum > 0 ORDER BY attnum`,
      [t],
    );
    tables.set(t, cols.rows);
  }
  await db.close();
  return { views: out, tables };
}

const orderRow = (i: number): Value[] => {
  const o = order(i);
  return [BigInt(o.id), o.customer, parseNumeric(o.amount.toFixed(2)), o.status];
};
const ordersDelta = (from: number, n: number): ZSet => {
  const z = new ZSet();
  for (let i = from; i < from + n; i++) z.add(orderRow(i), 1);
  return z;
};

const program = await views();
const pool = WORKERS > 1 ? await ShardPool.start(WORKERS) : undefined;
const planned = program.views.map(({ relation, def }) => {
  const catalog = { columnsOf: (r: string) => program.tables.get(r) };
  const plan = pool ? pool.plan(def, relation.columns, catalog, TIMED) : planView(def, relation.columns, catalog);
  if (!plan.native) throw new Error(`${relation.name} is not native: ${plan.reason}`);
  if (TIMED && !pool) new CircuitProfile(plan.root, true);
  return {
    relation,
    plan,
    json: rowMaker(
      relation.columns.map((c) => c.name),
      plan.types,
      valueToJson,
    ),
  };
});
const customers = new ZSet();
for (let k = 0; k < CUSTOMERS; k++) customers.add([k + 1, `r${k % 7}`], 1);
const run = (deltas: Map<string, ZSet>, changes: boolean): number => {
  let n = 0;
  for (const { plan, json } of planned) {
    const out = plan.root.step({ delta: (r) => deltas.get(r) ?? new ZSet() });
    n += changes ? changesOf(json, out).length : out.size;
  }
  return n;
};
run(new Map([['customers', customers]]), true);

gc();
const heapBefore = process.memoryUsage().heapUsed;
const circuitMs: number[] = [];
const changesMs: number[] = [];
let emitted = 0;
for (let from = 0; from < RECORDS; from += BATCH) {
  const n = Math.min(BATCH, RECORDS - from);
  // Every other batch through the circuits alone, the others with their changes made too.
  const withChanges = (from / BATCH) % 2 === 1;
  const delta = new Map([['orders', ordersDelta(from, n)]]);
  const t0 = performance.now();
  emitted += run(delta, withChanges);
  (withChanges ? changesMs : circuitMs).push(performance.now() - t0);
}
gc();
const heldBytes = process.memoryUsage().heapUsed - heapBefore;
const perS = (ms: number[]) => Math.round((BATCH * ms.length) / (ms.reduce((a, b) => a + b, 0) / 1000));
process.stdout.write(
  [
    `machine: ${uptime()}`,
    `workers ${WORKERS}${TIMED ? ', timed' : ''}: ${RECORDS.toLocaleString('en-US')} orders in batches of ${BATCH.toLocaleString('en-US')}, views: ${planned.map((p) => p.relation.name).join(', ')}; ${emitted} changes`,
    `circuits alone: ${perS(circuitMs).toLocaleString('en-US')} records/s (median step ${median(circuitMs).toFixed(1)} ms)`,
    `circuits + changes: ${perS(changesMs).toLocaleString('en-US')} records/s (median step ${median(changesMs).toFixed(1)} ms)`,
    `state: ${mib(heldBytes)} MiB of JS heap, ${Math.round(heldBytes / RECORDS)} bytes per order held; RSS ${mib(process.memoryUsage().rss)} MiB`,
  ].join('\n') + '\n',
);
await pool?.close();
say('done');
