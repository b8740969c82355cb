import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oracleDb } from '../../../test/support/oracle-db.js';
import { datePartField, extractField } from './extract.js';
import { type Numeric, numericText } from './numeric.js';

// EXTRACT(field FROM x) against PostgreSQL's over the same values: timestamps and dates across the
// eras (BC years, year 1, leap days, the last years each type holds), fractions of a second down to
// the microsecond, and ±infinity, each read by the native path from its to_json text.

const DATE_FIELDS = 'millennium century decade year isoyear quarter month week day dow isodow doy epoch'.split(' ');
const TIMESTAMP_FIELDS = [...DATE_FIELDS, ...'hour minute second milliseconds microseconds'.split(' ')];

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/** A date as PostgreSQL reads it: AD up to `maxYear`, or BC back to 4713 BC. */
const date = (maxYear: number) =>
  fc
    .record({
      year: fc.oneof(
        fc.integer({ min: 1, max: maxYear }),
        fc.constantFrom(1, 4, 100, 400, 1900, 1970, 2000, 2024, maxYear),
      ),
      bc: fc.boolean(),
      month: fc.integer({ min: 1, max: 12 }),
      day: fc.integer({ min: 1, max: 31 }),
    })
    .map(({ year, bc, month, day }) => {
      const y = bc ? Math.min(year, 4713) : year;
      // The last day of the month it names (leap years by the proleptic Gregorian rule, astronomical year).
      const astro = bc ? 1 - y : y;
      const leap = astro % 4 === 0 && (astro % 100 !== 0 || astro % 400 === 0);
      const last = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
      const d = bc && y === 4713 && month === 1 ? Math.max(day, 1) : day;
      return `${pad(y, 4)}-${pad(month, 2)}-${pad(Math.min(d, last), 2)}${bc ? ' BC' : ''}`;
    });

const time = fc
  .record({
    h: fc.integer({ min: 0, max: 23 }),
    m: fc.integer({ min: 0, max: 59 }),
    s: fc.integer({ min: 0, max: 59 }),
    us: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 999_999 }), fc.constantFrom(1, 500_000, 999_999)),
  })
  .map(({ h, m, s, us }) => `${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}.${pad(us, 6)}`);

const timestamp = fc.oneof(
  { weight: 20, arbitrary: fc.tuple(date(294_275), time).map(([d, t]) => d.replace(/( BC)?$/, ` ${t}$1`)) },
  { weight: 1, arbitrary: fc.constantFrom('infinity', '-infinity') },
);
const aDate = fc.oneof(
  { weight: 20, arbitrary: date(5_874_896) },
  { weight: 1, arbitrary: fc.constantFrom('infinity', '-infinity') },
);

const text = (v: unknown): string | null => (v === null ? null : numericText(v as Numeric));

describe('EXTRACT of timestamps and dates equals PostgreSQL', () => {
  const oracle = oracleDb();

  async function check(type: 'timestamp' | 'timestamptz' | 'date', fields: string[], values: string[]): Promise<void> {
    const parts = type === 'date' ? [] : fields.map((f) => `date_part('${f}', x)::text AS "part ${f}"`);
    const list = [...fields.map((f) => `EXTRACT(${f} FROM x)::text AS "${f}"`), ...parts].join(', ');
    const { rows } = await oracle().query<Record<string, string | null>>(
      `SELECT to_json(x) #>> '{}' AS j, ${list} FROM unnest($1::${type}[]) x`,
      [values],
    );
    for (const row of rows) {
      const json = row['j']!;
      for (const f of fields) {
        const ours = text(extractField(f, type !== 'date')!({ json, text: JSON.stringify(json) }));
        expect(ours, `EXTRACT(${f} FROM ${type} '${json}')`).toBe(row[f]);
        if (type === 'date') continue;
        // date_part's double, compared as a value (its text may differ from JavaScript's at a tie).
        const part = datePartField(f)!({ json, text: JSON.stringify(json) });
        const want = row[`part ${f}`];
        expect(
          part === null ? null : Object.is(part, Number(want)) || want,
          `date_part('${f}', ${type} '${json}'): ${String(part)}`,
        ).toBe(want === null ? null : true);
      }
    }
  }

  it('of timestamps', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(timestamp, { minLength: 1, maxLength: 50 }), (values) =>
        check('timestamp', TIMESTAMP_FIELDS, values),
      ),
      { numRuns: 60 },
    );
  });

  it('of timestamps with time zone, written at any offset (the session shows them in UTC)', async () => {
    const zoned = fc
      .tuple(timestamp, fc.constantFrom('+00', '+05:30', '-08', '+14', '-12:45', '+03:07:12'))
      .map(([t, zone]) => (t.endsWith('infinity') ? t : t.replace(/( BC)?$/, `${zone}$1`)));
    await fc.assert(
      fc.asyncProperty(fc.array(zoned, { minLength: 1, maxLength: 50 }), (values) =>
        check('timestamptz', TIMESTAMP_FIELDS, values),
      ),
      { numRuns: 60 },
    );
  });

  it('of dates', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(aDate, { minLength: 1, maxLength: 50 }), (values) =>
        check('date', DATE_FIELDS, values),
      ),
      { numRuns: 60 },
    );
  });
});
