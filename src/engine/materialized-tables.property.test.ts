import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawNumber } from '../model/exact-json.js';
import type { ProgramEngine } from './engine.js';
import { startThreadEngine, type ThreadEngine } from './host/thread-engine.js';
import { openEngine } from './open.js';
import type { Change, Row } from './types.js';

// A materialized table is held by the native path like any other native table (docs/engine.md,
// "Native tables"): its snapshot, the query replica's copy of it (seeded from that snapshot, then
// fed the table's changes of every step) and a view over it must be what the PGlite path holds for
// the same input. Random batches of edge values of every native column type, inserts, deletes of
// copies that exist and of rows that do not, primary-key upserts, through the engine on its thread
// (as a pipeline hosts it) with 1 and 3 workers, compared with the PGlite path after every step.

const PER_O = 'SELECT o, count(*) AS c, sum(n) AS total, max(x) AS top FROM t GROUP BY o';
const E_K = 'SELECT k, count(*) AS c, max(b) AS top FROM e GROUP BY k';
/** The views, each with its query: the truth is PostgreSQL's evaluation of it from scratch. */
const VIEWS: Record<string, string> = { per_o: PER_O, e_k: E_K };
const PROGRAM = `
CREATE TABLE t (i int, s smallint, b bigint, n numeric, p numeric(6,2), f double precision, x text, o boolean)
  WITH ('materialized' = 'true');
CREATE TABLE u (k int NOT NULL PRIMARY KEY, n numeric, x text) WITH ('materialized' = 'true');
CREATE TABLE e (k int NOT NULL, b bigint, x text) WITH ('materialized' = 'true');
CREATE MATERIALIZED VIEW e_k AS ${E_K};
CREATE MATERIALIZED VIEW per_o AS ${PER_O};`;

const nullable = <T>(a: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 5, arbitrary: a }, { weight: 1, arbitrary: fc.constant(null) });
/** Values of each column's type, and spellings only PostgreSQL's conversion reads ("7" for an int). */
const COLUMNS: Record<string, fc.Arbitrary<unknown>> = {
  i: nullable(fc.oneof(fc.integer(), fc.constantFrom(2147483647, -2147483648, '7', ' 12 '))),
  s: nullable(fc.integer({ min: -32768, max: 32767 })),
  b: nullable(
    fc.oneof(
      fc.maxSafeInteger(),
      fc.constantFrom('9223372036854775807', '-9223372036854775808').map((t) => rawNumber(t)),
    ),
  ),
  n: nullable(
    fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      fc.constantFrom('NaN', 'Infinity', '1.50', -0, 0.1, 1e21),
      fc.constantFrom('123456789012345678901234.5', '1.000000000000000000001').map((t) => rawNumber(t)),
    ),
  ),
  p: nullable(fc.oneof(fc.integer({ min: -9999, max: 9999 }), fc.constantFrom(0.005, -0.005, 2.675, 9999.99, '1.1'))),
  f: nullable(
    fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(-0, 5e-324, 'NaN', '-Infinity')),
  ),
  x: nullable(fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('', ' ', 'a"b', '\\', '\u{1F600}', 'é'))),
  o: nullable(fc.oneof(fc.boolean(), fc.constantFrom('t', 'false'))),
};
const tRow = fc.record(COLUMNS) as fc.Arbitrary<Row>;
const uRow = fc.record({ k: fc.integer({ min: 0, max: 6 }), n: COLUMNS['n']!, x: COLUMNS['x']! }) as fc.Arbitrary<Row>;

/** One step's input: rows of t (some inserted twice), earlier rows of t deleted again, upserts and deletes of u. */
const stepInput = fc.record({
  inserts: fc.array(fc.tuple(tRow, fc.constantFrom(1, 1, 2)), { maxLength: 8 }),
  deletes: fc.array(fc.tuple(fc.nat(), fc.constantFrom(-1, -2)), { maxLength: 4 }),
  absent: fc.array(tRow, { maxLength: 1 }),
  upserts: fc.array(fc.tuple(uRow, fc.constantFrom(1, 1, -1)), { maxLength: 5 }),
  events: fc.array(
    fc.record({ k: fc.integer({ min: 0, max: 20 }), b: nullable(fc.maxSafeInteger()), x: COLUMNS['x']! }),
    {
      maxLength: 12,
    },
  ),
  eventWeight: fc.constantFrom(1, 2),
});

/** The fixture codec (one JSON row per line, read by JSON.parse): with shards, a body's parts are decoded and kept there. */
const CODEC = new URL('./host/codec.fixture.ts', import.meta.url).href;
/** The replica ends this long after its last query: each run starts without it, and the next query seeds it again. */
const REPLICA_IDLE_MS = 150;

const sorted = (rows: Row[]) => rows.map((r) => JSON.stringify(r)).sort();

