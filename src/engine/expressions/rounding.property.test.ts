import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oracleDb } from '../../../test/support/oracle-db.js';
import { viewsFollowTruth } from '../../../test/support/view-truth.js';
import { openEngine } from '../open.js';
import { finite, type Numeric, numericText, parseNumeric } from './numeric.js';
import { roundingFunction } from './rounding.js';
import { FLOAT8, INT4, NUMERIC } from './types.js';
import { float8Text } from './values.js';

// round/trunc/floor/ceil of numeric and double precision against PostgreSQL's own: halves at every
// scale, negative decimals, NaN and ±Infinity, -0 and the halves of doubles (2.5, -0.5, 2^52 - 0.5).

const numeric: fc.Arbitrary<Numeric> = fc.oneof(
  fc
    .record({ n: fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }), scale: fc.integer({ min: 0, max: 6 }) })
    .map(({ n, scale }) => finite(n, scale)),
  fc
    .constantFrom('2.5', '-2.5', '0.5', '-0.5', '0.05', '99.5', '-0.4', '1.005', '15', 'NaN', 'Infinity', '-Infinity')
    .map(parseNumeric),
);
const digits = fc.oneof(fc.integer({ min: -4, max: 8 }), fc.constantFrom(-3000, 3000, 16383, 16384, 20000, -20000));
const double = fc.oneof(
  fc.double({ noNaN: false }),
  fc.constantFrom(2.5, -2.5, 0.5, -0.5, 1.5, -0.4, -0, 0, 2 ** 52 - 0.5, -(2 ** 52) + 0.5, 4503599627370497, 1e300),
  fc.integer({ min: -20, max: 20 }).map((k) => k / 2),
);

describe('round, trunc, floor, ceil', () => {
  const oracle = oracleDb();

  it('of numeric give what PostgreSQL’s give', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('round', 'trunc', 'floor', 'ceil'),
        numeric,
        fc.option(digits),
        async (name, x, s) => {
          const two = s !== null && (name === 'round' || name === 'trunc');
          const f = roundingFunction(name, two ? [NUMERIC, INT4] : [NUMERIC])!;
          const sql = two
            ? `SELECT ${name}($1::numeric, $2::int)::text AS r`
            : `SELECT ${name}($1::numeric)::text AS r`;
          const theirs = (await oracle().query<{ r: string }>(sql, two ? [numericText(x), s] : [numericText(x)]))
            .rows[0]!.r;
          expect(numericText(f.f(two ? [x, s] : [x]) as Numeric), `${name}(${numericText(x)}, ${s})`).toBe(theirs);
        },
      ),
      { numRuns: 3_000 },
    );
  });

  // Compared as values (Object.is: -0 and NaN too), each side on the double PostgreSQL read: its
  // text of a double can differ from JavaScript's shortest one at a tie (-1.3192375193883501e+17).
  it('of double precision give what PostgreSQL’s give, -0 included', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('round', 'trunc', 'floor', 'ceil'), double, async (name, x) => {
        const f = roundingFunction(name, [FLOAT8])!;
        const sql = `SELECT $1::float8::text AS v, ${name}($1::float8)::text AS r`;
        const { v, r } = (await oracle().query<{ v: string; r: string }>(sql, [float8Text(x)])).rows[0]!;
        const ours = f.f([Number(v)]) as number;
        expect(Object.is(ours, Number(r)), `${name}(${v}): ${float8Text(ours)}, not ${r}`).toBe(true);
      }),
      { numRuns: 3_000 },
    );
  });

  it(
    'in a native view, equal PostgreSQL’s evaluation from scratch after every step',
    { timeout: 120_000 },
    async () => {
      const program = `CREATE TABLE t (k int, m numeric, p numeric(8,3), f double precision);
      CREATE MATERIALIZED VIEW v AS
        SELECT k, round(m) AS r0, round(p, 1) AS r1, round(m, k) AS rk, trunc(p, -1) AS t1, floor(p) AS fl,
               ceil(m) AS ce, round(f) AS rf, floor(f) AS ff, round(k) AS ri
        FROM t;
      CREATE MATERIALIZED VIEW a AS SELECT k, round(avg(p), 2) AS mean, round(sum(p)) AS total FROM t GROUP BY k;`;
      const engine = await openEngine(program);
      try {
        for (const view of ['v', 'a']) expect(engine.resolve(view, 'view')).toMatchObject({ maintenance: 'native' });
        const row = fc.record({
          k: fc.option(fc.integer({ min: -3, max: 3 })),
          m: fc.option(numeric.map(numericText)),
          p: fc.option(fc.integer({ min: -99_999_999, max: 99_999_999 }).map((n) => numericText(finite(BigInt(n), 3)))),
          f: fc.option(fc.constantFrom(2.5, -0.5, 1.25, 3, -7.5, 1e10 + 0.5)),
        });
        await viewsFollowTruth(engine, 't', row, ['v', 'a'], 40);
      } finally {
        await engine.close();
      }
    },
  );
});
