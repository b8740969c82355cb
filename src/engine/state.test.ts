import { afterEach, describe, expect, it } from 'vitest';
import { parseSpelled, rawNumber } from '../model/exact-json.js';
import type { JsonValue } from '../model/json.js';
import type { ProgramEngine } from './engine.js';
import { openEngine } from './open.js';
import type { DumpedPage, PageSizes } from './dump.js';
import type { StatePage, StateSource } from './state.js';

// A checkpoint's state travels in pages (src/engine/dump.ts, src/engine/state.ts): dumped a range of
// heap blocks (or, for buffered input, a number of rows) at a time, restored a page at a time. Small
// pages here and wide rows in t, so that relations span several.

const PROGRAM = `
  CREATE TABLE t (k int PRIMARY KEY, g text NOT NULL, v int, pad text) WITH ('materialized' = 'true');
  CREATE TABLE bag (s text) WITH ('materialized' = 'true');
  CREATE MATERIALIZED VIEW agg AS SELECT g, count(*) AS n, sum(v) AS total FROM t GROUP BY g;
  CREATE MATERIALIZED VIEW tagged AS SELECT t.k, b.s FROM t JOIN bag b ON b.s = t.g;
  CREATE MATERIALIZED VIEW top2 AS SELECT k, v FROM t ORDER BY v DESC LIMIT 2;
`;
/** Every view of PROGRAM (a checkpoint lists them). */
const VIEWS = ['agg', 'tagged', 'top2'];

const engines: ProgramEngine[] = [];
const open = async (program = PROGRAM) => {
  const engine = await openEngine(program);
  engines.push(engine);
  return engine;
};
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close();
});

const SMALL: PageSizes = { blocks: 1, rows: 5 };
async function dumpOf(engine: ProgramEngine, sizes: PageSizes = SMALL): Promise<DumpedPage[]> {
  const pages: DumpedPage[] = [];
  await engine.dump(async (page) => void pages.push(page), sizes);
  return pages;
}
const rowsOf = (page: DumpedPage) => parseSpelled(page.json) as JsonValue[];
/** The pages as a restore reads them; without `circuits`, as a checkpoint of an earlier version (no circuit state). */
function sourceOf(pages: DumpedPage[], views: string[], circuits = true): StateSource & { read: StatePage[] } {
  const read: StatePage[] = [];
  async function* each(): AsyncGenerator<StatePage> {
    for (const p of pages) {
      if (!circuits && p.section === 'circuit') continue;
      const page = { section: p.section, name: p.name, rows: rowsOf(p), ...(p.circuit && { circuit: p.circuit }) };
      read.push(page);
      yield page;
    }
  }
  return { views, pages: each(), read };
}
const sorted = <T>(rows: T[]) => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

async function filled(): Promise<ProgramEngine> {
  const engine = await open();
  // About five rows of t fill a heap block of 8 KiB.
  const rows = Array.from({ length: 23 }, (_, i) => ({
    weight: 1,
    row: { k: i, g: `g${i % 4}`, v: i, pad: 'p'.repeat(1500) },
  }));
  await engine.ingest('t', rows);
  await engine.ingest('bag', [
    { weight: 2, row: { s: 'g1' } },
    { weight: 1, row: { s: 'g2' } },
  ]);
  await engine.step();
  // Buffered, not stepped: a checkpoint keeps it for the next step.
  await engine.ingest('t', [{ weight: 1, row: { k: 100, g: 'g1', v: 1000 } }]);
  return engine;
}

