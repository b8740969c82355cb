import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { HostedEngine } from '../src/engine/host/hosted.js';
import { startThreadEngine } from '../src/engine/host/thread-engine.js';
import { openEngine } from '../src/engine/open.js';
import { createInMemory } from '../src/pglite/initdb-dump.js';
import { StepScheduler } from '../src/engine/scheduler.js';
import type { Change } from '../src/engine/types.js';
import { startPostgres, stopPostgres } from '../test/support/postgres.js';
import { startPipelineApp } from '../test/support/pipeline-controller.js';
import { httpLatency, httpThroughput, pushBatch, readEgress } from './engine-http.js';
import { benchFlags, integerFlag, machineTable, runBench, say, sleep, uptime, writeResult } from './common.js';
import { machineFacts } from './report.js';

// `npm run bench:engine -- [--records 1000000] [--batch 10000] [--record]`
// The engine of issue 15: one program with a filter view, a join view and a GROUP BY view; records
// ingested as JSON batches and stepped one batch a step; then ingress→output latency at a steady
// 1,000 records/s through the step scheduler; side by side, COPY of the same rows into a plain
// PostgreSQL table of this machine (the physical limit of the evaluator's family). See bench/README.md.

const USAGE = `usage: npm run bench:engine -- [options]
  --records N   records ingested (default 1000000)
  --batch N     records per JSON batch, one step each (default 10000)
  --latency S   seconds of the 1,000 records/s latency phase (default 10; 0 skips it)
  --via V       engine (the DataEngine API, the engine on this thread), thread (the same API, the engine
                on a worker thread as the pipeline runs it) or http (the pipeline's ingress route)
  --watch W     all (default: every view's changes read out; over http an egress stream a view) or none
  --record      also write bench/results/<date>-engine.md`;

const values = benchFlags(USAGE, {
  records: { type: 'string', default: '1000000' },
  batch: { type: 'string', default: '10000' },
  latency: { type: 'string', default: '10' },
  via: { type: 'string', default: 'engine' },
  watch: { type: 'string', default: 'all' },
  record: { type: 'boolean', default: false },
});
const RECORDS = integerFlag('records', values.records, 1, 100_000_000);
const BATCH = integerFlag('batch', values.batch, 1, 1_000_000);
const LATENCY_S = integerFlag('latency', values.latency, 0, 3600);
if (values.via !== 'engine' && values.via !== 'thread' && values.via !== 'http')
  throw new Error(`--via: engine, thread or http, not ${values.via}`);
const VIA = values.via;
if (values.watch !== 'all' && values.watch !== 'none') throw new Error(`--watch: all or none, not ${values.watch}`);
const WATCH = values.watch === 'all';

const CUSTOMERS = 1000;
const PROGRAM = `
  CREATE TABLE orders (id bigint NOT NULL, customer int NOT NULL, amount numeric(10,2) NOT NULL, status text NOT NULL);
  CREATE TABLE customers (id int PRIMARY KEY, region text NOT NULL);
  CREATE VIEW big_orders AS SELECT id, customer, amount FROM orders WHERE amount > 900;
  CREATE VIEW order_regions AS SELECT o.id, c.region, o.amount FROM orders o JOIN customers c ON c.id = o.customer;
  CREATE MATERIALIZED VIEW revenue AS SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer;`;

const STATUSES = ['new', 'paid', 'shipped'];
const order = (i: number) => ({
  id: i,
  customer: (i % CUSTOMERS) + 1,
  amount: ((i * 7919) % 100_000) / 100,
  status: STATUSES[i % 3]!,
});
/** A batch as the wire carries it: JSON text of insert_delete records (decoded again below). */
const batchJson = (from: number, n: number): string =>
  JSON.stringify(Array.from({ length: n }, (_, k) => ({ insert: order(from + k) })));
const decode = (json: string): Change[] =>
  (JSON.parse(json) as { insert: Change['row'] }[]).map((r) => ({ weight: 1, row: r.insert }));

const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
/** One step can meet a GC pause or the engine's housekeeping round: the trend is read from medians. */
const median = (xs: number[]) => percentile(xs, 0.5);
const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? NaN;

async function throughput(engine: HostedEngine) {
  const stepMs: number[] = [];
  const t0 = performance.now();
  for (let from = 0; from < RECORDS; from += BATCH) {
    const n = Math.min(BATCH, RECORDS - from);
    const result = await engine.ingest('orders', decode(batchJson(from, n)));
    if (result.errors.length > 0) throw new Error(`rejected records: ${JSON.stringify(result.errors.slice(0, 3))}`);
    const s0 = performance.now();
    await engine.step();
    stepMs.push(performance.now() - s0);
    if (stepMs.length % 20 === 0) say(`${from + n} records, last step ${stepMs.at(-1)!.toFixed(0)} ms`);
  }
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, recordsPerS: RECORDS / seconds, stepMs, rssMiB: mib(process.memoryUsage().rss) };
}

