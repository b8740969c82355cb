import type { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInMemory } from '../pglite/initdb-dump.js';
import { engineDump } from '../pglite/shipped-dump.js';
import { readCatalog, type Relation } from './catalog.js';
import { copyable } from './copy-text.js';
import { stageBatch, stagingSql } from './ingest.js';
import { inSchema, STAGE } from './sql.js';
import type { Change, Row } from './types.js';

// Staging by COPY (CSV built in JS) must stage exactly what staging from JSON
// (json_populate_recordset) does: the same values, and a failure for the same batches.

const TABLE = `CREATE TABLE t (i int, b bigint, n numeric(6,2), f double precision, r real, s text,
  v varchar(3), c char(2), o boolean, d date, ts timestamp, tz timestamptz, iv interval, u uuid, j json, jb jsonb,
  "constructor" int)`;
const NAMES = ['i', 'b', 'n', 'f', 'r', 's', 'v', 'c', 'o', 'd', 'ts', 'tz', 'iv', 'u', 'j', 'jb', 'constructor'];

const value = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 4 }),
  fc.constantFrom('', ' 7 ', 'a"b', 'x,y', 'l\nm', '\\.', '\\N', 'NULL', '12.345', '2024-02-29', '2024-02-30'),
  fc.constantFrom('2024-01-01 10:00:00+02', '1 day 2 hours', 'c0a80121-7ac0-4e1c-9f1e-8d4f2b7a1c3e', 'true', 'ab'),
  fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 2 })), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 2 }), fc.oneof(fc.integer(), fc.constant(null)), { maxKeys: 2 }),
);
const text = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('', 'a"b', 'x,y', 'l\nm', '\\.', '\\N', 'NULL'));
const json = fc.oneof(value, fc.dictionary(fc.string({ maxLength: 3 }), value, { maxKeys: 2 }));
/** Values each column takes, mostly: so that most batches stage and the comparison means something. */
const fitting: Record<string, fc.Arbitrary<unknown>> = {
  i: fc.oneof(fc.integer(), fc.constantFrom(' 7 ', '12')),
  b: fc.oneof(fc.maxSafeInteger(), fc.constant('9007199254740993')),
  n: fc.oneof(fc.double({ min: -9999, max: 9999, noNaN: true }), fc.constantFrom('1.005', '-0', '12.345')),
  f: fc.double({ noNaN: true, noDefaultInfinity: true }),
  r: fc.oneof(fc.float({ noNaN: true, noDefaultInfinity: true }), fc.constant('1e-40')),
  s: text,
  v: fc.string({ maxLength: 3 }),
  c: fc.string({ maxLength: 2 }),
  o: fc.oneof(fc.boolean(), fc.constantFrom('t', 'no', 1)),
  d: fc.constantFrom('2024-02-29', '2024-01-01', 'epoch'),
  ts: fc.constantFrom('2024-01-01 10:00:00', '2024-01-01T10:00:00.123456'),
  tz: fc.constantFrom('2024-01-01 10:00:00+02', '2024-06-01T00:00:00Z'),
  iv: fc.constantFrom('1 day 2 hours', 'P1D', '00:01'),
  u: fc.uuid(),
  j: json,
  jb: json,
  constructor: fc.integer(),
};
const row = fc
  .tuple(
    ...NAMES.map((n) => fc.option(fc.oneof({ arbitrary: fitting[n]!, weight: 39 }, { arbitrary: value, weight: 1 }))),
  )
  .map((values) => Object.fromEntries(NAMES.flatMap((n, i) => (values[i] === null ? [] : [[n, values[i]]]))) as Row);
const change: fc.Arbitrary<Change> = fc.record({ weight: fc.constantFrom(1, -1, 3), row });

describe('staging by COPY equals staging from JSON', { timeout: 120_000 }, () => {
  let db: PGlite;
  let table: Relation;
  beforeAll(async () => {
    db = await createInMemory(engineDump(), { slim: true });
    await db.exec(`${TABLE}; CREATE SCHEMA ${STAGE};`);
    const [read] = await readCatalog(db, [{ sql: TABLE, creates: { name: 't', kind: 'table', materialized: false } }]);
    table = read!;
    await db.exec(stagingSql(table));
  }, 60_000);
  afterAll(() => db?.close());

  /** The staged rows as text, or the failure. */
  const staged = async (batch: Change[], json: boolean): Promise<string> => {
    const stage = inSchema(STAGE, 't');
    try {
      await stageBatch(db, table, batch, json);
    } catch {
      return 'failed';
    }
    const rows = await db.query<{ r: string }>(`SELECT to_json(x)::text AS r FROM ${stage} x ORDER BY __svc_ord`);
    await db.exec(`TRUNCATE ${stage}`);
    return rows.rows.map((r) => r.r.replace(/"__svc_ord":\d+/, '')).join('\n');
  };

  it('every column type of the table is one COPY takes', () => {
    expect(copyable(table.columns)).toBe(true);
  });

  it('holds for random batches', async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(change, { minLength: 1, maxLength: 3 }), async (batch) => {
        const json = await staged(batch, true);
        if (json !== 'failed') accepted += 1;
        expect(await staged(batch, false)).toBe(json);
      }),
      {
        numRuns: 400,
        // NUL escapes in json (found by a CI run): json_populate_record rejects them, COPY must too.
        examples: [
          [[{ weight: 1, row: { j: '\u0000' } }]],
          [[{ weight: 1, row: { j: { '\u0000': 1 }, jb: 2 } }]],
          [[{ weight: 1, row: { j: ['a\\u0000'] } }]],
        ],
      },
    );
    // Enough batches that stage (most random values fit no column) for the comparison to mean something.
    expect(accepted).toBeGreaterThan(40);
  });
});