describe('engine state in pages', { timeout: 60_000 }, () => {
  it('dumps each relation in pages, tables first, then views, then buffered input; nothing lost or repeated', async () => {
    const engine = await filled();
    for (let i = 0; i < 12; i++) await engine.ingest('t', [{ weight: 1, row: { k: 200 + i, g: 'g9', v: 0 } }]);
    const pages = await dumpOf(engine);
    expect(pages.every((p) => p.rows > 0 && rowsOf(p).length === p.rows)).toBe(true);
    expect(pages.filter((p) => p.json.includes('\n'))).toEqual([]); // a page is a line of the file
    const order = [...new Set(pages.map((p) => `${p.section}:${p.name}`))];
    // agg and tagged are kept natively: their circuits' state (groups, join traces) follows the
    // views' rows; top2 (ORDER BY … LIMIT: PGlite's recompute) keeps its rows.
    expect(order).toEqual(['table:t', 'table:bag', 'view:top2', 'circuit:agg', 'circuit:tagged', 'staged:t']);
    const tPages = pages.filter((p) => p.section === 'table' && p.name === 't');
    expect(tPages.length).toBeGreaterThanOrEqual(4); // a block a page, ~5 rows a block
    const keys = tPages.flatMap((p) => rowsOf(p).map((r) => (r as { k: number }).k));
    expect(keys.sort((a, b) => a - b)).toEqual(Array.from({ length: 23 }, (_, i) => i));
    const staged = pages.filter((p) => p.section === 'staged');
    expect(staged.map((p) => p.rows)).toEqual([5, 5, 3]); // in arrival order, 5 a page
    expect(staged.flatMap((p) => rowsOf(p).map((c) => (c as { row: { k: number } }).row.k))).toEqual([
      100,
      ...Array.from({ length: 12 }, (_, i) => 200 + i),
    ]);
    const bag = pages.filter((p) => p.name === 'bag').flatMap(rowsOf);
    expect(sorted(bag)).toEqual([{ s: 'g1' }, { s: 'g1' }, { s: 'g2' }]);
  });

  it('a replay restores every page: tables, the views as kept, the buffered input for the next step', async () => {
    const before = await filled();
    const pages = await dumpOf(before);
    const after = await open();
    for (const r of after.relations()) if (r.kind === 'view') after.watch(r.name);
    const source = sourceOf(pages, VIEWS);
    const restored = await after.restore(source, true);
    expect(source.read).toHaveLength(pages.length);
    expect(restored).toEqual({
      restored: { t: 23, bag: 3 },
      skipped: [],
      staged: { t: 1 },
      circuits: { resumed: true },
    });
    expect(after.bufferedRecords).toBe(1);
    for (const view of VIEWS) expect(sorted(await after.snapshot(view))).toEqual(sorted(await before.snapshot(view)));
    // The buffered record is applied by the next step, as it would have been.
    before.watch('agg');
    const expected = (await before.step()).outputs.get('agg');
    const step = await after.step();
    expect(sorted(step.outputs.get('agg') ?? [])).toEqual(sorted(expected ?? []));
    expect(step.outputs.get('agg')).toContainEqual({ weight: 1, row: { g: 'g1', n: 7, total: 1066 } });
    expect(sorted(await after.snapshot('tagged'))).toEqual(sorted(await before.snapshot('tagged')));
  });

  it('a native circuit is rebuilt from a restored table of several pages of rows (no circuit state)', async () => {
    const program = `CREATE TABLE big (k int PRIMARY KEY, g int NOT NULL);
      CREATE MATERIALIZED VIEW per_g AS SELECT g, count(*) AS n, sum(k) AS s FROM big GROUP BY g;`;
    const before = await open(program);
    // Past the 10,000 rows a page the rebuild reads at a time, and not a multiple of it.
    await before.ingest(
      'big',
      Array.from({ length: 25_003 }, (_, k) => ({ weight: 1, row: { k, g: k % 3 } })),
    );
    await before.step();
    const after = await open(program);
    expect(after.resolve('per_g', 'view')?.maintenance).toBe('native');
    const restored = await after.restore(
      sourceOf(await dumpOf(before, { blocks: 64, rows: 10_000 }), ['per_g'], false),
      true,
    );
    expect(restored.circuits).toEqual({ resumed: false, reason: 'the checkpoint holds no circuit state of per_g' });
    after.watch('per_g');
    expect(sorted(await after.snapshot('per_g'))).toEqual(sorted(await before.snapshot('per_g')));
    // The circuit holds every row: deleting them all empties the view.
    await after.ingest(
      'big',
      Array.from({ length: 25_003 }, (_, k) => ({ weight: -1, row: { k, g: k % 3 } })),
    );
    const step = await after.step();
    expect(sorted(step.outputs.get('per_g') ?? [])).toEqual(
      sorted((await before.snapshot('per_g')).map((row) => ({ weight: -1, row }))),
    );
    expect(await after.snapshot('per_g')).toEqual([]);
  });

  it('a bootstrap leaves a table whose rows no longer fit empty, even when its first pages went in', async () => {
    const before = await filled();
    // A row that a smallint cannot hold, stored after the others: it is on the last page of t.
    await before.ingest('t', [{ weight: 1, row: { k: 50, g: 'g0', v: 70_000 } }]);
    await before.step();
    const pages = await dumpOf(before);
    const changed = await open(PROGRAM.replace('v int', 'v smallint'));
    const restored = await changed.restore(sourceOf(pages, VIEWS), false);
    expect(restored.skipped).toEqual(['t']);
    expect(restored.restored).toEqual({ bag: 3 });
    expect(await changed.snapshot('agg')).toEqual([]);
    expect((await changed.query('SELECT count(*)::int AS n FROM t')).rows).toEqual([{ n: 0 }]);
  });

  it('a replay fails on rows that do not fit, naming the table', async () => {
    const before = await filled();
    const pages = await dumpOf(before);
    const other = await open(PROGRAM.replace('v int', 'v smallint CHECK (v < 5)'));
    await expect(other.restore(sourceOf(pages, VIEWS), true)).rejects.toMatchObject({
      errorCode: 'CheckpointMismatch',
      message: expect.stringContaining('cannot restore table t') as unknown,
    });
  });
});

