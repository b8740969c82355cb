import { fileURLToPath } from 'node:url';
import { compiledScript } from './compiled.js';
import { benchFlags, integerFlag, machineTable, runBench, say, uptime, writeResult } from './common.js';
import { copyCeiling, pgliteCopyCeiling, pgliteFloor } from './engine-ceilings.js';
import { dbspBinary, runDbsp } from './engine-dbsp.js';
import { BASELINE_ID, jsonOfChild, type Lane, laneById, LaneResult, LANES, ORACLE_ID } from './engine-lanes.js';
import { engineReport, type LaneRow } from './engine-report.js';
import { csvRows, type ViewContents } from './engine-workload.js';
import { machineFacts } from './report.js';
import { STEP_SEMI_SPACE_MB } from '../src/engine/host/heap.js';
import { ALLOCATOR_ENV } from '../src/heap/allocator.js';

// `npm run bench:engine -- [--records 1000000] [--batch 10000] [--record]`
// One program with a filter view, a join view and a GROUP BY view (engine-workload.ts), on every
// engine side by side, each in a process of its own: our native path (workers 1 and 2), today's
// PGlite path, and the established engine (the `dbsp` crate, bench/dbsp-baseline) with 1 and 2
// workers. Before the measured runs, a small run of each is checked against PGlite's views. Then the
// ceilings of the same rows (COPY). One table; see bench/README.md.

const USAGE = `usage: npm run bench:engine -- [options]
  --records N   records ingested (default 1000000)
  --batch N     records per JSON batch, one step each (default 10000)
  --latency S   seconds of the 1,000 records/s latency phase (default 10; 0 skips it)
  --lanes L     comma-separated rows to run (default all: ${LANES.map((l) => l.id).join(',')})
  --check N     records of the check that every engine's views equal PGlite's (default 3000, batches of 500)
  --via V       for ours: engine (the DataEngine API, the engine on the calling thread), thread (the same API,
                the engine on a worker thread as the pipeline runs it) or http (the pipeline's ingress route)
  --watch W     all (default: every view's changes read out; over http an egress stream a view) or none
  --record      also write bench/results/<date>-engine.md (-engine-thread.md, -engine-http.md with --via)`;

const values = benchFlags(USAGE, {
  records: { type: 'string', default: '1000000' },
  batch: { type: 'string', default: '10000' },
  latency: { type: 'string', default: '10' },
  lanes: { type: 'string', default: LANES.map((l) => l.id).join(',') },
  check: { type: 'string', default: '3000' },
  via: { type: 'string', default: 'engine' },
  watch: { type: 'string', default: 'all' },
  record: { type: 'boolean', default: false },
});
const RECORDS = integerFlag('records', values.records, 1, 100_000_000);
const BATCH = integerFlag('batch', values.batch, 1, 1_000_000);
const LATENCY_S = integerFlag('latency', values.latency, 0, 3600);
const CHECK = integerFlag('check', values.check, 1, 1_000_000);
if (values.via !== 'engine' && values.via !== 'thread' && values.via !== 'http')
  throw new Error(`--via: engine, thread or http, not ${values.via}`);
const VIA = values.via;
if (values.watch !== 'all' && values.watch !== 'none') throw new Error(`--watch: all or none, not ${values.watch}`);
const lanes = values.lanes.split(',').map((id) => laneById(id.trim()));

