import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oracleDb } from '../../../test/support/oracle-db.js';
import { viewsFollowTruth } from '../../../test/support/view-truth.js';
import { openEngine } from '../open.js';
import { SqlError } from './sql-error.js';
import { stringFunction } from './strings.js';
import { INT4, TEXT } from './types.js';

// The text functions of strings.ts against PostgreSQL's own, on texts of few characters where the
// interesting ones are frequent (characters of two UTF-16 units, the delimiters and trimmed
// characters, spaces) and positions around 0, the ends and beyond, negatives included.

const ALPHABET = ['a', 'b', '-', ' ', 'é', '😀', 'x'];
const text = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 7 }).map((cs) => cs.join(''));
const position = fc.oneof(fc.integer({ min: -4, max: 9 }), fc.constantFrom(2147483647, -2147483648));

type Call = { name: string; sql: string; args: (string | number)[]; types: ('text' | 'int')[] };
const mk = (name: string, sql: string, args: (string | number)[], types: Call['types']): Call => ({
  name,
  sql,
  args,
  types,
});
const call: fc.Arbitrary<Call> = fc.oneof(
  fc.tuple(text, position).map(([s, a]) => mk('substring', 'substring($1::text, $2::int)', [s, a], ['text', 'int'])),
  fc
    .tuple(text, position, position)
    .map(([s, a, n]) => mk('substr', 'substr($1::text, $2::int, $3::int)', [s, a, n], ['text', 'int', 'int'])),
  fc.tuple(text, position).map(([s, n]) => mk('left', 'left($1::text, $2::int)', [s, n], ['text', 'int'])),
  fc.tuple(text, position).map(([s, n]) => mk('right', 'right($1::text, $2::int)', [s, n], ['text', 'int'])),
  fc.tuple(text, text).map(([s, t]) => mk('strpos', 'strpos($1::text, $2::text)', [s, t], ['text', 'text'])),
  fc
    .tuple(text, text, text)
    .map(([s, f, t]) => mk('replace', 'replace($1::text, $2::text, $3::text)', [s, f, t], ['text', 'text', 'text'])),
  fc
    .tuple(text, text, position)
    .map(([s, d, n]) =>
      mk('split_part', 'split_part($1::text, $2::text, $3::int)', [s, d, n], ['text', 'text', 'int']),
    ),
  fc.tuple(fc.constantFrom('btrim', 'ltrim', 'rtrim'), text).map(([f, s]) => mk(f, `${f}($1::text)`, [s], ['text'])),
  fc
    .tuple(fc.constantFrom('btrim', 'ltrim', 'rtrim'), text, text)
    .map(([f, s, t]) => mk(f, `${f}($1::text, $2::text)`, [s, t], ['text', 'text'])),
);

/** What a call gave here: its value or its error's SQLSTATE. */
function ours(c: Call): unknown {
  const f = stringFunction(
    c.name,
    c.types.map((t) => (t === 'text' ? TEXT : INT4)),
  )!;
  try {
    return f(c.args);
  } catch (error) {
    if (error instanceof SqlError) return error.code;
    throw error;
  }
}

describe('text functions', () => {
  const oracle = oracleDb();

  it('give what PostgreSQL’s give, errors included', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(call, async (c) => {
        let theirs: unknown;
        try {
          theirs = (await oracle().query<{ r: unknown }>(`SELECT ${c.sql} AS r`, c.args)).rows[0]!.r;
        } catch (error) {
          theirs = String((error as { code?: unknown }).code);
        }
        expect(ours(c), JSON.stringify(c)).toEqual(theirs);
      }),
      { numRuns: 4_000 },
    );
  });

  it(
    'in a native view, equal PostgreSQL’s evaluation from scratch after every step',
    { timeout: 120_000 },
    async () => {
      // Positions from 1: a step that fails (split_part's 0, a negative length) is not this test's subject.
      const program = `CREATE TABLE t (s text, d text, n int, b bigint, m numeric, o boolean);
      CREATE MATERIALIZED VIEW v AS
        SELECT s, substring(s from n) AS s1, substr(s, 2, n) AS s2, left(s, n) AS l, right(s, -n) AS r,
               position(d in s) AS p, replace(s, d, '+') AS rp, split_part(s, d, n) AS sp, trim(s) AS t1,
               trim(both d from s) AS t2, trim(leading from s) AS t3, s || n AS c1, b || s AS c2,
               m::text AS mt, o::text AS ot, s || o AS c3, concat(s, n, NULL::text, b, o, m) AS cc,
               concat_ws(d, s, n, o) AS cw
        FROM t WHERE strpos(s, 'x') = 0 OR s || m LIKE '%1';`;
      const engine = await openEngine(program);
      try {
        expect(engine.resolve('v', 'view')).toMatchObject({ maintenance: 'native' });
        const row = fc.record({
          s: fc.option(text),
          d: fc.option(text),
          n: fc.option(fc.integer({ min: 1, max: 8 })),
          b: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((x) => x.toString())),
          m: fc.option(fc.constantFrom('1.50', '-0.001', 'NaN', '1e3', '12345678901234567890.1', '-Infinity')),
          o: fc.option(fc.boolean()),
        });
        await viewsFollowTruth(engine, 't', row, ['v'], 40);
      } finally {
        await engine.close();
      }
    },
  );
});
