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

/** The view; MIN/MAX of a numeric only on the PGlite path (the native one does not take them). */
const program = (native: boolean) => `CREATE TABLE n (k int, v numeric);
  CREATE MATERIALIZED VIEW s AS
    SELECT k, sum(v) AS s, avg(v) AS a, count(v) AS c${native ? '' : ', min(v) AS lo, max(v) AS hi'} FROM n GROUP BY k;`;

const NUMBERS = ['0', '1', '1.5', '0.125', '2.50', '-3.000', '12345678901234567.5', '0.00000000000000000001'];
const value: fc.Arbitrary<JsonValue> = fc.oneof(
  { arbitrary: fc.constantFrom(...NUMBERS).map((t) => rawNumber(t) as JsonValue), weight: 8 },
  { arbitrary: fc.constantFrom<JsonValue>('NaN', 'Infinity', '-Infinity', null), weight: 2 },
);
const op = fc.record({
  insert: fc.boolean(),
  row: fc.record({ k: fc.integer({ min: 0, max: 2 }), v: value }),
  pick: fc.nat(),
});
const script = fc.array(fc.array(op, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 6 });

const texts = (rows: readonly Row[]) => rows.map((r) => JSON.stringify(r)).sort();

describe.each([false, true])('numeric aggregates (native: %s)', (native) => {
  it('equal PostgreSQL’s evaluation from scratch after every step', { timeout: 300_000 }, async () => {
    const engine = await openEngine(program(native), { native });
    try {
      expect(engine.resolve('s', 'view')?.maintenance).toBe(native ? 'native' : 'aggregate');
      // The table's rows. Runs go on from the rows earlier runs left (one engine for all), so a
      // shrunk counterexample is a tail of what happened; the message holds the rows before it.
      const held: Row[] = [];
      await fc.assert(
        fc.asyncProperty(script, async (steps) => {
          for (const ops of steps) {
            const ingested = await engine.ingest('n', heldChanges(held, ops));
            expect(ingested.errors).toEqual([]);
            await engine.step();
            const truth = (await engine.query('SELECT * FROM public.s')).rows;
            expect(texts(await engine.snapshot('s')), JSON.stringify(held)).toEqual(texts(truth));
          }
        }),
        { numRuns: 25 },
      );
    } finally {
      await engine.close();
    }
  });
});
