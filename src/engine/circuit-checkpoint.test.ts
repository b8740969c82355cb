import { afterEach, describe, expect, it } from 'vitest';
import { parseSpelled, rawNumber } from '../model/exact-json.js';
import type { JsonValue } from '../model/json.js';
import type { DumpedPage } from './dump.js';
import type { ProgramEngine } from './engine.js';
import { openEngine } from './open.js';
import type { Restored, StatePage } from './state.js';
import type { Change } from './types.js';

// The native circuits' state in a checkpoint (circuit-checkpoint.ts): a resume takes every join
// trace, group and accumulator, DISTINCT count and held row back, and the views go on from there
// exactly as the engine that wrote it would have; a checkpoint whose circuit state does not fit
// (another number of shards, an unreadable entry) is resumed by evaluating the views again.

const PROGRAM = `
  CREATE TABLE o (id bigint NOT NULL, c int, amount numeric(12,3), tag text);
  CREATE TABLE c (id int PRIMARY KEY, region text);
  CREATE MATERIALIZED VIEW per_c AS
    SELECT c, count(*) AS n, sum(amount) AS s, avg(amount) AS a, min(tag) AS lo, max(id) AS hi, sum(id) AS ids
    FROM o GROUP BY c;
  CREATE VIEW everything AS SELECT count(*) AS n, sum(amount) AS s FROM o;
  CREATE VIEW joined AS SELECT o.id, c.region, o.amount FROM o JOIN c ON c.id = o.c;
  CREATE MATERIALIZED VIEW lefty AS SELECT o.id, c.region FROM o LEFT JOIN c ON c.id = o.c;
  CREATE VIEW regions AS SELECT DISTINCT region FROM joined;
  CREATE MATERIALIZED VIEW per_region AS SELECT region, count(*) AS n FROM joined GROUP BY region;`;
const VIEWS = ['per_c', 'everything', 'joined', 'lefty', 'regions', 'per_region'];

/** An int8 a double cannot hold. */
const BEYOND_DOUBLE = rawNumber('9007199254740993') as JsonValue;
const order = (id: JsonValue, c: number | null, amount: string | null, tag: string | null) => ({
  weight: 1,
  row: { id, c, amount, tag },
});

/** Edge values: numerics of several scales (equal ones too), NaN, a long one, NULLs, non-ASCII text. */
const FIRST = [
  order(1, 1, '2.5', 'b'),
  order(2, 1, '2.500', 'a'),
  order(3, 2, 'NaN', 'ü'),
  order(4, 2, '123456789.125', null),
  order(5, null, '0', 'z'),
  order(BEYOND_DOUBLE, 3, '-1.001', '日本'),
  order(7, 3, null, 'c'),
  // One key with more rows than an entry of a join trace holds (1,000).
  ...Array.from({ length: 2_500 }, (_, i) => order(1_000 + i, 4, `${i}.5`, 'bulk')),
];
const CUSTOMERS = [
  { weight: 1, row: { id: 1, region: 'north' } },
  { weight: 1, row: { id: 2, region: 'south' } },
  { weight: 1, row: { id: 4, region: 'north' } },
];
/** After the restart: deletes of rows the restored state holds, a key that moves, new rows. */
const LATER: [string, Change[]][] = [
  [
    'o',
    [
      { ...order(2, 1, '2.500', 'a'), weight: -1 },
      { ...order(3, 2, 'NaN', 'ü'), weight: -1 },
      order(8, 4, '1', 'y'),
      // max(id) of customer 4 was its largest id: the next is found among the values taken back.
      { ...order(3_499, 4, '2499.5', 'bulk'), weight: -1 },
    ],
  ],
  [
    'c',
    [
      { weight: 1, row: { id: 3, region: 'east' } },
      { weight: -1, row: { id: 1, region: 'north' } },
      // Every one of customer 4's 2,500 rows the join traces hold moves to another region.
      { weight: 1, row: { id: 4, region: 'west' } },
    ],
  ],
  ['o', [{ ...order(BEYOND_DOUBLE, 3, '-1.001', '日本'), weight: -1 }, order(10, 1, '0.0001', 'd')]],
];

const engines: ProgramEngine[] = [];
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close();
});
const open = async (workers: number) => {
  const engine = await openEngine(PROGRAM, { workers });
  engines.push(engine);
  for (const v of VIEWS) engine.watch(v);
  return engine;
};

async function filled(workers: number): Promise<ProgramEngine> {
  const engine = await open(workers);
  await engine.ingest('o', FIRST);
  await engine.ingest('c', CUSTOMERS);
  await engine.step();
  return engine;
}

async function dumpOf(engine: ProgramEngine): Promise<StatePage[]> {
  const pages: StatePage[] = [];
  const each = async (p: DumpedPage) => void pages.push({ ...p, rows: parseSpelled(p.json) as JsonValue[] });
  await engine.dump(each, { blocks: 64, rows: 3 });
  return pages;
}

async function restored(pages: StatePage[], workers: number): Promise<[ProgramEngine, Restored]> {
  const engine = await open(workers);
  async function* each(): AsyncGenerator<StatePage> {
    yield* pages;
  }
  return [engine, await engine.restore({ views: VIEWS, pages: each() }, true)];
}

const sorted = (rows: unknown[]) => [...rows].map((r) => JSON.stringify(r)).sort();

/** Both engines take the same changes: every step's changes and every view's rows are the same. */
async function sameFromHere(a: ProgramEngine, b: ProgramEngine): Promise<void> {
  for (const [table, changes] of LATER) {
    await a.ingest(table, changes);
    await b.ingest(table, changes);
    const [sa, sb] = [await a.step(), await b.step()];
    for (const v of VIEWS) expect(sorted(sb.outputs.get(v) ?? []), v).toEqual(sorted(sa.outputs.get(v) ?? []));
  }
  for (const v of ['per_c', 'lefty', 'per_region'])
    expect(sorted(await b.snapshot(v)), v).toEqual(sorted(await a.snapshot(v)));
}

