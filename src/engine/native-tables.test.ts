import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProgramEngine } from './engine.js';
import { openEngine } from './open.js';
import { parseSpelled } from '../model/exact-json.js';
import type { JsonValue } from '../model/json.js';
import type { StatePage } from './state.js';

// Which tables the native path holds, and why not the others; a native table's own readers (a
// snapshot, its changes, its row count) and its input errors, as for a table PGlite holds.

const PROGRAM = `
  CREATE TABLE kv (k int PRIMARY KEY, v numeric(6,2) NOT NULL, s text);
  CREATE TABLE bag (x int, y double precision);
  CREATE TABLE checked (k int CHECK (k > 0));
  CREATE TABLE dated (k int, d date, ts timestamp(3), tz timestamptz);
  CREATE TABLE spanned (k int, i interval);
  CREATE TABLE read_by_pglite (k int, s text);
  CREATE VIEW over_kv AS SELECT k, v FROM kv WHERE v > 1;
  CREATE MATERIALIZED VIEW bag_sum AS SELECT x, count(*) AS n FROM bag GROUP BY x;
  CREATE VIEW over_checked AS SELECT k FROM checked;
  CREATE VIEW over_dated AS SELECT k, d, ts, tz FROM dated;
  CREATE VIEW over_spanned AS SELECT k, i FROM spanned;
  CREATE VIEW lowered AS SELECT k, lower(s) AS s FROM read_by_pglite;
`;

