import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonColumnNames } from '../engine/json-columns.js';
import { openEngine } from '../engine/open.js';
import type { Row } from '../engine/types.js';
import { decodeCsv } from './csv-decode.js';
import { csvChanges } from './encode.js';

// What CSV egress writes, CSV ingress reads back as the same values, through PostgreSQL's own
// input of each field (arrays as its array text, json as JSON text): rows of arrays and JSON
// written by csvChanges, read by decodeCsv, ingested into a table, and read out again.

const PROGRAM = `CREATE TABLE a (k int, i int[], t text[], f float8[], b boolean[], m int[][], j json, jb jsonb)
  WITH ('materialized' = 'true');`;
const COLUMNS = ['k', 'i', 't', 'f', 'b', 'm', 'j', 'jb'];

/** Text PostgreSQL takes (no NUL, no lone surrogate), with the cases array text must quote. */
const text = fc.oneof(
  fc.string({ maxLength: 6 }).filter((s) => !s.includes('\u0000')),
  fc.constantFrom('', 'NULL', 'null', ' a ', 'a,b', '{x}', 'q"u', 'back\\slash', 'tab\there', 'line\nbreak', 'é ü'),
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
const json = fc.jsonValue({ maxDepth: 2 }).filter((v) => !JSON.stringify(v).includes('\\u0000'));
const matrix = fc
  .tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 }))
  .chain(([r, c]) =>
    fc.array(fc.array(maybe(fc.integer()), { minLength: c, maxLength: c }), { minLength: r, maxLength: r }),
  );
const row = fc.record({
  i: maybe(fc.array(maybe(fc.integer()), { maxLength: 4 })),
  t: maybe(fc.array(maybe(text), { maxLength: 4 })),
  f: maybe(fc.array(maybe(fc.double({ noNaN: true, noDefaultInfinity: true })), { maxLength: 3 })),
  b: maybe(fc.array(maybe(fc.boolean()), { maxLength: 3 })),
  m: maybe(matrix),
  j: maybe(json),
  jb: maybe(json),
});

/**
 * A value as jsonb would keep it: numbers as doubles (jsonb spells 1e-299 in full; -0 is 0 in JSON)
 * and object members in one order (jsonb sorts them).
 */
function canonical(v: unknown): unknown {
  const plain: unknown = JSON.parse(JSON.stringify(v));
  const sort = (x: unknown): unknown =>
    Array.isArray(x)
      ? x.map(sort)
      : typeof x === 'object' && x !== null
        ? Object.fromEntries(
            Object.entries(x)
              .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
              .map(([k, y]) => [k, sort(y)]),
          )
        : x;
  return sort(plain);
}

describe('CSV out, CSV in', () => {
  it('reads back every array and JSON value it wrote', { timeout: 120_000 }, async () => {
    const engine = await openEngine(PROGRAM);
    try {
      const types = engine.resolve('a', 'table')!.columns;
      const jsonColumns = jsonColumnNames(types);
      let next = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 4 }), async (generated) => {
          // Keys of this run only: the table keeps every run's rows.
          const rows = generated.map((r) => ({ k: next++, ...r }));
          const written = csvChanges(
            rows.map((r) => ({ weight: 1, row: r as Row })),
            COLUMNS,
            jsonColumns,
          );
          const read = decodeCsv(written, [...COLUMNS, 'weight'], jsonColumns);
          expect(read.errors).toEqual([]);
          const ingested = await engine.ingest(
            'a',
            read.changes.map(({ row: { weight: _, ...r } }) => ({ weight: 1, row: r })),
          );
          expect(ingested.errors).toEqual([]);
          await engine.step();
          const keys = new Set(rows.map((r) => r.k));
          const back = (await engine.snapshot('a')).filter((r) => keys.has(r['k'] as number));
          const values = (rs: readonly object[]) => rs.map((r) => JSON.stringify(canonical(r))).sort();
          expect(values(back)).toEqual(values(rows));
        }),
        { numRuns: 60 },
      );
    } finally {
      await engine.close();
    }
  });
});
