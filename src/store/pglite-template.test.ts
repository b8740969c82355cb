import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createInMemory } from './pglite-template.js';

describe('PGlite template (real PGlite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tpl-'));
  const path = join(dir, 'cache', 'pglite-test.tar');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the template on first use, and an instance loaded from it is a working, untouched database', async () => {
    const first = await createInMemory(path);
    await first.exec('CREATE TABLE only_in_first (x INT)');
    expect(statSync(path).size).toBeGreaterThan(1_000_000);
    await first.close();

    const second = await createInMemory(path);
    const tables = await second.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'only_in_first'",
    );
    expect(tables.rows[0]?.n).toBe(0);
    await second.exec('CREATE TABLE t (x INT); INSERT INTO t VALUES (1), (2)');
    expect((await second.query<{ s: number }>('SELECT sum(x)::int AS s FROM t')).rows[0]?.s).toBe(3);
    await second.close();
  });

  it('a damaged template still gives a working database, and is written anew', async () => {
    writeFileSync(path, 'not a tar file');
    const db = await createInMemory(path);
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    await db.close();
    expect(statSync(path).size).toBeGreaterThan(1_000_000);
  });
});