/** Restored from `pages`, the circuits take their state back: the same rows now and after every later step. */
async function resumesAs(before: ProgramEngine, pages: StatePage[], workers: number): Promise<void> {
  const [after, outcome] = await restored(pages, workers);
  expect(outcome.circuits).toEqual({ resumed: true });
  for (const v of ['per_c', 'lefty', 'per_region'])
    expect(sorted(await after.snapshot(v)), v).toEqual(sorted(await before.snapshot(v)));
  await sameFromHere(before, after);
}

/** per_c's pages as layout 1 wrote them: each group's MIN/MAX values in its own entry, no further parts. */
function wholeExtremes(pages: StatePage[]): StatePage[] {
  const groups = new Map<string, unknown[]>();
  return pages.map((p) => {
    if (p.name !== 'per_c' || !p.circuit) return p;
    const rows = (p.rows as [number, unknown[]][]).filter(([op, e]) => {
      if (op < 0) return true;
      const key = JSON.stringify(e[0]);
      if (e[1] !== null) return groups.set(key, structuredClone(e[2] as unknown[])) && true;
      (groups.get(key)![e[2] as number] as unknown[]).push(...(e[3] as unknown[]));
      return false;
    });
    return {
      ...p,
      rows: rows.map(([op, e]) =>
        op < 0 || e[1] === null ? [op, e] : [op, [e[0], e[1], groups.get(JSON.stringify(e[0]))]],
      ) as JsonValue[],
    };
  });
}

describe('native circuit state through a checkpoint', { timeout: 120_000 }, () => {
  for (const workers of [1, 3])
    it(`is taken back whole and carries on as the engine that wrote it (workers ${workers})`, async () => {
      const before = await filled(workers);
      const pages = await dumpOf(before);
      const parts = pages.filter((p) => p.section === 'circuit');
      // Every view and shard writes a part, even an empty one (a stateless view's: no entry).
      expect(new Set(parts.map((p) => `${p.name}/${p.circuit?.shard}`)).size).toBe(VIEWS.length * workers);
      expect(parts.every((p) => p.circuit?.shards === workers)).toBe(true);
      expect(Math.max(...parts.map((p) => p.rows.length))).toBe(3);
      // A trace's key of 2,500 rows is written as entries of at most 1,000.
      const joinRows = parts
        .filter((p) => p.name === 'joined')
        .flatMap((p) => p.rows as [number, [string, unknown, unknown[]]][])
        .filter(([, [side]]) => side === 'l')
        .map(([, [, , rows]]) => rows.length);
      expect(Math.max(...joinRows)).toBe(1_000);
      // max(id) of customer 4 holds 2,500 values: its group's entry holds 1,000, two more entries the rest.
      const groups = parts
        .filter((p) => p.name === 'per_c')
        .flatMap((p) => p.rows as [number, unknown[]][])
        .filter(([op]) => op >= 0);
      const more = groups.filter(([, e]) => e[1] === null).map(([, e]) => (e[3] as unknown[]).length / 2);
      expect(more.sort()).toEqual([1_000, 500]);
      const maxIds = groups.filter(([, e]) => e[1] !== null).map(([, e]) => (e[2] as unknown[][])[4]!.length / 2);
      expect(Math.max(...maxIds)).toBe(1_000);
      await resumesAs(before, pages, workers);
    });

  it('written after a checkpoint that failed part way holds every entry again (workers 3)', async () => {
    const before = await filled(3);
    // The disk fills after a shard's first full page: that shard's save of the view is left open.
    const failing = async (p: DumpedPage) => {
      if (p.section === 'circuit' && p.circuit!.shard > 0 && p.rows === 3) throw new Error('disk full');
    };
    await expect(before.dump(failing, { blocks: 64, rows: 3 })).rejects.toThrow('disk full');
    await resumesAs(before, await dumpOf(before), 3);
  });

  it('of another number of shards is not taken: the views are evaluated from the tables', async () => {
    const before = await filled(1);
    const [after, outcome] = await restored(await dumpOf(before), 3);
    expect(outcome.circuits).toEqual({ resumed: false, reason: 'circuit state of 1 shards, not 3' });
    await sameFromHere(before, after);
  });

  it('of the earlier layout (1) is taken, of a layout this version does not know is not', async () => {
    const before = await filled(1);
    // Layout 1 is layout 2 without the further parts of a MIN/MAX: its values were all in one entry.
    const relabelled = (version: number, pages: StatePage[]) =>
      pages.map((p) => (p.circuit ? { ...p, circuit: { ...p.circuit, version } } : p));
    const pages = await dumpOf(before);
    await resumesAs(before, relabelled(1, wholeExtremes(pages)), 1);
    const [after, outcome] = await restored(relabelled(3, await dumpOf(before)), 1);
    expect(outcome.circuits).toEqual({ resumed: false, reason: 'circuit state of layout 3, not 2' });
    await sameFromHere(before, after);
  });

  it('that cannot be read is not taken, and leaves nothing half taken behind', async () => {
    const before = await filled(1);
    const pages = await dumpOf(before);
    // The join's second page names an operator the view does not have.
    const bad = pages.filter((p) => p.section === 'circuit' && p.name === 'joined')[1]!;
    bad.rows = [[7, bad.rows[0]!]];
    const [after, outcome] = await restored(pages, 1);
    expect(outcome.circuits).toEqual({
      resumed: false,
      reason: 'circuit state names operator 7, which the view does not have',
    });
    await sameFromHere(before, after);
  });
});
