import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInMemory } from '../pglite/initdb-dump.js';
import { openPglite } from './pglite-database.js';

// A new data dir of the embedded record database comes from the engine's slim initdb dump (the
// build ships it) rather than PGlite's initdb in the process: what it holds then, and the way back
// to initdb when the dump cannot be read.

const settings = `SELECT name, setting FROM pg_settings
  WHERE name IN ('shared_buffers', 'wal_segment_size') ORDER BY name`;

describe('a new data dir of the embedded record database', () => {
  let dir: string;
  let dump: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-new-data-dir-'));
    dump = join(dir, 'engine-initdb.tar');
    // The slim dump, as `npm run build` makes it (scripts/engine-dump.mjs).
    await (await createInMemory(dump, { slim: true })).close();
  }, 120_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is unpacked from the dump, with 1 MiB WAL segments and 16 MiB of buffers, and keeps its rows', async () => {
    const pgdata = join(dir, 'from-dump');
    const db = await openPglite(pgdata, { initdbDump: dump });
    try {
      expect(existsSync(join(pgdata, 'PG_VERSION'))).toBe(true);
      // 2048 pages of 8 kB; segments in bytes.
      expect(await db.query(settings)).toEqual([
        { name: 'shared_buffers', setting: '2048' },
        { name: 'wal_segment_size', setting: String(1024 * 1024) },
      ]);
      await db.exec(`CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1), (2)`);
    } finally {
      await db.close();
    }
    const again = await openPglite(pgdata, { initdbDump: dump });
    try {
      expect(await again.query('SELECT id FROM t ORDER BY id')).toEqual([{ id: 1 }, { id: 2 }]);
    } finally {
      await again.close();
    }
  }, 60_000);

  it('runs initdb when the dump is not a dump, and the database works', async () => {
    const bad = join(dir, 'bad.tar');
    await writeFile(bad, 'not a tar');
    const pgdata = join(dir, 'from-initdb');
    const db = await openPglite(pgdata, { initdbDump: bad });
    try {
      expect(await db.query<{ n: number }>('SELECT 1 + 1 AS n')).toEqual([{ n: 2 }]);
    } finally {
      await db.close();
    }
  }, 120_000);
});