const LANE_SCRIPT = fileURLToPath(new URL('./engine-lane.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Run {
  records: number;
  batch: number;
  latencyS: number;
  via: 'engine' | 'thread' | 'http';
  dump: boolean;
}

/** One lane, in a process of its own; undefined when its engine does not exist yet. */
async function runLane(lane: Lane, run: Run, dbsp: string | undefined): Promise<LaneResult | undefined> {
  if (lane.kind === 'dbsp') return runDbsp(dbsp!, { ...run, workers: lane.workers });
  if ('unavailable' in lane.open) return undefined;
  const args = ['--lane', lane.id, '--records', `${run.records}`, '--batch', `${run.batch}`];
  args.push('--latency', `${run.latencyS}`, '--via', run.via, '--watch', values.watch, ...(run.dump ? ['--dump'] : []));
  // With --via engine the engine runs on the lane's main thread: it gets the young generation a
  // pipeline's engine thread gets (src/engine/host/heap.ts), as a V8 flag since it is no worker.
  const heap = run.via === 'engine' ? [`--max-semi-space-size=${STEP_SEMI_SPACE_MB}`] : [];
  // And the allocator a pipeline process gets from whoever starts it (src/heap/allocator.ts).
  return LaneResult.parse(
    await jsonOfChild(process.execPath, [...heap, await compiledScript(LANE_SCRIPT), ...args], {
      cwd: ROOT,
      env: ALLOCATOR_ENV,
    }),
  );
}

/** The first rows where two engines' views differ, or undefined when they are equal. */
function difference(expected: ViewContents, actual: ViewContents): string | undefined {
  for (const [view, rows] of Object.entries(expected)) {
    const got = actual[view] ?? [];
    const want = new Set(rows.map((r) => JSON.stringify(r)));
    const have = new Set(got.map((r) => JSON.stringify(r)));
    const missing = [...want].filter((r) => !have.has(r)).slice(0, 3);
    const extra = [...have].filter((r) => !want.has(r)).slice(0, 3);
    if (rows.length !== got.length || missing.length > 0 || extra.length > 0)
      return `${view}: ${got.length} rows, PGlite has ${rows.length}; missing ${missing.join(' ')}; extra ${extra.join(' ')}`;
  }
  return undefined;
}

/** Every engine's views after a small run equal PGlite's (PostgreSQL's own evaluation); throws if not. */
async function check(dbsp: string | undefined): Promise<string> {
  const run: Run = { records: CHECK, batch: 500, latencyS: 0, via: 'engine', dump: true };
  const oracle = (await runLane(laneById(ORACLE_ID), run, dbsp))?.views;
  if (!oracle) throw new Error('the check needs the PGlite lane');
  const checked: string[] = [];
  for (const lane of lanes.filter((l) => l.id !== ORACLE_ID)) {
    const views = (await runLane(lane, run, dbsp))?.views;
    if (views === undefined) continue;
    const diff = views ? difference(oracle, views) : 'no views dumped';
    if (diff) throw new Error(`check failed: ${lane.label} disagrees with PGlite after ${CHECK} orders: ${diff}`);
    checked.push(lane.label);
  }
  const sizes = Object.entries(oracle).map(([v, rows]) => `${v} ${rows.length}`);
  const who =
    checked.length > 0 ? `${checked.join('; ')}: views equal to PGlite's` : 'no other engine to compare with PGlite';
  return `${CHECK.toLocaleString('en-US')} orders in batches of 500: ${who} (${sizes.join(', ')} rows)`;
}

/**
 * What the machine's cores give this workload when nothing is shared: two `native-1` lanes at once,
 * each in a process of its own, their records over the longer one's throughput phase. The ceiling
 * of `native-2` (whose two threads share a step, its exchanges and one process), measured when both
 * native lanes run; undefined otherwise.
 */
async function pairCeiling(rows: LaneRow[]): Promise<number | undefined> {
  const ran = (id: string) => rows.some((r) => r.lane.id === id && r.result !== undefined);
  if (!ran('native-1') || !ran('native-2')) return undefined;
  say('ceiling: two native-1 lanes at once, a process each');
  const run: Run = { records: RECORDS, batch: BATCH, latencyS: 0, via: VIA, dump: false };
  const lane = laneById('native-1');
  const both = await Promise.all([runLane(lane, run, undefined), runLane(lane, run, undefined)]);
  const seconds = Math.max(...both.map((r) => r?.seconds ?? Infinity));
  return (2 * RECORDS) / seconds;
}

await runBench(async () => {
  const facts = machineFacts('(measured below)');
  const dbsp = lanes.some((l) => l.kind === 'dbsp') ? await dbspBinary() : undefined;
  say('check: every engine on a small run, its views against PGlite');
  const checked = await check(dbsp);
  say(checked);
  const rows: LaneRow[] = [];
  for (const lane of lanes) {
    say(`${lane.label}: ${RECORDS} records in batches of ${BATCH}`);
    const run: Run = { records: RECORDS, batch: BATCH, latencyS: LATENCY_S, via: VIA, dump: false };
    const result = await runLane(lane, run, dbsp);
    rows.push({ lane, result, why: lane.kind === 'ours' && 'unavailable' in lane.open ? lane.open.unavailable : '' });
  }
  const pair = await pairCeiling(rows);
  // The same rows for each of the three ceilings, made once.
  say('ceilings: COPY of the same rows');
  const csv = csvRows(RECORDS);
  const copy = await copyCeiling(csv, RECORDS);
  const pgliteCopy = await pgliteCopyCeiling(csv, RECORDS);
  const floor = await pgliteFloor(csv, RECORDS, BATCH);
  facts.postgres = copy.version;
  const report = engineReport({
    date: facts.date,
    command: `npm run bench:engine -- ${process.argv.slice(2).join(' ')}`,
    records: RECORDS,
    batch: BATCH,
    via: VIA,
    watch: values.watch === 'all',
    checked,
    rows,
    baselineId: BASELINE_ID,
    ceilings: { copy: copy.recordsPerS, pgliteCopy, floor, ...(pair !== undefined && { pair }) },
    machine: machineTable(facts, uptime()),
  });
  process.stdout.write(`${report}\n`);
  if (values.record) say(`recorded ${writeResult(VIA === 'engine' ? 'engine' : `engine-${VIA}`, facts.date, report)}`);
  return true;
});
