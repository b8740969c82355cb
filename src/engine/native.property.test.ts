import type { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInMemory } from '../pglite/initdb-dump.js';
import { engineDump } from '../pglite/shipped-dump.js';
import {
  buildNativeProgram,
  NATIVE_TABLES_SQL,
  nativeSteps,
  nativeViewSpec,
  type NativeOp,
  type Program,
  rowOf,
  type ViewSpec,
} from '../../test/support/native-programs.js';
import type { ProgramEngine } from './engine.js';
import { parseExact, parseSpelled } from '../model/exact-json.js';
import { openEngine } from './open.js';
import type { Row } from './types.js';
import type { StatePage } from './state.js';
import type { JsonValue } from '../model/json.js';
import { add, type Bag, bagOf, feed, key, sortedBag, TwoTables, watchAll } from '../../test/support/zset-model.js';
import * as fixture from './host/codec.fixture.js';

// The native path's truth: random programs of the native grammar over typed edge values (NULL,
// NaN, ±0, ±Infinity, integer limits, 30-digit numerics, equal numerics of different scales,
// non-ASCII text), mixed with shapes left to PGlite; random inserts, deletes and upserts. After
// every step every view equals PostgreSQL's evaluation from scratch in another database, and the
// changes the engine emitted, summed since the start, equal it too. A step the engine fails (an
// overflow, a division by zero) must fail from scratch with the same message, and the other way.
// Once in each run the engine restarts from a checkpoint of its state, and the checks go on.

/** The tables as the engine should hold them. */
class Model extends TwoTables<NativeOp> {
  constructor() {
    super((o) => rowOf(o) as Row);
  }
}

/** The wire formats the shard threads decode bodies with (a line of JSON per record). */
const CODEC_URL = new URL('./host/codec.fixture.ts', import.meta.url).href;

/** t1's bigint, numeric and float8 as JSON numbers where the number prints back as the same text (decided in JS). */
const asNumber = (key: string, value: unknown): unknown =>
  ['b', 'n', 'f'].includes(key) && typeof value === 'string' && String(Number(value)) === value ? Number(value) : value;

/**
 * One step's operations, t1's as bodies (one per weight) where there are shard threads: the shards
 * decode their parts and keep the inserts of a multiset (workers/kept.ts) until a delete takes them back.
 */
async function feedStep(engine: ProgramEngine, model: Model, ops: NativeOp[], workers: number): Promise<void> {
  if (workers === 1) return feed(engine, model, ops);
  const changes = model.changes(ops);
  for (const weight of new Set(changes.t1.map((c) => c.weight))) {
    const body = changes.t1.filter((c) => c.weight === weight).map((c) => JSON.stringify(c.row, asNumber));
    const { result, decoded } = await engine.ingestDecoding('t1', body.join('\n'), { weight }, fixture);
    expect([...decoded.errors, ...result.errors]).toEqual([]);
  }
  expect((await engine.ingest('t2', changes.t2)).errors).toEqual([]);
  model.apply(changes);
}

/** Every view evaluated from scratch, or the errors of the views that fail, in the program's order. */
async function fromScratch(oracle: PGlite, program: Program, model: Model): Promise<Map<string, Bag> | Error[]> {
  await oracle.exec(`DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public; ${NATIVE_TABLES_SQL}`);
  const rows = model.rows();
  for (const t of ['t1', 't2'] as const)
    await oracle.query(`INSERT INTO ${t} SELECT * FROM json_populate_recordset(NULL::${t}, $1::json)`, [
      JSON.stringify(rows[t]),
    ]);
  const out = new Map<string, Bag>();
  const errors: Error[] = [];
  for (const v of program.views) {
    await oracle.exec(`CREATE VIEW ${v.name} AS ${v.sql}`);
    try {
      const [r] = (await oracle.query<{ j: string }>(`SELECT coalesce(json_agg(x), '[]')::text AS j FROM ${v.name} x`))
        .rows;
      out.set(v.name, bagOf(parseExact(r!.j) as Row[]));
    } catch (error) {
      errors.push(error as Error);
    }
  }
  return errors.length > 0 ? errors : out;
}

interface Depth {
  runs: number;
  steps: number;
}

/**
 * The engine's state through a checkpoint: dumped page by page, then restored into a new engine of
 * the same program (a restart), which goes on watching every view.
 */
async function restarted(engine: ProgramEngine, program: Program, workers: number): Promise<ProgramEngine> {
  const pages: StatePage[] = [];
  await engine.dump(async (page) => void pages.push({ ...page, rows: parseSpelled(page.json) as JsonValue[] }));
  await engine.close();
  const next = await openEngine(program.sql, { workers, codec: CODEC_URL });
  async function* each(): AsyncGenerator<StatePage> {
    yield* pages;
  }
  const restored = await next.restore({ views: program.views.map((v) => v.name), pages: each() }, true);
  // The native circuits take their state back (circuit-checkpoint.ts) rather than being evaluated again.
  if (restored.circuits && !restored.circuits.resumed)
    throw new Error(`the circuits were evaluated again: ${restored.circuits.reason}`);
  for (const v of program.views) next.watch(v.name);
  return next;
}

