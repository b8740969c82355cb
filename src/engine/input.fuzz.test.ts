import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcError } from '../model/errors.js';
import type { ProgramEngine } from './engine.js';
import { openEngine } from './open.js';
import type { Change } from './types.js';

// What parses input, fuzzed: any records an ingest gets are each either accepted or reported (never
// a throw, never half a record), and any query text is answered or refused with a 400.

const PROGRAM = `CREATE TABLE t (k int NOT NULL, v numeric(5,2), s varchar(4), d date, b boolean, j jsonb, a int[])
  WITH ('materialized' = 'true');
  CREATE MATERIALIZED VIEW c AS SELECT k, count(*) AS n FROM t GROUP BY k;`;

const value = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 12 }),
  fc.constantFrom('2024-02-30', '2024-01-01', 'true', '12.345', '999.99', '{1,2}', 'NaN'),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);
const record: fc.Arbitrary<Change> = fc.record({
  weight: fc.constantFrom(1, 1, 1, -1, 2, 0, 1.5),
  row: fc.dictionary(fc.constantFrom('k', 'v', 's', 'd', 'b', 'j', 'a', 'zz'), value, { maxKeys: 7 }),
});

describe('engine input fuzz', { timeout: 120_000 }, () => {
  let engine: ProgramEngine;
  beforeAll(async () => {
    engine = await openEngine(PROGRAM);
  }, 60_000);
  afterAll(() => engine?.close());

  it('every record is accepted or reported by index; steps still run', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(record, { maxLength: 12 }), async (changes) => {
        const before = engine.bufferedRecords;
        const result = await engine.ingest('t', changes);
        expect(result.accepted + result.errors.length).toBe(changes.length);
        expect(new Set(result.errors.map((e) => e.index)).size).toBe(result.errors.length);
        for (const e of result.errors) expect(e.message.length).toBeGreaterThan(0);
        expect(engine.bufferedRecords).toBe(before + result.accepted);
        await engine.step();
      }),
      { numRuns: 60 },
    );
  });

  it('any query text is answered or refused with a 400', async () => {
    const text = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc
        .tuple(fc.constantFrom('SELECT', 'SELECT *', 'SELECT k,', 'DELETE', 'WITH x AS'), fc.string({ maxLength: 20 }))
        .map(([a, b]) => `${a} ${b} FROM t`),
    );
    await fc.assert(
      fc.asyncProperty(text, async (sql) => {
        try {
          await engine.query(sql);
        } catch (error) {
          expect(error).toBeInstanceOf(SvcError);
          expect((error as SvcError).status).toBe(400);
        }
      }),
      { numRuns: 150 },
    );
  });
});
