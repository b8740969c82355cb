import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rawNumber } from '../model/exact-json.js';
import type { JsonValue } from '../model/json.js';
import { openEngine } from './open.js';
import { heldChanges } from '../../test/support/held-rows.js';
import type { Row } from './types.js';

// Numeric aggregates kept by adding and subtracting, on both paths, against PostgreSQL evaluating
// the view again: values of many scales (whose largest the sum shows), NaN and ±Infinity (which
// cannot be subtracted), digits a double does not hold (so JSON shows the scale). Random inserts,
// and deletes of rows the table holds; after every step the view equals its evaluation from scratch.

/**
 * The view; MIN/MAX of a numeric of any scale only on the PGlite path (the native one does not take
 * them), of a numeric(6,2) on both (one spelling per value).
 */
const program = (native: boolean) => `CREATE TABLE n (k int, v numeric, p numeric(6,2));
  CREATE MATERIALIZED VIEW s AS
    SELECT k, sum(v) AS s, avg(v) AS a, count(v) AS c, min(p) AS plo, max(p) AS phi${native ? '' : ', min(v) AS lo, max(v) AS hi'}
    FROM n GROUP BY k;
  CREATE MATERIALIZED VIEW g AS SELECT p, count(*) AS c, sum(v) AS s FROM n GROUP BY p;
  CREATE MATERIALIZED VIEW d AS SELECT DISTINCT p FROM n;`;
/** A numeric(6,2) key: one spelling per value once stored (1.5, 1.50 and 1.500 are 1.50), so native keys it. */
const SCALED = ['1', '1.5', '1.50', '1.505', '-0', '0.00', '-2.004', 'NaN'];

const NUMBERS = ['0', '1', '1.5', '0.125', '2.50', '-3.000', '12345678901234567.5', '0.00000000000000000001'];
const value: fc.Arbitrary<JsonValue> = fc.oneof(
  { arbitrary: fc.constantFrom(...NUMBERS).map((t) => rawNumber(t) as JsonValue), weight: 8 },
  { arbitrary: fc.constantFrom<JsonValue>('NaN', 'Infinity', '-Infinity', null), weight: 2 },
);
const op = fc.record({
  insert: fc.boolean(),
  row: fc.record({
    k: fc.integer({ min: 0, max: 2 }),
    v: value,
    p: fc.option(
      fc.constantFrom(...SCALED).map((t) => (t === 'NaN' ? t : (rawNumber(t) as JsonValue))),
      { nil: null },
    ),
  }),
  pick: fc.nat(),
});
const script = fc.array(fc.array(op, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 6 });

const texts = (rows: readonly Row[]) => rows.map((r) => JSON.stringify(r)).sort();

describe.each([false, true])('numeric aggregates (native: %s)', (native) => {
  it('equal PostgreSQL’s evaluation from scratch after every step', { timeout: 300_000 }, async () => {
    const engine = await openEngine(program(native), { native });
    try {
      expect(engine.resolve('s', 'view')?.maintenance).toBe(native ? 'native' : 'aggregate');
      for (const view of ['g', 'd']) expect(engine.resolve(view, 'view')?.maintenance === 'native').toBe(native);
      // The table's rows. Runs go on from the rows earlier runs left (one engine for all), so a
      // shrunk counterexample is a tail of what happened; the message holds the rows before it.
      const held: Row[] = [];
      await fc.assert(
        fc.asyncProperty(script, async (steps) => {
          for (const ops of steps) {
            const ingested = await engine.ingest('n', heldChanges(held, ops));
            expect(ingested.errors).toEqual([]);
            await engine.step();
            for (const view of ['s', 'g', 'd']) {
              const truth = (await engine.query(`SELECT * FROM public.${view}`)).rows;
              expect(texts(await engine.snapshot(view)), `${view}: ${JSON.stringify(held)}`).toEqual(texts(truth));
            }
          }
        }),
        { numRuns: 25 },
      );
    } finally {
      await engine.close();
    }
  });
});