async function check(
  oracle: PGlite,
  [specs, script, restartAt]: [ViewSpec[], NativeOp[][], number],
  kept: Map<string, number>,
  depth: Depth,
  workers: number,
) {
  depth.runs += 1;
  const program = buildNativeProgram(specs);
  // The default engine: native where the planner covers a view, PGlite for the rest.
  const opened = await openEngine(program.sql, {
    workers,
    codec: CODEC_URL,
    onMaintenance: (_view, rule) => kept.set(rule, (kept.get(rule) ?? 0) + 1),
  }).catch((error: Error) => error);
  // Every view is evaluated over the empty tables at load (step 0): a load fails exactly when a view
  // fails from scratch over them, with one of their errors (PGlite's views are evaluated first).
  if (opened instanceof Error) {
    const truth = await fromScratch(oracle, program, new Model());
    const messages = Array.isArray(truth) ? truth.map((e) => e.message) : ['the views evaluate over empty tables'];
    expect(messages, `load failed: ${opened.message}\nprogram:\n${program.sql}`).toContain(opened.message);
    return;
  }
  let engine: ProgramEngine = opened;
  // Tables too: native (their rows in JS) when only native views read them, else in PGlite.
  for (const t of engine.relations().filter((r) => r.kind === 'table')) {
    const what = `table ${t.maintenance}`;
    kept.set(what, (kept.get(what) ?? 0) + 1);
  }
  try {
    const model = new Model();
    const emitted = await watchAll(engine, program.views);
    for (const [i, ops] of script.entries()) {
      await feedStep(engine, model, ops, workers);
      const step = await engine.step().catch((error: Error) => error);
      const truth = await fromScratch(oracle, program, model);
      const context = `program:\n${program.sql}`;
      if (step instanceof Error || Array.isArray(truth)) {
        expect(step instanceof Error ? step.message : 'the step went through', context).toBe(
          Array.isArray(truth) ? truth[0]!.message : 'the step went through',
        );
        return;
      }
      depth.steps += 1;
      for (const [view, delta] of step.outputs) for (const c of delta) add(emitted.get(view)!, key(c.row), c.weight);
      // A restart once in the run (from a checkpoint of this step), then the same checks.
      const restart = i === restartAt % script.length;
      if (restart) engine = await restarted(engine, program, workers);
      for (const v of program.views) {
        const what = `${v.name} = ${v.sql}${restart ? ' (restarted)' : ''}\n${context}`;
        expect(sortedBag(bagOf(await engine.snapshot(v.name))), what).toEqual(sortedBag(truth.get(v.name)!));
        expect(sortedBag(emitted.get(v.name)!), `emitted changes of ${what}`).toEqual(sortedBag(truth.get(v.name)!));
      }
    }
  } finally {
    await engine.close();
  }
}

// One program of every shape besides the random ones, so that each operator runs whatever the
// seed, with steps of inserts, deletes and upserts of ordinary values (v not a multiple of 4).
const view = (shape: ViewSpec['shape'], a: number, b = 0, c = 0, materialized = false): ViewSpec => ({
  shape,
  a,
  b,
  c,
  d: 0,
  materialized,
});
const change = (table: 't1' | 't2', insert: boolean, k: number, v: number, which = 0): NativeOp => ({
  table,
  insert,
  k,
  v,
  which,
  weight: 1,
  nulls: v % 8 === 5 ? 1 : 0,
});
const EVERY_SHAPE: [ViewSpec[], NativeOp[][], number] = [
  [
    view('left', 0, 1),
    view('join', 1, 0, 1, true),
    view('group', 0, 3, 0, true),
    view('having', 1, 2, 4),
    view('global', 0, 3),
    view('distinct', 0, 5, 1),
    view('union', 0, 1, 0),
    view('union', 1, 0, 1),
    view('filter', 2, 0, 3),
    view('exprs', 1, 0, 2),
    view('like', 0),
    view('floatsum', 1),
    view('group', 2, 1),
    view('funcs', 0, 0, 2),
    view('funcs', 1, 0, 3),
    view('funcs', 1, 0, 2, true),
  ],
  [
    [change('t1', true, 1, 1), change('t1', true, 2, 5), change('t1', true, 1, 2), change('t2', true, 1, 3)],
    [change('t2', true, 2, 6), change('t1', false, 0, 0, 1), change('t1', true, 3, 7), change('t2', true, 1, 9)],
    [change('t2', false, 1, 0), change('t1', false, 0, 0, 0), change('t1', true, 2, 10), change('t1', true, 2, 10)],
    [change('t1', false, 0, 0, 2), change('t2', true, 3, 11), change('t1', false, 0, 0, 1), change('t2', false, 2, 0)],
  ],
  1,
];

// Found by CI (seed 91874965): avg over a view of one zero row is 0.00000000000000000000; written
// back into PGlite as a JSON number it lost its scale, so the step could not delete the old row.
const SCALE_KEPT: [ViewSpec[], NativeOp[][], number] = [
  [view('floatsum', 0), view('global', 11, 0, 0, true)],
  [[{ ...change('t1', true, 0, 0), nulls: 0 }], []],
  0,
];

