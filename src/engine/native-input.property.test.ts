import type { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExact } from '../model/exact-json.js';
import { createInMemory } from '../pglite/initdb-dump.js';
import { engineDump } from '../pglite/shipped-dump.js';
import { readCatalog, type Relation } from './catalog.js';
import { readSql, valueFromJson, valueToSqlJson } from './expressions/values.js';
import { INGEST_SQL, stage, stagingSql } from './ingest.js';
import { NativeTables } from './native-tables.js';
import { typesOfColumns } from './native-views.js';
import { inSchema, ORD, quote, STAGE, W } from './sql.js';
import type { Change, Row } from './types.js';

// A native table's input conversion (native-input.ts, and PostgreSQL's for the records it leaves to
// it) must accept exactly the records the staging path accepts, with the same values, and reject
// the others with the same messages: random batches of edge values through both.

const TABLE = `CREATE TABLE t (i int, s smallint, b bigint NOT NULL, n numeric, p numeric(6,2), f double precision,
  x text, o boolean, "constructor" int, d date, ts timestamp, tz timestamptz, t3 timestamp(3), tm time)`;
const NAMES = ['i', 's', 'b', 'n', 'p', 'f', 'x', 'o', 'constructor', 'd', 'ts', 'tz', 't3', 'tm'];

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
/** Dates as text: mostly of real days (edges of years and leap days), some with a field out of range. */
const dateOf = (y: fc.Arbitrary<number>, m: fc.Arbitrary<number>, d: fc.Arbitrary<number>) =>
  fc.tuple(y, m, d).map(([yy, mm, dd]) => `${pad(yy, 4)}-${pad(mm)}-${pad(dd)}`);
const year = fc.oneof(fc.integer({ min: 1, max: 9999 }), fc.constantFrom(1, 1900, 2000, 2023, 2024, 9999));
const dateText = fc.oneof(
  { arbitrary: dateOf(year, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 })), weight: 30 },
  { arbitrary: dateOf(year, fc.constantFrom(2, 4, 12), fc.constantFrom(29, 30, 31)), weight: 2 },
  { arbitrary: dateOf(fc.constantFrom(0, 2024), fc.constantFrom(0, 1, 13), fc.constantFrom(0, 1, 32)), weight: 1 },
);
const timeOf = (h: fc.Arbitrary<number>, m: fc.Arbitrary<number>, s: fc.Arbitrary<number>) =>
  fc
    .tuple(h, m, s, fc.option(fc.stringMatching(/^[0-9]{1,9}$/), { nil: undefined }))
    .map(([hh, mm, ss, f]) => `${pad(hh)}:${pad(mm)}:${pad(ss)}${f === undefined ? '' : `.${f}`}`);
const timeText = fc.oneof(
  {
    arbitrary: timeOf(
      fc.integer({ min: 0, max: 23 }),
      fc.integer({ min: 0, max: 59 }),
      fc.integer({ min: 0, max: 59 }),
    ),
    weight: 30,
  },
  { arbitrary: timeOf(fc.constantFrom(0, 23, 24), fc.constantFrom(0, 59, 60), fc.constantFrom(0, 59, 60)), weight: 1 },
);
const stampText = fc.tuple(dateText, fc.constantFrom(' ', 'T'), timeText).map(([d, sep, t]) => `${d}${sep}${t}`);
const zone = fc.constantFrom(
  '',
  '',
  'Z',
  'z',
  '+00',
  '-00',
  '+05',
  '-08:00',
  '+05:30',
  '+15:59',
  '-15:59',
  '+16',
  '+1',
  '+0530',
  ' UTC',
);
const stampTzText = fc.tuple(stampText, zone).map(([t, z]) => `${t}${z}`);
const oddTemporal = fc.constantFrom(
  'infinity',
  '-infinity',
  '2024-01-01 BC',
  'today',
  '2024-1-1',
  '20240101',
  ' 2024-01-01',
  '10000-01-01',
  '0001-01-01 00:30:00+01',
  '9999-12-31 23:30:00-01',
);

const odd = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 4 }),
  fc.string({ unit: 'binary', maxLength: 3 }),
  fc.constantFrom(
    '',
    ' 7 ',
    '12',
    '1.005',
    '-0',
    'NaN',
    'Infinity',
    '1e3',
    'a\u0000b',
    'true',
    't',
    '9223372036854775808',
  ),
  fc.constantFrom(1e21, 1e-7, -0, 0.5, 2.5, -2.5, 1.005, 9999.995, -9999.995, 10000, 2147483648, -2147483649),
  fc.constantFrom(32767, 32768, -32768, -32769, 2 ** 53, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, 1.5),
  fc
    .constant(parseExact('[9223372036854775807, 123456789012345678901234.5, 1e400, -0]') as unknown[])
    .chain((v) => fc.constantFrom(...v)),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 2 }), fc.integer(), { maxKeys: 1 }),
);
/** Values that mostly fit, so that most batches go in and the values are compared. */
const fitting: Record<string, fc.Arbitrary<unknown>> = {
  i: fc.integer(),
  s: fc.integer({ min: -40000, max: 40000 }),
  b: fc.maxSafeInteger(),
  n: fc.double({ noNaN: true, noDefaultInfinity: true }),
  p: fc.oneof(
    fc.double({ min: -10000, max: 10000, noNaN: true }),
    fc.integer({ min: -9999, max: 9999 }),
    // Halves at the third digit: rounded away from zero.
    fc.constantFrom(1.005, -1.005, 0.125, -2.345, 9999.995, 9999.994),
    // Cents, as most input is (read without text: native-input.ts's fast path), and near misses.
    fc.integer({ min: -1_000_000, max: 1_000_000 }).map((c) => c / 100),
    fc.constantFrom(0.1 + 0.2, 0.29, 9999.99, -9999.99, 1.1 * 3, 4.35 * 100, 1e-3),
  ),
  f: fc.double({ noNaN: true, noDefaultInfinity: true }),
  x: fc.oneof(fc.string({ maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 3 })),
  o: fc.boolean(),
  constructor: fc.integer(),
  d: fc.oneof({ arbitrary: dateText, weight: 40 }, { arbitrary: oddTemporal, weight: 1 }),
  ts: fc.oneof(
    { arbitrary: stampText, weight: 40 },
    { arbitrary: stampTzText, weight: 2 },
    { arbitrary: oddTemporal, weight: 1 },
  ),
  tz: fc.oneof({ arbitrary: stampTzText, weight: 40 }, { arbitrary: oddTemporal, weight: 1 }),
  tm: fc.oneof(
    { arbitrary: timeText, weight: 20 },
    { arbitrary: fc.constantFrom('24:00:00', '10:00', '10:00:00+02', '1:02:03', 'allballs'), weight: 1 },
  ),
  t3: fc.oneof({ arbitrary: stampText, weight: 10 }, { arbitrary: stampTzText, weight: 1 }),
};
const row = fc
  .tuple(...NAMES.map((n) => fc.option(fc.oneof({ arbitrary: fitting[n]!, weight: 9 }, { arbitrary: odd, weight: 1 }))))
  .map((values) => Object.fromEntries(NAMES.flatMap((n, i) => (values[i] === null ? [] : [[n, values[i]]]))) as Row);