describe('native tables', { timeout: 60_000 }, () => {
  let engine: ProgramEngine;
  beforeAll(async () => {
    engine = await openEngine(PROGRAM);
  }, 60_000);
  afterAll(() => engine?.close());

  const table = (name: string) => engine.resolve(name, 'table');

  it('holds a table only native views read, of native types and constraints, and says why not the others', () => {
    expect(table('kv')).toMatchObject({ maintenance: 'native' });
    expect(table('bag')).toMatchObject({ maintenance: 'native' });
    expect(table('checked')?.maintenanceReason).toBe(
      'not native: it has a constraint other than NOT NULL and PRIMARY KEY',
    );
    expect(table('dated')).toMatchObject({ maintenance: 'native' });
    expect(table('spanned')?.maintenanceReason).toBe('not native: column i is of type interval');
    expect(engine.resolve('lowered', 'view')?.maintenance).not.toBe('native');
    expect(table('read_by_pglite')?.maintenanceReason).toBe(
      'not native: read by lowered, which the native path does not keep',
    );
  });

  it('upserts by key and counts a multiset, with PostgreSQL’s conversion and errors', async () => {
    engine.watch('kv');
    const ingested = await engine.ingest('kv', [
      { weight: 1, row: { k: 1, v: 1.005, s: 'a' } },
      { weight: 1, row: { k: 2, v: '7.5', s: 'b' } },
      { weight: 1, row: { k: 'x', v: 1 } },
      { weight: 1, row: { k: 3 } },
      { weight: 1, row: { k: 4, v: 10000 } },
      { weight: 1, row: { k: 1, v: 2.5, s: 'last' } },
    ]);
    expect(ingested.accepted).toBe(3);
    expect(ingested.errors).toEqual([
      { index: 2, message: 'column k: invalid input syntax for type integer: "x"' },
      { index: 3, message: 'column v: null value in column "v" of relation "kv" violates not-null constraint' },
      {
        index: 4,
        message:
          'column v: numeric field overflow (A field with precision 6, scale 2 must round to an absolute value less than 10^4.)',
      },
    ]);
    await engine.ingest('bag', [
      { weight: 2, row: { x: 1, y: 0.5 } },
      { weight: -1, row: { x: 9, y: 0 } },
    ]);
    const step = await engine.step();
    expect(step.outputs.get('kv')).toEqual(
      expect.arrayContaining([
        { weight: 1, row: { k: 1, v: 2.5, s: 'last' } },
        { weight: 1, row: { k: 2, v: 7.5, s: 'b' } },
      ]),
    );
    expect(await engine.snapshot('over_kv')).toEqual(
      expect.arrayContaining([
        { k: 1, v: 2.5 },
        { k: 2, v: 7.5 },
      ]),
    );
    expect(await engine.snapshot('bag')).toEqual([
      { x: 1, y: 0.5 },
      { x: 1, y: 0.5 },
    ]);
    expect(await engine.snapshot('bag_sum')).toEqual([{ x: 1, n: 2 }]);
    expect(await engine.rowCounts()).toMatchObject({ kv: 2, bag: 2 });
    await engine.ingest('kv', [{ weight: -1, row: { k: 2, v: 0 } }]);
    await engine.ingest('bag', [{ weight: -5, row: { x: 1, y: 0.5 } }]);
    await engine.step();
    expect(await engine.rowCounts()).toMatchObject({ kv: 1, bag: 0 });
    expect(await engine.snapshot('bag_sum')).toEqual([]);
  });

  // A multiset only inserted into holds its rows as they came, unindexed (a row inserted in two
  // steps is two entries); its first delete builds the index, which must see both copies as one row.
  it('deletes from a multiset that was only inserted into, across steps and a checkpoint', async () => {
    const program = `CREATE TABLE bag (x int, y double precision);
      CREATE MATERIALIZED VIEW bag_sum AS SELECT x, count(*) AS n FROM bag GROUP BY x;`;
    let bag = await openEngine(program);
    try {
      await bag.ingest('bag', [{ weight: 1, row: { x: 1, y: 0.5 } }]);
      await bag.step();
      await bag.ingest('bag', [
        { weight: 1, row: { x: 1, y: 0.5 } },
        { weight: 2, row: { x: 2, y: 1 } },
      ]);
      await bag.step();
      // A restart before any delete: the checkpoint holds the rows as appended.
      const pages: StatePage[] = [];
      await bag.dump(async (page) => void pages.push({ ...page, rows: parseSpelled(page.json) as JsonValue[] }));
      await bag.close();
      bag = await openEngine(program);
      async function* each(): AsyncGenerator<StatePage> {
        yield* pages;
      }
      await bag.restore({ views: ['bag_sum'], pages: each() }, true);
      expect(await bag.rowCounts()).toMatchObject({ bag: 4 });
      bag.watch('bag');
      await bag.ingest('bag', [
        { weight: -1, row: { x: 1, y: 0.5 } },
        { weight: -1, row: { x: 7, y: 0 } },
      ]);
      const step = await bag.step();
      expect(step.outputs.get('bag')).toEqual([{ weight: -1, row: { x: 1, y: 0.5 } }]);
      expect(await bag.rowCounts()).toMatchObject({ bag: 3 });
      await bag.ingest('bag', [
        { weight: 1, row: { x: 2, y: 1 } },
        { weight: -3, row: { x: 1, y: 0.5 } },
      ]);
      await bag.step();
      expect(await bag.snapshot('bag')).toEqual([
        { x: 2, y: 1 },
        { x: 2, y: 1 },
        { x: 2, y: 1 },
      ]);
      expect(await bag.snapshot('bag_sum')).toEqual([{ x: 2, n: 3 }]);
    } finally {
      await bag.close();
    }
  });

  it('finds a key by SQL equality: 1.0 = 1.00 and -0 = 0 are one key, as PostgreSQL’s primary key has it', async () => {
    const keyed = await openEngine(`
      CREATE TABLE nk (k numeric, f double precision, s text, PRIMARY KEY (k, f));
      CREATE VIEW over_nk AS SELECT k, f, s FROM nk;`);
    try {
      expect(keyed.resolve('nk', 'table')).toMatchObject({ maintenance: 'native' });
      await keyed.ingest('nk', [
        { weight: 1, row: { k: '1.0', f: 0, s: 'a' } },
        { weight: 1, row: { k: '2', f: 0.5, s: 'c' } },
      ]);
      await keyed.step();
      await keyed.ingest('nk', [{ weight: 1, row: { k: '1.00', f: -0, s: 'b' } }]);
      await keyed.step();
      expect(await keyed.rowCounts()).toMatchObject({ nk: 2 });
      expect(await keyed.snapshot('over_nk')).toEqual(
        expect.arrayContaining([
          { k: 1, f: 0, s: 'b' },
          { k: 2, f: 0.5, s: 'c' },
        ]),
      );
      await keyed.ingest('nk', [{ weight: -1, row: { k: '1', f: 0, s: 'any' } }]);
      await keyed.step();
      expect(await keyed.snapshot('over_nk')).toEqual([{ k: 2, f: 0.5, s: 'c' }]);
    } finally {
      await keyed.close();
    }
  });
});
