import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Change, Row } from '../types.js';
import { SEED_PAGE_ROWS } from './replica.js';
import { startThreadEngine, type ThreadEngine } from './thread-engine.js';

// A replica is seeded page by page (SEED_PAGE_ROWS rows at a time), so that neither the engine's
// thread nor the replica holds a large relation whole: a relation of several pages, native or
// PGlite's, arrives whole and once, as of the step the seed started at.

const PROGRAM = `
CREATE TABLE n (k int NOT NULL, v bigint) WITH ('materialized' = 'true');
CREATE TABLE p (k int NOT NULL CHECK (k >= 0), v bigint) WITH ('materialized' = 'true');`;
const ROWS = 2 * SEED_PAGE_ROWS + 5_000;

let engine: ThreadEngine;
beforeAll(async () => {
  engine = await startThreadEngine().load(PROGRAM);
  for (const table of ['n', 'p']) {
    // Every row twice over two ingests, one of them deleted again: copies count.
    const rows = (weight: number): Change[] =>
      Array.from({ length: ROWS }, (_, k) => ({ weight, row: { k, v: k * 3 } }));
    await engine.ingest(table, rows(1));
    await engine.ingest(table, rows(1));
    await engine.ingest(table, [{ weight: -1, row: { k: 7, v: 21 } }]);
  }
  await engine.step();
}, 120_000);
afterAll(() => engine?.close());

describe('a replica seeded page by page', { timeout: 120_000 }, () => {
  it('holds every row of a relation of several pages, native or not', async () => {
    expect(engine.resolve('n', 'table')?.maintenance).toBe('native');
    expect(engine.resolve('p', 'table')?.maintenance).not.toBe('native');
    const want = { rows: 2 * ROWS - 1, total: String(2 * 3 * ((ROWS * (ROWS - 1)) / 2) - 21) };
    for (const table of ['n', 'p']) {
      const got = await engine.query(`SELECT count(*)::int AS rows, sum(v)::text AS total FROM ${table}`);
      expect(got.rows, table).toEqual([want]);
    }
  });

  it('pages a snapshot as of one step', async () => {
    const sizes: number[] = [];
    const rows: Row[] = [];
    // A step asked for while the pages are read runs after the last of them.
    let stepped = false;
    await engine.ingest('n', [{ weight: 1, row: { k: -1, v: 0 } }]);
    await engine.snapshotPages('n', SEED_PAGE_ROWS, async (page) => {
      if (sizes.length === 0) void engine.step().then(() => (stepped = true));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(stepped).toBe(false);
      sizes.push(page.length);
      for (const row of page) rows.push(row);
    });
    expect(sizes).toEqual([
      SEED_PAGE_ROWS,
      SEED_PAGE_ROWS,
      SEED_PAGE_ROWS,
      SEED_PAGE_ROWS,
      2 * ROWS - 1 - 4 * SEED_PAGE_ROWS,
    ]);
    expect(rows.map((r) => JSON.stringify(r)).sort()).toEqual(
      (await engine.snapshot('n'))
        .filter((r) => r['k'] !== -1)
        .map((r) => JSON.stringify(r))
        .sort(),
    );
  });
});