describe.each([1, 3])('a materialized native table, workers %i', { timeout: 600_000 }, (workers) => {
  let engine: ThreadEngine;
  let oracle: ProgramEngine;
  beforeAll(async () => {
    [engine, oracle] = await Promise.all([
      startThreadEngine({ workers, codec: CODEC, replicaIdleMs: REPLICA_IDLE_MS }).load(PROGRAM),
      openEngine(PROGRAM, { native: false }),
    ]);
  }, 120_000);
  afterAll(async () => {
    await engine?.close();
    await oracle?.close();
  });

  it('is held natively', () => {
    for (const [name, kind] of [
      ['t', 'table'],
      ['u', 'table'],
      ['e', 'table'],
      ['per_o', 'view'],
      ['e_k', 'view'],
    ] as const)
      expect(engine.resolve(name, kind)?.maintenance, name).toBe('native');
  });

  it('snapshot, replica and views equal the PGlite path after every step', async () => {
    // Rows of t inserted so far (deletes pick among them, so that most delete copies that exist).
    const seen: Row[] = [];
    await fc.assert(
      fc.asyncProperty(fc.array(stepInput, { minLength: 1, maxLength: 3 }), async (steps) => {
        for (const input of steps) {
          const t: Change[] = [
            ...input.inserts.map(([row, weight]) => ({ row, weight })),
            ...input.deletes.flatMap(([i, weight]) =>
              seen.length > 0 ? [{ row: seen[i % seen.length]!, weight }] : [],
            ),
            ...input.absent.map((row) => ({ row, weight: -1 })),
          ];
          const u: Change[] = input.upserts.map(([row, weight]) => ({ row, weight }));
          for (const e of [engine, oracle]) {
            const [a, b] = [await e.ingest('t', t), await e.ingest('u', u)];
            expect(a.errors.length + b.errors.length).toBe(0);
          }
          // Events as a body (the fixture codec reads it with JSON.parse; the oracle gets the rows it reads).
          const body = input.events.map((r) => JSON.stringify(r)).join('\n');
          const events = input.events.map((r) => ({
            row: JSON.parse(JSON.stringify(r)) as Row,
            weight: input.eventWeight,
          }));
          if (body !== '') {
            const { result } = await engine.ingestBody('e', body, { weight: input.eventWeight }).result;
            expect(result.errors).toEqual([]);
          }
          expect((await oracle.ingest('e', events)).errors).toEqual([]);
          seen.push(...input.inserts.map(([row]) => row));
          await Promise.all([engine.step(), oracle.step()]);
          for (const name of ['t', 'u', 'e', 'per_o', 'e_k']) {
            const view = VIEWS[name];
            const truth = sorted(view ? (await oracle.query(view)).rows : await oracle.snapshot(name));
            expect(sorted(await engine.snapshot(name)), `snapshot of ${name}`).toEqual(truth);
            expect(sorted((await engine.query(`SELECT * FROM ${name}`)).rows), `replica's ${name}`).toEqual(truth);
          }
        }
        // The replica ends: the next run's first bodies of e are kept on the shards, unwatched.
        await new Promise((resolve) => setTimeout(resolve, 2 * REPLICA_IDLE_MS));
      }),
      { numRuns: 12, endOnFailure: true },
    );
  });
});

describe('an in-process query of materialized native relations', { timeout: 120_000 }, () => {
  // In process (not on a replica), the native rows a query reads are written into PGlite for it:
  // only those of the relations it names when it names only native tables and held views, found by
  // the parser; every native table's when it names a view as `public.v` (evaluated over them).
  const MIXED = `${PROGRAM}\nCREATE TABLE "Mixed" (k int) WITH ('materialized' = 'true');`;
  let engine: ProgramEngine;
  let oracle: ProgramEngine;
  beforeAll(async () => {
    [engine, oracle] = await Promise.all([openEngine(MIXED), openEngine(MIXED, { native: false })]);
  }, 120_000);
  afterAll(async () => {
    await engine?.close();
    await oracle?.close();
  });

  it('reads the rows of every relation it names, and answers as the PGlite path', async () => {
    expect(engine.resolve('Mixed', 'table')?.maintenance).toBe('native');
    for (const e of [engine, oracle]) {
      await e.ingest(
        'Mixed',
        [1, 2, 2, 3].map((k) => ({ weight: 1, row: { k } })),
      );
      await e.ingest(
        'e',
        [2, 3, 3, 4].map((k) => ({ weight: 1, row: { k, b: k * 10, x: `x${k}` } })),
      );
      await e.ingest('u', [{ weight: 1, row: { k: 3, n: 1.5, x: 'u3' } }]);
      await e.step();
    }
    const queries = [
      'WITH m AS (SELECT k FROM "Mixed") SELECT m.k, e_k.c FROM m JOIN e_k ON m.k = e_k.k ORDER BY 1, 2',
      'SELECT u.x, (SELECT count(*) FROM e WHERE e.k = u.k) AS n FROM u',
      'SELECT count(*) AS n FROM "Mixed"',
      // Qualified, a view is its definition evaluated over the tables (the view reads e).
      'SELECT k, c FROM public.e_k ORDER BY k',
      'SELECT k, c FROM e_k ORDER BY k',
    ];
    for (const q of queries) {
      const [got, want] = [await engine.query(q), await oracle.query(q)];
      expect(got.rows, q).toEqual(want.rows);
      expect(got.rows.length, q).toBeGreaterThan(0);
    }
    expect((await engine.query('SELECT count(*)::int AS n FROM "Mixed"')).rows).toEqual([{ n: 4 }]);
  });
});
