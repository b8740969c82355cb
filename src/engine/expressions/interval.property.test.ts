import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oracleDb } from '../../../test/support/oracle-db.js';
import { addDays, addInterval, daysBetween, parseInterval } from './interval.js';
import { SqlError } from './sql-error.js';
import type { Value } from './types.js';

// Date and timestamp arithmetic (interval.ts) against PostgreSQL's own: month ends and leap days
// (the day clamped), BC dates and the first and last days each type holds, intervals of every sign
// in each field and times past a day, ±infinity; the interval read from PostgreSQL's own text of it.

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const year = fc.oneof(
  fc.integer({ min: 1, max: 9999 }),
  fc.constantFrom(1, 4, 1900, 2000, 2023, 2024, 294_276, 4713, 4714, 100_000),
);
const day = fc
  .tuple(year, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }), fc.boolean())
  .filter(([y, m, d, bc]) => {
    const leap = (bc ? 1 - y : y) % 4 === 0 && ((bc ? 1 - y : y) % 100 !== 0 || (bc ? 1 - y : y) % 400 === 0);
    const last = m === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31;
    return d <= last && (!bc || y < 4713 || (y === 4713 && true)) && (bc || y <= 294_276);
  })
  .map(([y, m, d, bc]) => ({ text: `${pad(y, 4)}-${pad(m)}-${pad(d)}`, bc }));
const clock = fc.constantFrom('00:00:00', '23:59:59.999999', '12:30:00.5', '00:00:00.000001', '10:17:42.123456');
const stamp = fc.oneof(
  { arbitrary: fc.tuple(day, clock).map(([d, c]) => `${d.text} ${c}${d.bc ? ' BC' : ''}`), weight: 10 },
  {
    arbitrary: fc.constantFrom('infinity', '-infinity', '4714-11-24 00:00:00 BC', '294276-12-31 23:59:59.999999'),
    weight: 1,
  },
);
const date = fc.oneof(
  { arbitrary: day.map((d) => `${d.text}${d.bc ? ' BC' : ''}`), weight: 10 },
  { arbitrary: fc.constantFrom('infinity', '-infinity', '4714-11-24 BC', '5874897-12-31'), weight: 1 },
);
const interval = fc
  .tuple(
    fc.integer({ min: -30, max: 30 }),
    fc.integer({ min: -40, max: 40 }),
    fc.integer({ min: -100, max: 100 }),
    fc.integer({ min: 0, max: 59 }),
    fc.constantFrom('', '.5', '.000001', '.999999'),
  )
  .map(([mons, days, h, m, f]) => `${mons} mons ${days} days ${h} hours ${m} minutes ${f ? `0${f} seconds` : ''}`);

/** What ours gave: to_json's value, or the SQLSTATE of the error. */
function ours(f: () => Value | number): unknown {
  try {
    const v = f();
    return typeof v === 'number' ? v : (v as { json: unknown }).json;
  } catch (error) {
    if (error instanceof SqlError) return error.code;
    throw error;
  }
}
const opaque = (json: string): Value => ({ json, text: JSON.stringify(json) });

describe('date and timestamp arithmetic', () => {
  const oracle = oracleDb();
  async function theirs<T extends Record<string, unknown>>(sql: string, params: unknown[]): Promise<T | string> {
    try {
      return (await oracle().query<T>(sql, params)).rows[0]!;
    } catch (error) {
      return String((error as { code?: unknown }).code);
    }
  }

  it('timestamp and timestamptz ± interval as PostgreSQL', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(stamp, interval, fc.constantFrom('+', '-'), fc.boolean(), async (t, i, op, zoned) => {
        const type = zoned ? 'timestamptz' : 'timestamp';
        const { t: json, iv } = (
          await oracle().query<{ t: string; iv: string }>(
            `SELECT to_json($1::${type}) AS t, $2::interval::text AS iv`,
            [zoned && !/infinity/.test(t) ? `${t.replace(/( BC)?$/, '+00$1')}` : t, i],
          )
        ).rows[0]!;
        const parsed = parseInterval(iv);
        expect(parsed, iv).toBeDefined();
        const want = await theirs<{ r: unknown }>(`SELECT to_json($1::${type} ${op} $2::interval) AS r`, [json, iv]);
        const got = ours(() => addInterval(opaque(json), parsed!, op === '+' ? 1 : -1, zoned));
        expect(got, `${json} ${op} ${iv}`).toEqual(typeof want === 'string' ? want : want.r);
      }),
      { numRuns: 3_000 },
    );
  });

  it('date ± integer and date - date as PostgreSQL', { timeout: 120_000 }, async () => {
    const days = fc.oneof(fc.integer({ min: -800, max: 800 }), fc.constantFrom(2147483647, -2147483648, 0));
    await fc.assert(
      fc.asyncProperty(date, date, days, fc.constantFrom('+', '-'), async (a, b, n, op) => {
        const { x, y } = (
          await oracle().query<{ x: string; y: string }>('SELECT to_json($1::date) x, to_json($2::date) y', [a, b])
        ).rows[0]!;
        const plus = await theirs<{ r: unknown }>(`SELECT to_json($1::date ${op} $2::int) AS r`, [x, n]);
        expect(
          ours(() => addDays(opaque(x), n, op === '+' ? 1 : -1)),
          `${x} ${op} ${n}`,
        ).toEqual(typeof plus === 'string' ? plus : plus.r);
        const minus = await theirs<{ r: unknown }>('SELECT ($1::date - $2::date) AS r', [x, y]);
        expect(
          ours(() => daysBetween(opaque(x), opaque(y))),
          `${x} - ${y}`,
        ).toEqual(typeof minus === 'string' ? minus : minus.r);
      }),
      { numRuns: 2_000 },
    );
  });
});
