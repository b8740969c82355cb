import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExact } from '../../model/exact-json.js';
import type { JsonValue } from '../../model/json.js';
import type { Change, Row } from '../types.js';
import { startThreadEngine, type ThreadEngine } from './thread-engine.js';

// The engine on its thread and the query replica on its own, through the main thread's proxy:
// the replica holds what the engine holds after every step (inserts, a multiset's deletes of some
// copies, a view's changed rows), seeded as of the step it started at; exact numbers cross intact.

const PROGRAM = `
CREATE TABLE t (k int, big bigint) WITH ('materialized' = 'true');
CREATE MATERIALIZED VIEW per_k AS SELECT k, count(*) AS n FROM t GROUP BY k;
CREATE VIEW plain AS SELECT k FROM t;`;

let engine: ThreadEngine;
beforeAll(async () => {
  engine = await startThreadEngine().load(PROGRAM);
}, 120_000);
afterAll(() => engine?.close());

const rows = (k: number, big: number | string, weight = 1): Change => ({
  weight,
  row: { k, big: typeof big === 'string' ? (parseExact(big) as JsonValue) : big },
});
const sorted = (xs: Row[]) => xs.map((r) => JSON.stringify(r)).sort();

async function same(name: string): Promise<void> {
  const replica = await engine.query(`SELECT * FROM ${name}`);
  expect(sorted(replica.rows)).toEqual(sorted(await engine.snapshot(name)));
}

describe('the query replica', { timeout: 120_000 }, () => {
  it('is seeded as of the step it starts at, then follows every step', async () => {
    await engine.ingest('t', [rows(1, 1), rows(1, 1), rows(2, 5)]);
    await engine.step();
    await same('t');
    await same('per_k');
    // Two of three copies go, one row comes: the replica deletes copies as the engine does.
    await engine.ingest('t', [rows(1, 1), rows(1, 1), rows(2, 5, -1), rows(3, '9007199254740993')]);
    await engine.ingest('t', [rows(1, 1, -2)]);
    await engine.step();
    await same('t');
    await same('per_k');
    const big = await engine.query('SELECT big::text AS b FROM t WHERE k = 3');
    expect(big.rows).toEqual([{ b: '9007199254740993' }]);
  });

  it('refuses what is not materialized, and a query that outlives its time limit', async () => {
    await expect(engine.query('SELECT * FROM plain')).rejects.toMatchObject({ errorCode: 'InvalidSqlQuery' });
    await expect(engine.queryWith('SELECT pg_sleep(30)', { timeoutMs: 500 })).rejects.toMatchObject({
      errorCode: 'QueryTimeout',
    });
    // A new replica, seeded from the engine, answers the next query.
    await same('per_k');
  });
});

// User-defined types (a domain, an enum, an array of it, a composite) and functions: the replica
// defines the program's own before its tables, and the values it is fed (their text, COPY's format) are read back by those types.
describe('the query replica of a program with types of its own', { timeout: 120_000 }, () => {
  let typed: ThreadEngine;
  beforeAll(async () => {
    typed = await startThreadEngine().load(`
      CREATE DOMAIN positive AS int NOT NULL CHECK (VALUE > 0);
      CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
      CREATE TYPE point2 AS (x int, y text);
      CREATE FUNCTION cheer(x mood) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT x::text || '!' $$;
      CREATE FUNCTION lift() RETURNS text LANGUAGE sql SECURITY DEFINER AS $$ SELECT current_setting('is_superuser') $$;
      CREATE TABLE t (id positive PRIMARY KEY, m mood, ms mood[], p point2) WITH ('materialized' = 'true');
      CREATE MATERIALIZED VIEW per_mood AS SELECT m, count(*) AS n FROM t GROUP BY m;
      CREATE MATERIALIZED VIEW glad AS SELECT id, p, ms FROM t WHERE m > 'sad';`);
  }, 120_000);
  afterAll(() => typed?.close());

  it('answers queries on them as the engine holds them', async () => {
    await typed.ingest('t', [
      { weight: 1, row: { id: 1, m: 'happy', ms: ['sad', 'ok'], p: { x: 1, y: 'a "quoted", text' } } },
      { weight: 1, row: { id: 2, m: 'happy', ms: [], p: { x: 2, y: null } } },
      { weight: 1, row: { id: 3, m: 'sad', ms: null, p: null } },
    ]);
    await typed.step();
    for (const name of ['t', 'per_mood', 'glad']) {
      const replica = await typed.query(`SELECT * FROM ${name}`);
      expect(sorted(replica.rows), name).toEqual(sorted(await typed.snapshot(name)));
    }
    // Ordered by the enum's order, not the text's.
    const moods = await typed.query(`SELECT m FROM t ORDER BY m, id`);
    expect(moods.rows).toEqual([{ m: 'sad' }, { m: 'happy' }, { m: 'happy' }]);
    const fields = await typed.query(`SELECT (p).y AS y FROM t WHERE id = 1`);
    expect(fields.rows).toEqual([{ y: 'a "quoted", text' }]);
    // The program's functions are there for queries too.
    expect((await typed.query(`SELECT cheer(m) AS c FROM t WHERE id = 3`)).rows).toEqual([{ c: 'sad!' }]);
    // A SECURITY DEFINER function runs as a role of no privilege, not as the replica's superuser.
    expect((await typed.query(`SELECT lift() AS s`)).rows).toEqual([{ s: 'off' }]);
  });
});

// A replica nobody queries any more ends after its quiet time (its PGlite, its copy of every
// materialized relation and its share of every step are given back); the next query seeds a new one.
describe('the query replica after a quiet time', { timeout: 120_000 }, () => {
  let quiet: ThreadEngine;
  beforeAll(async () => {
    quiet = await startThreadEngine({ replicaIdleMs: 400 }).load(PROGRAM);
  }, 120_000);
  afterAll(() => quiet?.close());

  const stopped = async (): Promise<number> => {
    const from = Date.now();
    while (quiet.queryReplica.running && Date.now() - from < 10_000) await new Promise((r) => setTimeout(r, 50));
    return Date.now() - from;
  };

  it('ends, is not ended under a query that outlasts it, and a new one sees every step since', async () => {
    expect(quiet.queryReplica.running).toBe(false);
    await quiet.ingest('t', [rows(1, 1), rows(2, 2)]);
    await quiet.step();
    expect((await quiet.query('SELECT count(*)::int AS n FROM t')).rows).toEqual([{ n: 2 }]);
    expect(quiet.queryReplica.running).toBe(true);
    await stopped();
    expect(quiet.queryReplica.running).toBe(false);

    // Steps while no replica runs: the next query's replica is seeded with them.
    await quiet.ingest('t', [rows(3, 3), rows(1, 1, -1)]);
    await quiet.step();
    const answer = await quiet.query('SELECT k FROM t ORDER BY k');
    expect(answer.rows).toEqual([{ k: 2 }, { k: 3 }]);
    expect(quiet.queryReplica).toEqual({ running: true, starts: 2 });
    const held = sorted(await quiet.snapshot('per_k'));
    const perK = await quiet.query('SELECT * FROM per_k');
    expect(sorted(perK.rows)).toEqual(held);

    // A query longer than the quiet time keeps the replica; the quiet time starts when it ends.
    const slow = await quiet.query('SELECT count(*)::int AS n FROM (SELECT pg_sleep(0.8)) s');
    expect(slow.rows).toEqual([{ n: 1 }]);
    expect(quiet.queryReplica).toEqual({ running: true, starts: 2 });
    expect(await stopped()).toBeGreaterThanOrEqual(300);
    expect(quiet.queryReplica.running).toBe(false);
  });
});
