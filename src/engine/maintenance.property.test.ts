import type { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInMemory } from '../pglite/initdb-dump.js';
import { engineDump } from '../pglite/shipped-dump.js';
import {
  buildProgram,
  type Op,
  type Program,
  steps,
  TABLES_SQL,
  viewSpec,
  type ViewSpec,
} from '../../test/support/engine-programs.js';
import type { ProgramEngine } from './engine.js';
import { parseExact } from '../model/exact-json.js';
import { openEngine } from './open.js';
import type { Row } from './types.js';
import { add, type Bag, bagOf, feed, key, sortedBag, TwoTables, watchAll } from '../../test/support/zset-model.js';

// The engine's most important test: random programs of the supported shapes, random inserts and
// deletes; after every step every view equals its query evaluated from scratch in another
// database (PGlite, loaded with what the tables should hold), and the changes the engine emitted,
// summed since the start, equal the view. Once with incremental maintenance, once recompute only.

/** The tables as the engine should hold them. */
class Model extends TwoTables<Op> {
  constructor() {
    super((o): Row => (o.table === 't2' ? { k: o.k, w: o.x } : { k: o.k, v: o.x }));
  }
}

/** The view evaluated from scratch: the tables loaded first, the view statements run after. */
async function fromScratch(oracle: PGlite, program: Program, model: Model): Promise<Map<string, Bag>> {
  await oracle.exec(`DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public; ${TABLES_SQL}`);
  const rows = model.rows();
  for (const t of ['t1', 't2'] as const)
    await oracle.query(`INSERT INTO ${t} SELECT * FROM json_populate_recordset(NULL::${t}, $1::json)`, [
      JSON.stringify(rows[t]),
    ]);
  const out = new Map<string, Bag>();
  for (const v of program.views) {
    await oracle.exec(`CREATE ${v.materialized ? 'MATERIALIZED ' : ''}VIEW ${v.name} AS ${v.sql}`);
    const [r] = (await oracle.query<{ j: string }>(`SELECT coalesce(json_agg(x), '[]')::text AS j FROM ${v.name} x`))
      .rows;
    out.set(v.name, bagOf(parseExact(r!.j) as Row[]));
  }
  return out;
}

async function check(
  oracle: PGlite,
  specs: Parameters<typeof buildProgram>[0],
  script: Op[][],
  incremental: boolean,
  rules: Map<string, number>,
) {
  const program = buildProgram(specs);
  // The PGlite path's rules (the native path has its own property test, native.property.test.ts).
  const engine: ProgramEngine = await openEngine(program.sql, {
    incremental,
    native: false,
    onMaintenance: (_view, rule) => rules.set(rule, (rules.get(rule) ?? 0) + 1),
  });
  try {
    const model = new Model();
    const emitted = await watchAll(engine, program.views);
    for (const ops of script) {
      await feed(engine, model, ops);
      const step = await engine.step();
      for (const [view, delta] of step.outputs) for (const c of delta) add(emitted.get(view)!, key(c.row), c.weight);
      const truth = await fromScratch(oracle, program, model);
      for (const v of program.views) {
        const context = `${v.name} = ${v.sql}\nprogram:\n${program.sql}`;
        expect(sortedBag(bagOf(await engine.snapshot(v.name))), context).toEqual(sortedBag(truth.get(v.name)!));
        expect(sortedBag(emitted.get(v.name)!), `emitted changes of ${context}`).toEqual(sortedBag(truth.get(v.name)!));
      }
    }
  } finally {
    await engine.close();
  }
}

// One program of every shape (and so every rule) besides the random ones, so that each path runs
// whatever the seed: filter, left join, GROUP BY (aggregate rule), DISTINCT (group rule), a global
// aggregate (recompute), a join of views, UNION ALL.
const shape = (s: ViewSpec['shape'], a: number, b = 0, materialized = false): ViewSpec => ({
  shape: s,
  a,
  b,
  c: 0,
  d: 1,
  e: 1,
  materialized,
});
const EVERY_SHAPE: [ViewSpec[], Op[][]] = [
  [
    shape('filter', 0),
    shape('left', 0, 1),
    shape('group', 0, 0, true),
    shape('distinct', 1),
    shape('global', 0),
    shape('join', 2, 4),
    shape('union', 0, 1),
  ],
  [
    [
      { table: 't1', insert: true, k: 1, x: 2, which: 0, weight: 2 },
      { table: 't1', insert: true, k: 2, x: null, which: 0, weight: 1 },
      { table: 't2', insert: true, k: 1, x: 5, which: 0, weight: 1 },
    ],
    [
      { table: 't1', insert: false, k: 0, x: 0, which: 0, weight: 1 },
      { table: 't2', insert: true, k: 1, x: 6, which: 0, weight: 1 },
      { table: 't2', insert: false, k: 2, x: null, which: 0, weight: 1 },
    ],
  ],
];

// Generous: `npm test` runs this beside other files and the clusters on as few as 2 cores.
describe('view maintenance equals recomputation', { timeout: 600_000 }, () => {
  let oracle: PGlite;
  beforeAll(async () => {
    oracle = await createInMemory(engineDump(), { slim: true });
  }, 180_000); // an initdb when no dump is written yet: minutes on a loaded 2-core machine
  afterAll(() => oracle?.close());

  it.each([
    ['incremental', true],
    ['recompute', false],
  ])('%s', async (_name, incremental) => {
    const rules = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.array(viewSpec, { minLength: 1, maxLength: 4 }), steps, (specs, script) =>
        check(oracle, specs, script, incremental, rules),
      ),
      { numRuns: 15, examples: [EVERY_SHAPE] },
    );
    // Every path was taken (views kept by each rule, and by the fallback).
    expect([...rules.keys()].sort()).toEqual(
      incremental ? ['aggregate', 'group', 'linear', 'outer-join', 'recompute'] : ['recompute'],
    );
  });
});