/** 1,000 records/s in batches of 100 every 100 ms, steps by the scheduler: ingest call → step done. */
async function latency(engine: HostedEngine, firstId: number) {
  const scheduler = new StepScheduler(engine, {
    minBatchRecords: 0,
    maxDelayMs: 0,
    enabled: () => true,
    onError: (error) => say(`step failed: ${String(error)}`),
  });
  const waiting = new Map<number, number>();
  const samples: number[] = [];
  const off = engine.onStep((r) => {
    for (const [seq, at] of waiting)
      if (seq <= r.appliedSeq) {
        samples.push(performance.now() - at);
        waiting.delete(seq);
      }
  });
  const off2 = engine.onIngest(() => scheduler.inputArrived());
  let id = firstId;
  const end = performance.now() + LATENCY_S * 1000;
  while (performance.now() < end) {
    const at = performance.now();
    const { seq } = await engine.ingest('orders', decode(batchJson(id, 100)));
    waiting.set(seq, at);
    id += 100;
    await sleep(Math.max(0, 100 - (performance.now() - at)));
  }
  await scheduler.idle();
  off();
  off2();
  scheduler.stop();
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99), samples: samples.length };
}

/** COPY of the same rows, from a CSV file the server reads itself, into a plain table. */
async function copyCeiling(csv: string) {
  const server = await startPostgres();
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-copy-'));
  chmodSync(dir, 0o755);
  try {
    const file = join(dir, 'orders.csv');
    writeFileSync(file, csv, { mode: 0o644 });
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      await client.query(
        'CREATE TABLE orders (id bigint NOT NULL, customer int NOT NULL, amount numeric(10,2) NOT NULL, status text NOT NULL)',
      );
      const version = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version;
      const t0 = performance.now();
      await client.query(`COPY orders FROM '${file}' (FORMAT csv)`);
      const seconds = (performance.now() - t0) / 1000;
      return { seconds, recordsPerS: RECORDS / seconds, version: version ?? 'unknown' };
    } finally {
      await client.end();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    stopPostgres(server);
  }
}

/** COPY of the same rows into a plain table of PGlite, the evaluator itself (same settings as the engine's). */
async function pgliteCopyCeiling(csv: string) {
  const db = await createInMemory(undefined, { settings: { shared_buffers: '16MB' }, slim: true });
  try {
    await db.exec(
      'CREATE TABLE orders (id bigint NOT NULL, customer int NOT NULL, amount numeric(10,2) NOT NULL, status text NOT NULL)',
    );
    const blob = new Blob([csv]);
    const t0 = performance.now();
    await db.query(`COPY orders FROM '/dev/blob' (FORMAT csv)`, [], { blob });
    return RECORDS / ((performance.now() - t0) / 1000);
  } finally {
    await db.close();
  }
}

/**
 * The least a PGlite-evaluated engine does with a batch before any view: COPY it into a staging table
 * (so that a bad record rejects nothing else, and a step applies all tables at once), move it into
 * the table, empty the staging table. No view is maintained; every view reads the batch at least once
 * more. Batches as the engine gets them, in PGlite with the engine's settings.
 */
async function pgliteFloor(csv: string) {
  const db = await createInMemory(undefined, { settings: { shared_buffers: '16MB' }, slim: true });
  try {
    const columns = 'id bigint NOT NULL, customer int NOT NULL, amount numeric(10,2) NOT NULL, status text NOT NULL';
    await db.exec(`CREATE TABLE orders (${columns}); CREATE UNLOGGED TABLE stage (${columns});`);
    const lines = csv.split('\n');
    const blobs: Blob[] = [];
    for (let from = 0; from < RECORDS; from += BATCH)
      blobs.push(new Blob([`${lines.slice(from, Math.min(from + BATCH, RECORDS)).join('\n')}\n`]));
    const t0 = performance.now();
    for (const blob of blobs) {
      await db.query(`COPY stage FROM '/dev/blob' (FORMAT csv)`, [], { blob });
      await db.exec('INSERT INTO orders SELECT * FROM stage; TRUNCATE stage;');
    }
    return RECORDS / ((performance.now() - t0) / 1000);
  } finally {
    await db.close();
  }
}

const csvRows = (): string => {
  const lines: string[] = [];
  for (let i = 0; i < RECORDS; i++) {
    const o = order(i);
    lines.push(`${o.id},${o.customer},${o.amount},${o.status}`);
  }
  return `${lines.join('\n')}\n`;
};

/** The engine in this process, driven through its API: on this thread, or on a worker thread (src/engine/host). */
async function viaEngine(cleanups: Array<() => Promise<void> | void>, rules: string[], threaded: boolean) {
  const onMaintenance = (view: string, rule: string) => rules.push(`${view}: ${rule}`);
  const engine: HostedEngine = threaded
    ? await startThreadEngine({ onMaintenance }).load(PROGRAM)
    : await openEngine(PROGRAM, { onMaintenance });
  cleanups.push(() => engine.close());
  if (WATCH) for (const r of engine.relations()) if (r.kind === 'view') engine.watch(r.name);
  await engine.ingest('customers', customerChanges());
  await engine.step();
  const run = await throughput(engine);
  const lat = LATENCY_S > 0 ? await latency(engine, RECORDS) : undefined;
  return { run, lat };
}