// Restored rows go in by COPY where the columns allow (src/engine/copy-text.ts), else from JSON: what
// comes back must be what was dumped, value for value, at the edges of each type too.
const TYPES = `
  CREATE TABLE t (k int PRIMARY KEY, sm smallint, b bigint, n numeric, n2 numeric(8,3), f double precision,
    r real, s text, v varchar(4), c char(3), o boolean, d date, tm time, ts timestamp, tz timestamptz,
    iv interval, u uuid, j json, jb jsonb) WITH ('materialized' = 'true');
  CREATE TABLE arr (k int PRIMARY KEY, a int[], t text[], n numeric[]) WITH ('materialized' = 'true');
  CREATE MATERIALIZED VIEW byo AS SELECT o, count(*) AS n, max(s) AS s FROM t GROUP BY o;
`;
const EDGES: Record<string, unknown>[] = [
  { k: 1, sm: -32768, b: '9223372036854775807', n: 'NaN', n2: '-99999.999', f: 'NaN', r: '1e-40', s: '' },
  { k: 2, sm: 32767, b: '-9223372036854775808', n: 'Infinity', n2: '0.001', f: 'Infinity', r: '-0', s: 'a"b,c' },
  { k: 3, n: '-Infinity', f: '-Infinity', r: '3.4e38', s: 'line\nbreak\r\n', v: 'ab"', c: 'a', o: true },
  { k: 4, n: '123456789012345678901234567890.123456789', f: 5e-324, s: '\\.', v: '', c: '', o: false },
  { k: 5, f: 1.7976931348623157e308, s: 'NULL', d: 'infinity', tm: '24:00:00', ts: '-infinity', iv: '-1 day +02:03' },
  { k: 6, f: -0, s: '\\N', d: '4713-01-01 BC', tm: '00:00:00.000001', ts: '0044-03-15 12:00:00 BC', tz: 'infinity' },
  { k: 7, s: 'ünïcødé 🎉', d: '2024-02-29', ts: '2024-02-29 23:59:59.999999', tz: '2024-01-01 10:00:00+02' },
  { k: 8, u: 'c0a80121-7ac0-4e1c-9f1e-8d4f2b7a1c3e', j: { a: [1, 'x', null], b: { c: true } }, jb: [1, { d: 'e' }] },
  // A numeric's scale: 2.50 is not 2.5 to a multiset delete, nor to an output.
  { k: 9, n: '2.50', j: 'just a string', jb: 42, iv: '1 year 2 mons 3 days 04:05:06.789', s: ',' },
  { k: 10, n: '0.000', j: null, jb: null, s: ' padded ', c: 'xy ' },
  // A numeric's scale inside a json value: {"x": 2.50} read back as a double was {"x": 2.5}.
  { k: 11, j: { x: rawNumber('2.50'), y: [rawNumber('1.0')] }, jb: { x: rawNumber('2.50'), e: rawNumber('1e3') } },
];

describe('restored values', { timeout: 60_000 }, () => {
  it('come back exactly as dumped, by COPY where the types allow and from JSON where not', async () => {
    const before = await open(TYPES);
    const ingested = await before.ingest(
      't',
      EDGES.map((row) => ({ weight: 1, row: row as Record<string, JsonValue> })),
    );
    expect(ingested.errors).toEqual([]);
    await before.ingest('arr', [
      // numeric[]: the elements' scales (2.50, 1.0) come back too.
      { weight: 1, row: { k: 1, a: [1, null, -3], t: ['a,b', 'c"d', '', null], n: ['2.50', '1.0', null, '-0.000'] } },
      { weight: 1, row: { k: 2, a: [], t: ['{x}', 'NULL'] } },
    ]);
    await before.step();
    const all = async (engine: ProgramEngine, table: string) =>
      (await engine.query(`SELECT row_to_json(x)::text AS r FROM ${table} x ORDER BY 1`)).rows;
    const pages = await dumpOf(before, { blocks: 1, rows: 3 });
    const after = await open(TYPES);
    await after.restore(sourceOf(pages, ['byo']), true);
    for (const table of ['t', 'arr', 'byo']) expect(await all(after, table)).toEqual(await all(before, table));
    expect(await all(after, 't')).toHaveLength(EDGES.length);
  });
});