const change: fc.Arbitrary<Change> = fc.record({ weight: fc.constantFrom(1, -1, 3), row });

describe('a native table converts input as PostgreSQL does', { timeout: 300_000 }, () => {
  let db: PGlite;
  let table: Relation;
  let natives: NativeTables;
  beforeAll(async () => {
    db = await createInMemory(engineDump(), { slim: true });
    await db.exec(`${TABLE}; ${INGEST_SQL}`);
    const [read] = await readCatalog(db, [{ sql: TABLE, creates: { name: 't', kind: 'table', materialized: false } }]);
    table = read!;
    await db.exec(stagingSql(table));
    natives = await NativeTables.decide(db, [table], () => []);
  }, 120_000);
  afterAll(() => db?.close());

  /** What the staging path takes: its errors, and the staged changes as a checkpoint spells them. */
  async function staged(batch: Change[]) {
    const { errors } = await stage(db, table, batch);
    const types = typesOfColumns(table);
    const cols = table.columns.map((c, i) => readSql(types[i]!, `s.${quote(c.name)}`));
    const [r] = (
      await db.query<{ j: string }>(
        `SELECT coalesce(json_agg(json_build_array(${[...cols, `s.${quote(W)}`].join(', ')}) ORDER BY s.${ORD}), '[]')::text AS j
           FROM ${inSchema(STAGE, 't')} s`,
      )
    ).rows;
    await db.exec(`TRUNCATE ${inSchema(STAGE, 't')}`);
    const changes = (parseExact(r!.j) as unknown[][]).map((raw) => ({
      weight: Number(raw[raw.length - 1]),
      row: Object.fromEntries(
        table.columns.map((c, i) => [c.name, valueToSqlJson(types[i]!.base, valueFromJson(types[i]!, raw[i] ?? null))]),
      ),
    }));
    return { errors, changes };
  }

  /** What the native table buffers, read back as a checkpoint's staged pages. */
  async function buffered(batch: Change[]) {
    const { errors } = await natives.ingest(db, 't', batch);
    const changes: unknown[] = [];
    await natives.dump('staged', async (page) => void changes.push(...(JSON.parse(page.json) as unknown[])), 1000);
    natives.prepare(() => false).commit();
    return { errors, changes };
  }

  /** Rows restored from a checkpoint's page (the dumped spelling, read in JS where certain), dumped again. */
  async function roundTrip(rows: Row[]) {
    natives.clear('t');
    await natives.restorePage(db, 't', rows as never);
    const out: unknown[] = [];
    await natives.dump('table', async (page) => void out.push(...(JSON.parse(page.json) as unknown[])), 1000);
    natives.clear('t');
    return out;
  }
  const sorted = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();

  it('is a native table', async () => {
    expect(natives.has('t'), table.maintenanceReason).toBe(true);
    // temporal-input.ts reads a timestamptz without an offset as UTC's: the session's zone must be.
    expect((await db.query<{ TimeZone: string }>('SHOW TimeZone')).rows).toEqual([{ TimeZone: 'UTC' }]);
  });

  it('holds for random batches of edge values', async () => {
    let accepted = 0;
    let rejected = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(change, { minLength: 1, maxLength: 4 }), async (batch) => {
        const want = await staged(batch);
        accepted += want.changes.length;
        rejected += want.errors.length;
        expect(await buffered(batch)).toEqual(want);
      }),
      { numRuns: 300 },
    );
    // Both ways were taken often enough for the comparison to mean something (13 columns, each
    // with a tenth of odd values: most records have one PostgreSQL refuses).
    expect(accepted).toBeGreaterThan(120);
    expect(rejected).toBeGreaterThan(20);
  });

  it('restores a checkpoint page of those values exactly as it was dumped', async () => {
    let rows = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(change, { minLength: 1, maxLength: 6 }), async (batch) => {
        const { changes } = await staged(batch.map((c) => ({ ...c, weight: 1 })));
        const page = changes.map((c) => c.row as Row);
        rows += page.length;
        expect(sorted(await roundTrip(page))).toEqual(sorted(page));
      }),
      { numRuns: 300 },
    );
    expect(rows).toBeGreaterThan(180);
  });
});