/** The pipeline's HTTP app in this process (controller, scheduler, routes) on loopback. */
async function viaHttp(cleanups: Array<() => Promise<void> | void>, rules: string[]) {
  const app = await startPipelineApp(PROGRAM);
  cleanups.push(() => app.close());
  rules.push(
    ...(app.ctl.dataEngine?.relations() ?? []).filter((r) => r.maintenance).map((r) => `${r.name}: ${r.maintenance}`),
  );
  if (WATCH) {
    const streams = new AbortController();
    cleanups.push(() => streams.abort());
    const views = (app.ctl.dataEngine?.relations() ?? []).filter((r) => r.kind === 'view').map((r) => r.name);
    await readEgress(app, views, streams.signal);
  }
  await pushBatch(app, 'customers', JSON.stringify(customerChanges().map((c) => ({ insert: c.row }))));
  const t = await httpThroughput(app, RECORDS, BATCH, batchJson);
  const run = { ...t, recordsPerS: RECORDS / t.seconds, rssMiB: mib(process.memoryUsage().rss) };
  const samples = LATENCY_S > 0 ? await httpLatency(app, LATENCY_S, RECORDS, batchJson) : [];
  const lat =
    samples.length > 0
      ? { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99), samples: samples.length }
      : undefined;
  return { run, lat };
}

const customerChanges = (): Change[] =>
  Array.from({ length: CUSTOMERS }, (_, k) => ({ weight: 1, row: { id: k + 1, region: `r${k % 7}` } }));

await runBench(async (cleanups) => {
  const facts = machineFacts('(measured below)');
  const rules: string[] = [];
  const { run, lat } =
    VIA === 'http' ? await viaHttp(cleanups, rules) : await viaEngine(cleanups, rules, VIA === 'thread');
  say(`views: ${rules.join(', ')}`);
  // The same rows for each of the three, made once.
  const csv = csvRows();
  const copy = await copyCeiling(csv);
  const pgliteCopy = await pgliteCopyCeiling(csv);
  const floor = await pgliteFloor(csv);
  facts.postgres = copy.version;
  const step1 = run.stepMs[0] ?? NaN;
  const step100 = run.stepMs[99] ?? run.stepMs.at(-1) ?? NaN;
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const report = `# bench:engine — ${facts.date}

${RECORDS.toLocaleString('en-US')} records in JSON batches of ${BATCH.toLocaleString('en-US')}, ${VIA === 'http' ? "each POSTed to the pipeline's ingress route and waited for (completion_status); steps run by the pipeline's scheduler" : `one step per batch, through the DataEngine API in process (the engine ${VIA === 'thread' ? 'on a worker thread' : 'on the calling thread'})`}.
Command: \`npm run bench:engine -- ${process.argv.slice(2).join(' ')}\`
Views: ${rules.join('; ')}. Changes read out: ${WATCH ? (VIA === 'http' ? 'every view, by an egress stream each' : 'every view (watched)') : 'none (views kept, nothing watches them)'}.

| measure | value | goal |
|---|---|---|
| sustained records/s (${VIA === 'http' ? 'POST + complete' : 'ingest + step'}) | ${fmt(run.recordsPerS)} | ≥ 50,000 |
| COPY into plain PostgreSQL, records/s | ${fmt(copy.recordsPerS)} | |
| engine / COPY | ${((100 * run.recordsPerS) / copy.recordsPerS).toFixed(1)} % | ≥ 25 % |
| COPY into a plain table of PGlite (the evaluator), records/s | ${fmt(pgliteCopy)} | |
| engine / PGlite COPY | ${((100 * run.recordsPerS) / pgliteCopy).toFixed(1)} % | |
| PGlite, batches staged and stored with no view (the floor of any engine it evaluates), records/s | ${fmt(floor)} | |
| that floor / COPY into plain PostgreSQL | ${((100 * floor) / copy.recordsPerS).toFixed(1)} % | |
| step 1 ms | ${step1.toFixed(1)} | |
| step ${run.stepMs.length >= 100 ? 100 : run.stepMs.length} ms | ${step100.toFixed(1)} | |
| median of steps 1–10 / of the last 10 steps, ms | ${median(run.stepMs.slice(0, 10)).toFixed(1)} / ${median(run.stepMs.slice(-10)).toFixed(1)} | last ≤ 1.5 × first |
| step p50 / max ms | ${percentile(run.stepMs, 0.5).toFixed(1)} / ${Math.max(...run.stepMs).toFixed(1)} | |
| ingress→output p50 / p99 ms at 1,000 records/s | ${lat ? `${lat.p50.toFixed(1)} / ${lat.p99.toFixed(1)} (${lat.samples} batches)` : 'skipped'} | p99 < 100 |
| RSS after ingest | ${run.rssMiB} MiB | |

${machineTable(facts, uptime())}`;
  process.stdout.write(`${report}\n`);
  if (values.record) say(`recorded ${writeResult(VIA === 'engine' ? 'engine' : `engine-${VIA}`, facts.date, report)}`);
  return true;
});
