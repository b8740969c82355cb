import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProgramEngine } from './engine.js';
import { HOUSEKEEPING_STEPS } from './housekeeping.js';
import { openEngine } from './open.js';
import type { Change } from './types.js';

// A pipeline whose data stays the same size must stay the same size in memory: upserts of the same
// keys, rows inserted and deleted again, rules that make and drop temporary tables each step. The
// engine's database files and WAL are its memory (PGlite, no autovacuum, no checkpointer).

const PROGRAM = `
  CREATE TABLE acct (id int PRIMARY KEY, bal int NOT NULL, region text NOT NULL);
  CREATE TABLE ev (id bigint NOT NULL, acct int NOT NULL);
  CREATE MATERIALIZED VIEW by_region AS SELECT region, count(*) AS n, sum(bal) AS total FROM acct GROUP BY region;
  CREATE MATERIALIZED VIEW rich AS SELECT DISTINCT region FROM acct WHERE bal > 500;
  CREATE MATERIALIZED VIEW j AS SELECT e.id, a.region FROM ev e JOIN acct a ON a.id = e.acct;`;

/** Rows upserted, inserted and deleted a step. */
const ROWS = 20;

describe('engine housekeeping', { timeout: 240_000 }, () => {
  let engine: ProgramEngine;
  beforeAll(async () => {
    engine = await openEngine(PROGRAM);
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
    // The first rounds settle (the WAL's recycled segments); from then on nothing grows.
    let s = 0;
    for (; s < 2 * HOUSEKEEPING_STEPS; s++) await oneStep(s);
    const early = await footprint();
    for (; s < 4 * HOUSEKEEPING_STEPS; s++) await oneStep(s);
    const late = await footprint();
    // Without the housekeeping: +~4 MiB of dead rows and ~30 MiB of WAL over these 200 steps.
    expect(late - early).toBeLessThan(2 ** 20);
    expect((await engine.query('SELECT count(*)::int AS n FROM j')).rows).toEqual([{ n: ROWS }]);
  });
});
