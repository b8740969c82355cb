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
