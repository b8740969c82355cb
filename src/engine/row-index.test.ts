import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInMemory } from '../pglite/initdb-dump.js';
import { engineDump } from '../pglite/shipped-dump.js';
import { copiesSql, ensureRowIndex } from './row-index.js';

// Deleting rows of a multiset by value looks them up by the row-hash index, so a step that deletes
// a few rows reads a few rows, whatever the relation holds.

describe('row-hash index of a multiset', { timeout: 60_000 }, () => {
  let db: PGlite;
  beforeAll(async () => {
    db = await createInMemory(engineDump(), { slim: true });
    await db.exec(`CREATE TABLE "T x" (a int, b text, c timestamptz);
      INSERT INTO "T x" SELECT i % 100, 'v' || (i % 7), NULL FROM generate_series(1, 20000) i;`);
  }, 60_000);
  afterAll(() => db?.close());

  const copies = (rows: string) =>
    `WITH d(a, b, c, svc_n) AS (VALUES ${rows}) ${copiesSql('public', 'T x', 'd', [{ name: 'a' }, { name: 'b' }, { name: 'c' }])}`;

  it('finds up to n copies of each row, by index once it exists', async () => {
    await ensureRowIndex(db, 'public', 'T x');
    await ensureRowIndex(db, 'public', 'T x'); // a second time is a no-op
    const sql = copies(`(3, 'v3', NULL::timestamptz, 2::bigint), (5, 'nope', NULL, 1)`);
    const plan = JSON.stringify((await db.query(`EXPLAIN (FORMAT JSON) ${sql}`)).rows);
    expect(plan).toMatch(/"Index Name":"svc_rowkey_[0-9a-f]{16}"/);
    expect((await db.query(sql)).rows).toHaveLength(2);
    const deleted = await db.query(`DELETE FROM "T x" WHERE ctid IN (${sql})`);
    expect(deleted.affectedRows).toBe(2);
  });
});