// Found by the restart (seed 1): t1's numeric 2.50 came back from the checkpoint as 2.5, so the
// next step's delete of the row 2.50 deleted nothing and count(*) kept it.
const SCALE_RESTORED: [ViewSpec[], NativeOp[][], number] = [
  [view('floatsum', 4, 17, 10)],
  // Two ordinary steps after it, so that the examples do not lower the runs' depth checked below.
  [
    [change('t1', true, 2, 234)],
    [change('t1', false, 0, 0, 0)],
    [change('t1', true, 3, 7)],
    [change('t2', true, 1, 3)],
  ],
  0,
];

// Found by the restart when views came to be rebuilt from native tables directly: a global
// aggregate over a global aggregate view; its value over empty inputs is a row over no rows, not a
// row over the inner aggregate's row of empty input.
const EMPTY_OVER_GLOBAL: [ViewSpec[], NativeOp[][], number] = [
  [view('floatsum', 0), view('global', 11, 0, 0, true)],
  [[], [change('t1', true, 1, 1)]],
  0,
];

// Found by the property test at four times its runs (seed -1570329198, workers 3): SUM of float8
// (kept by PGlite) over t2 after two upserts of one key came out 0 where PostgreSQL from scratch
// gives -0.
const NEGATIVE_ZERO_SUM: [ViewSpec[], NativeOp[][], number] = [
  [view('floatsum', 3), view('filter', 0)],
  [[{ ...change('t2', true, 3, 637), nulls: 0 }], [{ ...change('t2', true, 3, 278), nulls: 0 }], []],
  0,
];

// Found by the property test at four times its runs (seed -1414767556, workers 3; workers 1 too):
// n / n over count(*) of an empty table is 0 / 0. The load threw from the native rebuild, outside
// the run's checks. Every view is now evaluated at load (a stateless PGlite one too, which would
// fail only at the retraction of that row), and a failed load is checked against PostgreSQL.
const DIVIDE_OVER_EMPTY: [ViewSpec[], NativeOp[][], number] = [
  [view('floatsum', 0), view('filter', 0), view('filter', 0), view('arith', 7)],
  [[], [change('t1', true, 1, 1)]],
  0,
];

// Bounds, so that a fault fails with its seed and counterexample instead of freezing CI: every run
// starts engines (seconds each), and a failure shrunk without a bound once ran for 18+ minutes
// (hundreds of counterexamples, each with a restart). One run (normally 1-5 s) fails after
// RUN_MS, as one waiting for a step that never completes would; the property stops generating and
// shrinking after PROPERTY_MS, and fails if it had not finished: its seed and the smallest
// counterexample so far are printed. Both leave room for a loaded 2-core machine (`npm test` runs
// this beside other files and the clusters; alone, each property takes about 150 s there).
const RUN_MS = 120_000;
const PROPERTY_MS = 600_000;

describe('native view maintenance equals PostgreSQL from scratch', { timeout: PROPERTY_MS + 2 * RUN_MS }, () => {
  let oracle: PGlite;
  beforeAll(async () => {
    oracle = await createInMemory(engineDump(), { slim: true });
  }, 180_000); // an initdb when no dump is written yet: minutes on a loaded 2-core machine
  afterAll(() => oracle?.close());

  // workers 3: the circuits on three shard threads, rows exchanged by key (src/engine/workers).
  it.each([1, 3])('random programs, random changes, workers %i', async (workers) => {
    const kept = new Map<string, number>();
    const depth: Depth = { runs: 0, steps: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(nativeViewSpec, { minLength: 1, maxLength: 4 }), nativeSteps, fc.nat(), (...run) =>
        check(oracle, run, kept, depth, workers),
      ),
      {
        numRuns: 15,
        examples: [NEGATIVE_ZERO_SUM, EVERY_SHAPE, SCALE_KEPT, SCALE_RESTORED, EMPTY_OVER_GLOBAL, DIVIDE_OVER_EMPTY],
        timeout: RUN_MS,
        interruptAfterTimeLimit: PROPERTY_MS,
        markInterruptAsFailure: true,
      },
    );
    // Both paths were taken: native views, and views left to PGlite beside them.
    expect(kept.get('native') ?? 0).toBeGreaterThan(0);
    expect([...kept.keys()].filter((k) => k !== 'native' && !k.startsWith('table')).length).toBeGreaterThan(0);
    // Tables of both kinds: held natively, and left in PGlite because a view PGlite keeps reads them.
    expect(kept.get('table native') ?? 0).toBeGreaterThan(0);
    expect(kept.get('table pglite') ?? 0).toBeGreaterThan(0);
    // Runs go past their first step on average (an overflow or a division by zero ends one early).
    // A guard on the generator, not a figure: twice the runs failed a seed at 29 steps against 30.
    expect(depth.steps).toBeGreaterThan(depth.runs);
  });
});
