import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProgramEngine } from './engine.js';
import { HOUSEKEEPING_STEPS } from './housekeeping.js';
import { openEngine } from './open.js';
import type { Change } from './types.js';

// A pipeline whose data stays the same size must stay the same size in memory: upserts of the same
// keys, rows inserted and deleted again, every rule's scratch tables filled and emptied each step.
// The engine's database files and WAL are its memory (PGlite, no autovacuum, no checkpointer), and
// so is the backend's own memory: its catalog cache, which a relation made and dropped grows for good.

const PROGRAM = `
  CREATE TABLE acct (id int PRIMARY KEY, bal int NOT NULL, region text NOT NULL);
  CREATE TABLE ev (id bigint NOT NULL, acct int NOT NULL);
  CREATE MATERIALIZED VIEW by_region AS SELECT region, count(*) AS n, sum(bal) AS total FROM acct GROUP BY region;
  CREATE MATERIALIZED VIEW rich AS SELECT DISTINCT region FROM acct WHERE bal > 500;
  CREATE MATERIALIZED VIEW j AS SELECT e.id, a.region FROM ev e JOIN acct a ON a.id = e.acct;
  CREATE MATERIALIZED VIEW spread AS SELECT region, count(*) AS n FROM acct GROUP BY region HAVING count(*) > 1;
  CREATE MATERIALIZED VIEW top3 AS SELECT id, bal FROM acct ORDER BY bal DESC, id LIMIT 3;`;

/** Rows upserted, inserted and deleted a step. */
const ROWS = 20;

// On the PGlite path (every rule with a scratch table in the program) and on the native path (the
// views it covers natively; the tables and the fallback view still in PGlite).
const PATHS = [
  {
    native: false,
    expected: { by_region: 'aggregate', rich: 'group', j: 'linear', spread: 'group', top3: 'recompute' },
  },
  {
    native: true,
    expected: { by_region: 'native', rich: 'native', j: 'native', spread: 'native', top3: 'recompute' },
  },
];

describe.each(PATHS)('engine housekeeping (native: $native)', { timeout: 240_000 }, ({ native, expected }) => {
  let engine: ProgramEngine;
  const rules = new Map<string, string>();
  beforeAll(async () => {
    engine = await openEngine(PROGRAM, { native, onMaintenance: (view, rule) => rules.set(view, rule) });
  }, 60_000);
  afterAll(() => engine?.close());

  /** Bytes of the database's files and of its WAL directory. */
  const footprint = async () => {
    const [row] = (
      await engine.query(
        `SELECT pg_database_size(current_database())::float8 AS db, (SELECT sum(size) FROM pg_ls_waldir())::float8 AS wal`,
      )
    ).rows;
    return Number(row?.['db']) + Number(row?.['wal']);
  };
  /** Bytes the backend's catalog cache holds (relation, type and statistics lookups it keeps). */
  const catalogCache = async () =>
    Number(
      (
        await engine.query(
          `SELECT used_bytes::float8 AS b FROM pg_backend_memory_contexts WHERE name = 'CacheMemoryContext'`,
        )
      ).rows[0]?.['b'],
    );

  const oneStep = async (s: number) => {
    const acct: Change[] = Array.from({ length: ROWS }, (_, k) => ({
      weight: 1,
      row: { id: (s * ROWS + k) % 500, bal: (s * k) % 1000, region: `r${k % 7}` },
    }));
    const ev = (weight: number, from: number): Change[] =>
      Array.from({ length: ROWS }, (_, k) => ({ weight, row: { id: from + k, acct: (from + k) % 500 } }));
    await engine.ingest('acct', acct);
    if (s > 0) await engine.ingest('ev', ev(-1, (s - 1) * ROWS));
    await engine.ingest('ev', ev(1, s * ROWS));
    await engine.step();
  };

  it('holds the footprint of constant data flat over many steps', async () => {
    expect(Object.fromEntries(rules)).toEqual(expected);
    // The first rounds settle (the WAL's recycled segments); from then on nothing grows.
    let s = 0;
    for (; s < 2 * HOUSEKEEPING_STEPS; s++) await oneStep(s);
    const early = await footprint();
    const earlyCache = await catalogCache();
    for (; s < 4 * HOUSEKEEPING_STEPS; s++) await oneStep(s);
    const late = await footprint();
    // Without the housekeeping: +~4 MiB of dead rows and ~30 MiB of WAL over these 200 steps.
    expect(late - early).toBeLessThan(2 ** 20);
    // With a temporary table made and dropped per rule and step (as the rules once did): +780 KiB.
    expect((await catalogCache()) - earlyCache).toBeLessThan(32 * 1024);
    expect((await engine.query('SELECT count(*)::int AS n FROM j')).rows).toEqual([{ n: ROWS }]);
  });
});
